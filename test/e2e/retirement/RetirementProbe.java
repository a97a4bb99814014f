import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Sends N records (keyless, or keyed "k<i>") to a topic with the Java client's default
 * partitioner and prints one line: "PARTS p=n,p=n ERRORS n FIRST <exception>".
 * Arguments: bootstrap topic count [keyed].
 */
public class RetirementProbe {
  public static void main(String[] args) throws Exception {
    Properties props = new Properties();
    props.put("bootstrap.servers", args[0]);
    props.put("delivery.timeout.ms", "6000");
    props.put("request.timeout.ms", "5000");
    props.put("linger.ms", "5");
    boolean keyed = args.length > 3;
    int count = Integer.parseInt(args[2]);
    Map<Integer, Integer> parts = new TreeMap<>();
    List<String> errors = new ArrayList<>();
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        sent.add(producer.send(new ProducerRecord<>(args[1], keyed ? "k" + i : null, "v" + i)));
        if (i % 50 == 0) Thread.sleep(20);
      }
      for (Future<RecordMetadata> f : sent) {
        try {
          parts.merge(f.get().partition(), 1, Integer::sum);
        } catch (ExecutionException e) {
          errors.add(e.getCause().getClass().getSimpleName() + ": " + e.getCause().getMessage());
        }
      }
    }
    StringBuilder line = new StringBuilder("PARTS ");
    parts.forEach((p, n) -> line.append(p).append('=').append(n).append(','));
    line.append(" ERRORS ").append(errors.size()).append(" FIRST ").append(errors.isEmpty() ? "-" : errors.get(0));
    System.out.println(line);
  }
}
