// Load for the cluster fault tests (test/support/client-loads.ts): one idempotent kafka-clients
// producer (acks=all) per partition, each sending "<partition>:<seq>" in order with up to
// 5 requests in flight, bounded to 10 unacknowledged records per partition, paced at RATE records/s
// over all partitions (0: as fast as it goes). Every acknowledged
// record is printed as "A <partition> <seq>", every failed one as "F <partition> <seq> <error>";
// a line on stdin (or its end) stops the sends, the producers flush and close, then "DONE".
//
// Run as a single source file: java -cp <kafka jars> LoadProducer.java BOOTSTRAP TOPIC PARTITIONS [RATE]
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

public class LoadProducer {
  static synchronized void out(String line) {
    System.out.println(line);
    System.out.flush();
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String topic = args[1];
    int partitions = Integer.parseInt(args[2]);
    double rate = args.length > 3 ? Double.parseDouble(args[3]) : 0;
    // Nanoseconds between two sends to one partition.
    long intervalNs = rate > 0 ? (long) (1e9 * partitions / rate) : 0;
    AtomicBoolean stop = new AtomicBoolean(false);
    List<Thread> threads = new ArrayList<>();
    List<KafkaProducer<String, String>> producers = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      Properties props = new Properties();
      props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      props.put(ProducerConfig.ACKS_CONFIG, "all");
      props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
      props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
      props.put(ProducerConfig.LINGER_MS_CONFIG, "1");
      props.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "100");
      props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
      props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
      props.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, "5000");
      props.put(ProducerConfig.CLIENT_ID_CONFIG, topic + "-java-" + p);
      KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
      producers.add(producer);
      final int partition = p;
      Semaphore window = new Semaphore(10);
      Thread t = new Thread(() -> {
        long start = System.nanoTime();
        for (long seq = 0; !stop.get(); seq++) {
          try {
            long due = start + seq * intervalNs - System.nanoTime();
            if (due > 0) Thread.sleep(due / 1_000_000, (int) (due % 1_000_000));
            window.acquire();
          } catch (InterruptedException e) {
            return;
          }
          final long s = seq;
          producer.send(new ProducerRecord<>(topic, partition, null, partition + ":" + s), (md, err) -> {
            window.release();
            if (err == null) out("A " + partition + " " + s);
            else out("F " + partition + " " + s + " " + err.getClass().getSimpleName());
          });
        }
      });
      t.start();
      threads.add(t);
    }
    out("STARTED");
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    in.readLine();
    stop.set(true);
    for (Thread t : threads) t.join();
    for (KafkaProducer<String, String> producer : producers) producer.close();
    out("DONE");
  }
}
