// Transactions V2 with the Java client of Apache Kafka 4.4 (test/e2e/txn-v2-java.test.ts).
// Modes: fill <bootstrap> <topic> <n>; hang <bootstrap> <out> <txnId> (opens a transaction,
// prints "ready", waits to be killed); ctp <bootstrap> <in> <out> <group> <txnId> <n> (consume,
// transform, produce with sendOffsetsToTransaction; every third transaction aborted and redone);
// read <bootstrap> <topic> <n> (read_committed, prints the values as one JSON array).
import java.time.Duration;
import java.util.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.*;

public class TxnV2 {
  static Properties producerProps(String bootstrap, String txnId) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("client.id", txnId == null ? "v2-fill" : "v2-" + txnId);
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    if (txnId != null) { p.put("transactional.id", txnId); p.put("transaction.timeout.ms", "60000"); }
    return p;
  }

  static KafkaConsumer<String, String> consumer(String bootstrap, String group) {
    Properties c = new Properties();
    c.put("bootstrap.servers", bootstrap);
    c.put("client.id", "v2-consumer");
    if (group != null) c.put("group.id", group);
    c.put("enable.auto.commit", "false");
    c.put("max.poll.records", "7");
    c.put("auto.offset.reset", "earliest");
    c.put("isolation.level", "read_committed");
    c.put("key.deserializer", StringDeserializer.class.getName());
    c.put("value.deserializer", StringDeserializer.class.getName());
    return new KafkaConsumer<>(c);
  }

  public static void main(String[] a) throws Exception {
    String mode = a[0], bootstrap = a[1];
    switch (mode) {
      case "fill": {
        try (KafkaProducer<String, String> p = new KafkaProducer<>(producerProps(bootstrap, null))) {
          int n = Integer.parseInt(a[3]);
          for (int i = 0; i < n; i++) p.send(new ProducerRecord<>(a[2], i % 3, "k" + i, "v" + i)).get();
        }
        System.out.println("{\"filled\":true}");
        return;
      }
      case "hang": {
        KafkaProducer<String, String> p = new KafkaProducer<>(producerProps(bootstrap, a[3]));
        p.initTransactions();
        p.beginTransaction();
        for (int i = 0; i < 5; i++) p.send(new ProducerRecord<>(a[2], "zombie", "zombie" + i));
        p.flush();
        System.out.println("{\"ready\":true}");
        System.out.flush();
        Thread.sleep(600_000);
        return;
      }
      case "ctp": {
        String in = a[2], out = a[3], group = a[4], txnId = a[5];
        int n = Integer.parseInt(a[6]);
        int commits = 0, aborts = 0, txns = 0, done = 0;
        try (KafkaProducer<String, String> p = new KafkaProducer<>(producerProps(bootstrap, txnId));
             KafkaConsumer<String, String> c = consumer(bootstrap, group)) {
          p.initTransactions();
          c.subscribe(List.of(in));
          long deadline = System.currentTimeMillis() + 120_000;
          while (done < n && System.currentTimeMillis() < deadline) {
            ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(200));
            if (recs.isEmpty()) continue;
            p.beginTransaction();
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            int count = 0;
            for (ConsumerRecord<String, String> r : recs) {
              p.send(new ProducerRecord<>(out, r.key(), "out-" + r.value()));
              offsets.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
              count++;
            }
            p.sendOffsetsToTransaction(offsets, c.groupMetadata());
            txns++;
            if (txns % 3 == 0) {
              p.abortTransaction();
              aborts++;
              // Redo: back to the committed positions.
              Map<TopicPartition, OffsetAndMetadata> committed = c.committed(offsets.keySet());
              for (TopicPartition tp : offsets.keySet()) {
                OffsetAndMetadata om = committed.get(tp);
                c.seek(tp, om == null ? 0 : om.offset());
              }
            } else {
              p.commitTransaction();
              commits++;
              done += count;
            }
          }
        }
        System.out.println("{\"commits\":" + commits + ",\"aborts\":" + aborts + ",\"done\":" + done + "}");
        return;
      }
      case "read": {
        int n = Integer.parseInt(a[3]);
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> c = consumer(bootstrap, null)) {
          List<TopicPartition> tps = new ArrayList<>();
          for (var pi : c.partitionsFor(a[2])) tps.add(new TopicPartition(a[2], pi.partition()));
          c.assign(tps);
          c.seekToBeginning(tps);
          long deadline = System.currentTimeMillis() + 20_000;
          long quietUntil = Long.MAX_VALUE;
          while (System.currentTimeMillis() < deadline && System.currentTimeMillis() < quietUntil) {
            ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(200));
            for (ConsumerRecord<String, String> r : recs) values.add(r.value());
            if (values.size() >= n && quietUntil == Long.MAX_VALUE) quietUntil = System.currentTimeMillis() + 1500;
          }
        }
        StringBuilder sb = new StringBuilder("{\"values\":[");
        for (int i = 0; i < values.size(); i++) sb.append(i == 0 ? "" : ",").append('"').append(values.get(i)).append('"');
        System.out.println(sb.append("]}"));
        return;
      }
      default:
        throw new IllegalArgumentException(mode);
    }
  }
}
