// Kafka Connect plugins for compat-tests/frameworks/connect.ts: a source connector that sends the
// lines of a file to a topic and a sink connector that appends a topic's records to a file, one
// task each, in the manner of Kafka's FileStreamSource/FileStreamSink (connect-file, which the
// registry this project reaches does not serve). Only whole lines (ended by '\n') are sent, at
// most `batch` (default 100) per poll, each poll after `pause.ms` (default 0).
//
// The source's offset is {"line": the number of lines sent} under the source partition
// {"file": path}, stored by the worker in its offset topic; a restarted task goes on from there.
// The sink writes in put() and flushes in flush(), before the worker commits the consumer offsets.
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkConnector;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceConnector;
import org.apache.kafka.connect.source.SourceRecord;

public class FileLines {
  static final String VERSION = "1";

  static ConfigDef define(String... names) {
    ConfigDef d = new ConfigDef();
    for (String n : names) d.define(n, ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, n);
    return d;
  }

  public static class Source extends SourceConnector {
    private Map<String, String> props;

    @Override public void start(Map<String, String> props) { this.props = props; }
    @Override public Class<? extends Task> taskClass() { return SourceLines.class; }
    @Override public List<Map<String, String>> taskConfigs(int maxTasks) { return List.of(props); }
    @Override public void stop() {}
    @Override public ConfigDef config() { return define("file", "topic", "batch", "pause.ms"); }
    @Override public String version() { return VERSION; }
  }

  public static class SourceLines extends org.apache.kafka.connect.source.SourceTask {
    private Path file;
    private String topic;
    private Map<String, String> partition;
    private long next;
    private int batch;
    private long pauseMs;

    @Override public String version() { return VERSION; }

    @Override public void start(Map<String, String> props) {
      file = Path.of(props.get("file"));
      topic = props.get("topic");
      partition = Map.of("file", file.toString());
      batch = Integer.parseInt(props.getOrDefault("batch", "100"));
      pauseMs = Long.parseLong(props.getOrDefault("pause.ms", "0"));
      Map<String, Object> offset = context.offsetStorageReader().offset(partition);
      next = offset == null ? 0 : ((Number) offset.get("line")).longValue();
    }

    @Override public List<SourceRecord> poll() throws InterruptedException {
      List<String> lines = wholeLines();
      if (lines.size() <= next) {
        Thread.sleep(100);
        return null;
      }
      if (pauseMs > 0) Thread.sleep(pauseMs);
      List<SourceRecord> out = new ArrayList<>();
      for (long i = next; i < lines.size() && out.size() < batch; i++) {
        out.add(new SourceRecord(partition, Map.of("line", i + 1), topic, null, null, null, Schema.STRING_SCHEMA, lines.get((int) i)));
      }
      next += out.size();
      return out;
    }

    private List<String> wholeLines() {
      try {
        if (!Files.exists(file)) return List.of();
        String text = Files.readString(file, StandardCharsets.UTF_8);
        int end = text.lastIndexOf('\n');
        return end < 0 ? List.of() : List.of(text.substring(0, end).split("\n", -1));
      } catch (IOException e) {
        throw new ConnectException("reading " + file, e);
      }
    }

    @Override public void stop() {}
  }

  public static class Sink extends SinkConnector {
    private Map<String, String> props;

    @Override public void start(Map<String, String> props) { this.props = props; }
    @Override public Class<? extends Task> taskClass() { return SinkLines.class; }
    @Override public List<Map<String, String>> taskConfigs(int maxTasks) { return List.of(props); }
    @Override public void stop() {}
    @Override public ConfigDef config() { return define("file"); }
    @Override public String version() { return VERSION; }
  }

  public static class SinkLines extends org.apache.kafka.connect.sink.SinkTask {
    private Writer out;

    @Override public String version() { return VERSION; }

    @Override public void start(Map<String, String> props) {
      try {
        out = Files.newBufferedWriter(Path.of(props.get("file")), StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      } catch (IOException e) {
        throw new ConnectException("opening " + props.get("file"), e);
      }
    }

    @Override public void put(Collection<SinkRecord> records) {
      try {
        for (SinkRecord r : records) out.write(r.value() + "\n");
      } catch (IOException e) {
        throw new ConnectException("writing", e);
      }
    }

    @Override public void flush(Map<TopicPartition, OffsetAndMetadata> offsets) {
      try {
        out.flush();
      } catch (IOException e) {
        throw new ConnectException("flushing", e);
      }
    }

    @Override public void stop() {
      try {
        if (out != null) out.close();
      } catch (IOException e) {
        throw new ConnectException("closing", e);
      }
    }
  }
}
