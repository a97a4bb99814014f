// A kafka-clients consumer with client.rack for the follower-fetching tests
// (test/system/follower-fetch.test.ts, KIP-392): assigns partition 0 of a topic (no group), reads
// from the beginning until it has EXPECTED records, printing "CAUGHT_UP" once it has FIRST, then
// one line: "DONE <records> <duplicate offsets> <missing offsets below EXPECTED>".
//
// Run as a single source file:
//   java -cp <kafka jars> RackConsumer.java BOOTSTRAP TOPIC FIRST EXPECTED CLIENT_ID RACK METADATA_MAX_AGE_MS
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public class RackConsumer {
  public static void main(String[] args) {
    String bootstrap = args[0];
    String topic = args[1];
    int first = Integer.parseInt(args[2]);
    int expected = Integer.parseInt(args[3]);
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, args[4]);
    props.put(ConsumerConfig.CLIENT_RACK_CONFIG, args[5]);
    // The preferred read replica is kept this long before the leader is asked again.
    props.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, args[6]);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "200");
    // Small fetches: many of them, so the recordings show where each went.
    props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "4096");
    BitSet seen = new BitSet(expected);
    long records = 0;
    long duplicates = 0;
    boolean caughtUp = false;
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      TopicPartition tp = new TopicPartition(topic, 0);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      long deadline = System.currentTimeMillis() + 150_000;
      while (seen.cardinality() < expected && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          records++;
          int o = (int) r.offset();
          if (seen.get(o)) duplicates++;
          seen.set(o);
        }
        if (!caughtUp && seen.cardinality() >= first) {
          caughtUp = true;
          System.out.println("CAUGHT_UP");
          System.out.flush();
        }
      }
    }
    System.out.println("DONE " + records + " " + duplicates + " " + (expected - seen.get(0, expected).cardinality()));
    System.out.flush();
  }
}
