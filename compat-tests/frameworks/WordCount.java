// A Kafka Streams 4.4 application for compat-tests/frameworks.test.ts: a stateful word count
// with exactly_once_v2. Lines from <in> are split into words, re-keyed by word (groupBy: a
// repartition topic), counted in a RocksDB store (a changelog topic) and every new count is
// written to <out> (the record cache is off, so each increment is one output record).
//
//   WordCount <bootstrap> <application.id> <state.dir> <in> <out>
//
// Prints one JSON line per state change ({"state":"RUNNING"}); SIGTERM closes it cleanly (a
// shutdown hook); an uncaught exception prints {"error":...} and exits 1. Each line of input costs
// a few milliseconds (a sleep), so a test can kill the instance while it is half-way through.
import java.time.Duration;
import java.util.Arrays;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;

public class WordCount {
  static volatile boolean closing = false;

  static String json(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n").replace("\r", "").replace("\t", " ") + "\"";
  }

  public static void main(String[] a) throws Exception {
    String bootstrap = a[0], appId = a[1], stateDir = a[2], in = a[3], out = a[4];
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(StreamsConfig.CLIENT_ID_CONFIG, appId);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "100");
    p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, "0");
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, "1");
    // The classic group protocol (Streams' default): Samsa does not serve KIP-1071's streams groups.
    p.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "classic");
    // A restarted instance waits for the killed one's membership to expire: keep that short.
    p.put(StreamsConfig.consumerPrefix("session.timeout.ms"), "6000");
    p.put(StreamsConfig.consumerPrefix("heartbeat.interval.ms"), "1000");
    p.put(StreamsConfig.consumerPrefix("max.poll.records"), "50");

    StreamsBuilder b = new StreamsBuilder();
    b.stream(in, Consumed.with(Serdes.String(), Serdes.String()))
        .flatMapValues(line -> {
          try {
            Thread.sleep(4);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return Arrays.asList(line.split(" "));
        })
        .groupBy((k, word) -> word, Grouped.with("words", Serdes.String(), Serdes.String()))
        .count(Materialized.as("word-counts"))
        .toStream()
        .to(out, Produced.with(Serdes.String(), Serdes.Long()));

    KafkaStreams streams = new KafkaStreams(b.build(), p);
    CountDownLatch stopped = new CountDownLatch(1);
    streams.setStateListener((now, before) -> {
      System.out.println("{\"state\":" + json(now.name()) + "}");
      System.out.flush();
      if (now == KafkaStreams.State.NOT_RUNNING || now == KafkaStreams.State.ERROR) stopped.countDown();
    });
    streams.setUncaughtExceptionHandler(e -> {
      System.out.println("{\"error\":" + json(e.toString() + (e.getCause() != null ? " caused by " + e.getCause() : "")) + "}");
      System.out.flush();
      return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    });
    // System.exit from inside a shutdown would block: the hook closes, main then only returns.
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      closing = true;
      streams.close(Duration.ofSeconds(15));
    }));
    streams.start();
    stopped.await();
    if (streams.state() == KafkaStreams.State.ERROR) Runtime.getRuntime().halt(1);
    if (!closing) System.exit(0);
  }
}
