/*
 * The Java test control client (compat-tests/control-clients/java/SamsaControl.java) with the
 * Kafka Java client: two injected Produce errors that the producer retries, seen in a recording
 * and in the rule's hits; a wait on the high watermark; a refused call. Prints one JSON line.
 *   java ControlScenario BOOTSTRAP HTTP_URL
 */
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

public final class ControlScenario {
  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    SamsaControl control = new SamsaControl(args[1]);
    long rec = control.record(List.of("Produce"));
    long rule = control.injectError("Produce", "NOT_LEADER_OR_FOLLOWER", 2);
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "50");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    long offset;
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      offset = producer.send(new ProducerRecord<>("ctl-java", "k", "v")).get().offset();
    }
    long hits = control.removeRule(rule);
    String exchanges = control.exchanges(rec);
    int injected = exchanges.split("\"injectedError\":6", -1).length - 1;
    control.stopRecording(rec);
    control.waitForHighWatermark("ctl-java", 0, offset + 1, 5000);
    int refused = 0;
    try {
      control.injectError("Produce", "NO_SUCH_ERROR", 1);
    } catch (SamsaControl.ControlException e) {
      refused = e.status;
    }
    control.reset();
    System.out.println("{\"offset\":" + offset + ",\"hits\":" + hits + ",\"injected\":" + injected + ",\"refused\":" + refused + "}");
  }
}
