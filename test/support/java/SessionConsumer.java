// A kafka-clients consumer for the fetch-session tests (test/e2e/fetch-sessions.test.ts): assigns
// every partition of a topic (no group), reads from the beginning until it has EXPECTED records,
// and prints one line: "DONE <partition>:<count>:<sum of offsets>,...". Prints "CAUGHT_UP" once
// it has FIRST records (the test then writes more). The Java client fetches in a fetch session
// (KIP-227) on its own.
//
// Run as a single source file: java -cp <kafka jars> SessionConsumer.java BOOTSTRAP TOPIC PARTITIONS FIRST EXPECTED CLIENT_ID
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public class SessionConsumer {
  public static void main(String[] args) {
    String bootstrap = args[0];
    String topic = args[1];
    int partitions = Integer.parseInt(args[2]);
    long first = Long.parseLong(args[3]);
    long expected = Long.parseLong(args[4]);
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, args[5]);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "200");
    // Small fetches: the session's order (partitions with records move to the end) shares them out.
    props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "2048");
    props.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, "16384");
    long[] count = new long[partitions];
    long[] sum = new long[partitions];
    long total = 0;
    boolean caughtUp = false;
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> tps = new ArrayList<>();
      for (int p = 0; p < partitions; p++) tps.add(new TopicPartition(topic, p));
      c.assign(tps);
      c.seekToBeginning(tps);
      long deadline = System.currentTimeMillis() + 90_000;
      while (total < expected && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          count[r.partition()]++;
          sum[r.partition()] += r.offset();
          total++;
        }
        if (!caughtUp && total >= first) {
          caughtUp = true;
          System.out.println("CAUGHT_UP");
          System.out.flush();
        }
      }
    }
    StringBuilder b = new StringBuilder("DONE ");
    for (int p = 0; p < partitions; p++) b.append(p == 0 ? "" : ",").append(p).append(':').append(count[p]).append(':').append(sum[p]);
    System.out.println(b);
    System.out.flush();
  }
}
