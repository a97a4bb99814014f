import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Subscribes a new group to a topic from the beginning and reads until `count` records or 30 s,
 * then prints "CONSUMED p=n,p=n". Arguments: bootstrap topic group count [consumer] (KIP-848).
 */
public class DrainProbe {
  public static void main(String[] args) throws Exception {
    Properties props = new Properties();
    props.put("bootstrap.servers", args[0]);
    props.put("group.id", args[2]);
    props.put("auto.offset.reset", "earliest");
    if (args.length > 4) props.put("group.protocol", "consumer");
    int count = Integer.parseInt(args[3]);
    Map<Integer, Integer> parts = new TreeMap<>();
    long start = System.currentTimeMillis();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of(args[1]));
      int seen = 0;
      while (seen < count && System.currentTimeMillis() - start < 30_000) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
          parts.merge(r.partition(), 1, Integer::sum);
          seen++;
        }
      }
    }
    StringBuilder line = new StringBuilder("CONSUMED ");
    parts.forEach((p, n) -> line.append(p).append('=').append(n).append(','));
    System.out.println(line);
  }
}
