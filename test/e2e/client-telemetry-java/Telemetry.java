// Client telemetry (KIP-714) seen from the Java client of Apache Kafka 4.4: a producer and a
// consumer with enable.metrics.push at its default (true) write and read a topic, then ask for
// their client instance id. Prints one JSON line per step; the test runs it against Samsa and a
// real Kafka 4.4 and compares.
//
//   java Telemetry.java BOOTSTRAP TOPIC COUNT
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class Telemetry {
  static String instanceId(java.util.function.Supplier<Object> f) {
    try {
      Object id = f.get();
      return id == null ? "null" : "\"id\"";
    } catch (RuntimeException e) {
      return "\"" + e.getClass().getSimpleName() + "\"";
    }
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String topic = args[1];
    int count = Integer.parseInt(args[2]);

    Properties a = new Properties();
    a.put("bootstrap.servers", bootstrap);
    a.put("client.id", "telemetry-admin");
    try (Admin admin = Admin.create(a)) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
      System.out.println("{\"created\":\"" + topic + "\"}");
      System.out.println("{\"adminInstanceId\":" + instanceId(() -> admin.clientInstanceId(Duration.ofSeconds(5))) + "}");
    }

    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("client.id", "telemetry-producer");
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    p.put("acks", "all");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      for (int i = 0; i < count; i++) producer.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i)).get();
      System.out.println("{\"produced\":" + count + "}");
      System.out.println("{\"producerInstanceId\":" + instanceId(() -> producer.clientInstanceId(Duration.ofSeconds(5))) + "}");
    }

    Properties c = new Properties();
    c.put("bootstrap.servers", bootstrap);
    c.put("client.id", "telemetry-consumer");
    c.put("group.id", "telemetry-group");
    c.put("key.deserializer", StringDeserializer.class.getName());
    c.put("value.deserializer", StringDeserializer.class.getName());
    c.put("auto.offset.reset", "earliest");
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
      consumer.subscribe(List.of(topic));
      List<String> values = new ArrayList<>();
      long deadline = System.currentTimeMillis() + 60_000;
      while (values.size() < count && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) values.add(r.value());
      }
      consumer.commitSync();
      System.out.println("{\"consumed\":" + values.size() + ",\"last\":\"" + (values.isEmpty() ? "" : values.get(values.size() - 1)) + "\"}");
      System.out.println("{\"consumerInstanceId\":" + instanceId(() -> consumer.clientInstanceId(Duration.ofSeconds(5))) + "}");
    }
  }
}
