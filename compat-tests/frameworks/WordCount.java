// A Kafka Streams 4.4 application for compat-tests/frameworks.test.ts: a stateful word count
// with exactly_once_v2. Lines from <in> are split into words, re-keyed by word (groupBy: a
// repartition topic), counted in a RocksDB store (a changelog topic) and every new count is
// written to <out> (the record cache is off, so each increment is one output record).
//
//   WordCount <bootstrap> <application.id> <state.dir> <in> <out> [classic|streams]
//   WordCount read <bootstrap> <topic>     (the Java consumer, read_committed: each word's counts in order)
//   WordCount values <bootstrap> <topic>   (the Java consumer, read_committed: partition 0's values in order)
//
// Prints one JSON line per state change ({"state":"RUNNING"}) and per 5 lines split
// ({"lines":5}); SIGTERM closes it cleanly (a
// shutdown hook); an uncaught exception prints {"error":...} and exits 1. Each line of input costs
// a few milliseconds (a sleep), so a test can kill the instance while it is half-way through.
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
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
  /** Lines split by this process (aborted work done again after a restart counts again). */
  static final AtomicInteger linesSplit = new AtomicInteger();

  static String json(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n").replace("\r", "").replace("\t", " ") + "\"";
  }

  /** Reads <topic> read_committed from the start to its last stable offsets; prints {"counts":{word:[count,...]}}. */
  static void read(String bootstrap, String topic) {
    Properties c = new Properties();
    c.put("bootstrap.servers", bootstrap);
    c.put("isolation.level", "read_committed");
    c.put("enable.auto.commit", "false");
    c.put("key.deserializer", StringDeserializer.class.getName());
    c.put("value.deserializer", LongDeserializer.class.getName());
    Map<String, List<Long>> counts = new TreeMap<>();
    try (KafkaConsumer<String, Long> consumer = new KafkaConsumer<>(c)) {
      List<TopicPartition> parts = new ArrayList<>();
      for (PartitionInfo p : consumer.partitionsFor(topic)) parts.add(new TopicPartition(topic, p.partition()));
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      Map<TopicPartition, Long> ends = consumer.endOffsets(parts);
      long deadline = System.currentTimeMillis() + 30_000;
      while (parts.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
        if (System.currentTimeMillis() > deadline) throw new IllegalStateException("positions " + parts.stream().map(consumer::position).toList() + " short of " + ends);
        for (ConsumerRecord<String, Long> r : consumer.poll(Duration.ofMillis(500))) counts.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.value());
      }
    }
    StringBuilder sb = new StringBuilder("{\"counts\":{");
    String sep = "";
    for (Map.Entry<String, List<Long>> e : counts.entrySet()) {
      sb.append(sep).append(json(e.getKey())).append(":").append(e.getValue());
      sep = ",";
    }
    System.out.println(sb.append("}}"));
  }

  /** Reads <topic> (one partition) read_committed from the start to its last stable offset; prints {"values":[...]}. */
  static void values(String bootstrap, String topic) {
    Properties c = new Properties();
    c.put("bootstrap.servers", bootstrap);
    c.put("isolation.level", "read_committed");
    c.put("enable.auto.commit", "false");
    c.put("key.deserializer", StringDeserializer.class.getName());
    c.put("value.deserializer", StringDeserializer.class.getName());
    StringBuilder sb = new StringBuilder("{\"values\":[");
    String sep = "";
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp)).get(tp);
      long deadline = System.currentTimeMillis() + 30_000;
      while (consumer.position(tp) < end) {
        if (System.currentTimeMillis() > deadline) throw new IllegalStateException("position " + consumer.position(tp) + " short of " + end);
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
          sb.append(sep).append(json(r.value()));
          sep = ",";
        }
      }
    }
    System.out.println(sb.append("]}"));
  }

  public static void main(String[] a) throws Exception {
    if (a[0].equals("read")) {
      read(a[1], a[2]);
      return;
    }
    if (a[0].equals("values")) {
      values(a[1], a[2]);
      return;
    }
    String bootstrap = a[0], appId = a[1], stateDir = a[2], in = a[3], out = a[4];
    String groupProtocol = a.length > 5 ? a[5] : "classic";
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(StreamsConfig.CLIENT_ID_CONFIG, appId);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "100");
    p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, "0");
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, "1");
    // classic (Streams' default) or streams (KIP-1071's streams groups).
    p.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, groupProtocol);
    // A restarted instance waits for the killed one's membership to expire: keep that short.
    if (groupProtocol.equals("classic")) {
      p.put(StreamsConfig.consumerPrefix("session.timeout.ms"), "6000");
      p.put(StreamsConfig.consumerPrefix("heartbeat.interval.ms"), "1000");
    }
    // Small polls: smaller batches between commits.
    p.put(StreamsConfig.consumerPrefix("max.poll.records"), "20");

    StreamsBuilder b = new StreamsBuilder();
    b.stream(in, Consumed.with(Serdes.String(), Serdes.String()))
        .flatMapValues(line -> {
          try {
            Thread.sleep(15);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          int n = linesSplit.incrementAndGet();
          if (n % 5 == 0) {
            System.out.println("{\"lines\":" + n + "}");
            System.out.flush();
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
