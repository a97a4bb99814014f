import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The Java client (kafka-clients) agent of the compatibility suite: one JSON command per line on
 * stdin, {"id": n, "op": "...", "args": {...}}, one reply per line on stdout, {"id": n, "ok": ...}
 * or {"id": n, "fail": "stack trace"}. Kafka errors are answered as data (names from Errs), never
 * as a failure. Commands run one at a time on the main thread: the clients it holds (producers
 * kept under a handle, group members) are not thread-safe and need no more.
 */
public final class Agent {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Base64.Encoder B64E = Base64.getEncoder();
  private static final Base64.Decoder B64D = Base64.getDecoder();

  private static String bootstrap;
  private static Admin admin;
  private static final Map<String, KafkaProducer<byte[], byte[]>> producers = new HashMap<>();
  private static final Map<String, Member> members = new HashMap<>();

  private static final class Member {
    KafkaConsumer<byte[], byte[]> consumer;
    String topic;
    int assigns;
    final Deque<ConsumerRecord<byte[], byte[]>> pending = new ArrayDeque<>();
  }

  private Agent() {}

  public static void main(String[] argv) throws Exception {
    PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    System.setOut(System.err); // whatever a library prints must not corrupt the replies
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      if (line.isBlank()) continue;
      JsonNode req = JSON.readTree(line);
      ObjectNode reply = JSON.createObjectNode();
      reply.set("id", req.get("id"));
      try {
        reply.set("ok", dispatch(req.path("op").asText(), req.path("args")));
      } catch (Throwable e) {
        StringWriter w = new StringWriter();
        e.printStackTrace(new PrintWriter(w));
        reply.put("fail", w.toString());
      }
      out.println(JSON.writeValueAsString(reply));
    }
    shutdown();
    System.exit(0);
  }

  private static JsonNode dispatch(String op, JsonNode a) throws Exception {
    switch (op) {
      case "init": return init(a);
      case "produce": return produce(a);
      case "close_producer": return closeProducer(a);
      case "read": return read(a);
      case "create_topic": return createTopic(a);
      case "delete_topic": return deleteTopic(a);
      case "describe_topic": return describeTopic(a);
      case "describe_configs": return describeConfigs(a);
      case "alter_configs": return alterConfigs(a);
      case "list_offsets": return listOffsets(a);
      case "delete_records": return deleteRecords(a);
      case "group_open": return groupOpen(a);
      case "group_poll": return groupPoll(a);
      case "group_commit": return groupCommit(a);
      case "group_close": return groupClose(a);
      case "txn": return transactions(a);
      default: throw new IllegalArgumentException("unknown op " + op);
    }
  }

  private static JsonNode init(JsonNode a) throws java.io.IOException {
    bootstrap = a.get("bootstrap").asText();
    ObjectNode r = JSON.createObjectNode();
    // The version file kafka-clients ships (its AppInfoParser moved to an internal package in 4.x).
    Properties v = new Properties();
    try (java.io.InputStream s = KafkaProducer.class.getResourceAsStream("/kafka/kafka-version.properties")) {
      if (s != null) v.load(s);
    }
    r.put("version", v.getProperty("version", "unknown"));
    r.put("java", System.getProperty("java.version"));
    return r;
  }

  private static void shutdown() {
    for (Member m : members.values()) m.consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    for (KafkaProducer<byte[], byte[]> p : producers.values()) p.close(Duration.ofSeconds(5));
    if (admin != null) admin.close(Duration.ofSeconds(5));
  }

  // ---------------------------------------------------------------------------------------------
  // helpers

  private static String str(JsonNode n, String field) {
    JsonNode v = n.get(field);
    return v == null || v.isNull() ? null : v.asText();
  }

  private static byte[] bytes(JsonNode n) {
    return n == null || n.isNull() ? null : B64D.decode(n.asText());
  }

  private static String b64(byte[] b) {
    return b == null ? null : B64E.encodeToString(b);
  }

  private static ObjectNode error(String name) {
    ObjectNode r = JSON.createObjectNode();
    r.put("error", name);
    return r;
  }

  /** Settings from the driver (strings, Kafka's names) over the agent's defaults. */
  private static Properties props(Map<String, String> defaults, JsonNode config) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.putAll(defaults);
    if (config != null) config.properties().forEach(e -> p.put(e.getKey(), e.getValue().asText()));
    return p;
  }

  private static ObjectNode record(ConsumerRecord<byte[], byte[]> r) {
    ObjectNode o = JSON.createObjectNode();
    o.put("partition", r.partition());
    o.put("offset", r.offset());
    o.put("timestamp", r.timestamp());
    if (r.timestampType() == TimestampType.NO_TIMESTAMP_TYPE) o.putNull("tstype");
    else o.put("tstype", r.timestampType().name);
    o.put("key", b64(r.key()));
    o.put("value", b64(r.value()));
    ArrayNode hs = o.putArray("headers");
    for (Header h : r.headers()) hs.addArray().add(h.key()).add(b64(h.value()));
    return o;
  }

  // ---------------------------------------------------------------------------------------------
  // producing

  private static KafkaProducer<byte[], byte[]> producer(JsonNode config, Map<String, String> extra) {
    Map<String, String> d = new HashMap<>(Map.of(
        "key.serializer", ByteArraySerializer.class.getName(),
        "value.serializer", ByteArraySerializer.class.getName(),
        "linger.ms", "5",
        "request.timeout.ms", "10000",
        "delivery.timeout.ms", "30000",
        "max.block.ms", "20000"));
    d.putAll(extra);
    return new KafkaProducer<>(props(d, config));
  }

  /** Sends the records, waits for every acknowledgement, and reports each one in send order. */
  private static ObjectNode send(KafkaProducer<byte[], byte[]> p, String topic, JsonNode records, long timeoutMs) {
    List<Future<RecordMetadata>> acks = new ArrayList<>();
    for (JsonNode r : records) {
      List<Header> headers = new ArrayList<>();
      for (JsonNode h : r.path("headers")) headers.add(new RecordHeader(h.get(0).asText(), bytes(h.get(1))));
      Integer partition = r.hasNonNull("partition") ? r.get("partition").asInt() : null;
      Long timestamp = r.hasNonNull("timestamp") ? r.get("timestamp").asLong() : null;
      try {
        acks.add(p.send(new ProducerRecord<>(topic, partition, timestamp, bytes(r.get("key")), bytes(r.get("value")), headers)));
      } catch (KafkaException e) {
        acks.add(CompletableFuture.failedFuture(e));
      }
    }
    p.flush();
    long deadline = System.currentTimeMillis() + timeoutMs;
    ObjectNode out = JSON.createObjectNode();
    ArrayNode list = out.putArray("acks");
    for (Future<RecordMetadata> f : acks) {
      ObjectNode ack = list.addObject();
      try {
        RecordMetadata md = f.get(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
        ack.put("partition", md.partition());
        if (md.hasOffset()) ack.put("offset", md.offset());
        ack.putNull("error");
      } catch (ExecutionException e) {
        ack.put("error", Errs.name(e.getCause()));
      } catch (java.util.concurrent.TimeoutException e) {
        ack.put("error", "client:no acknowledgement within " + timeoutMs + " ms");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        ack.put("error", "client:interrupted");
      }
    }
    return out;
  }

  private static JsonNode produce(JsonNode a) {
    String handle = str(a, "handle");
    KafkaProducer<byte[], byte[]> p = handle == null ? null : producers.get(handle);
    boolean owned = false;
    if (p == null) {
      p = producer(a.get("config"), Map.of());
      if (handle != null) producers.put(handle, p);
      else owned = true;
    }
    try {
      return send(p, a.get("topic").asText(), a.get("records"), a.path("timeoutMs").asLong(30_000));
    } finally {
      if (owned) p.close(Duration.ofSeconds(5));
    }
  }

  private static JsonNode closeProducer(JsonNode a) {
    KafkaProducer<byte[], byte[]> p = producers.remove(a.get("handle").asText());
    if (p != null) p.close(Duration.ofSeconds(10));
    return JSON.createObjectNode();
  }

  private static JsonNode transactions(JsonNode a) {
    ObjectNode out = JSON.createObjectNode();
    ArrayNode results = out.putArray("batches");
    KafkaProducer<byte[], byte[]> p = producer(a.get("config"), Map.of("transactional.id", a.get("transactionalId").asText(), "enable.idempotence", "true", "acks", "all"));
    try {
      p.initTransactions();
      for (JsonNode b : a.get("batches")) {
        p.beginTransaction();
        // send() flushes, so the aborted batch is on the broker too: abort must leave it in the log.
        results.add(send(p, a.get("topic").asText(), b.get("records"), 20_000));
        if (b.get("commit").asBoolean()) p.commitTransaction();
        else p.abortTransaction();
      }
      out.putNull("error");
    } catch (KafkaException e) {
      out.put("error", Errs.name(e));
    } finally {
      p.close(Duration.ofSeconds(5));
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // consuming without a group (assign + seek)

  private static JsonNode read(JsonNode a) {
    Properties props = props(Map.of(
        "key.deserializer", ByteArrayDeserializer.class.getName(),
        "value.deserializer", ByteArrayDeserializer.class.getName(),
        "enable.auto.commit", "false",
        "fetch.max.wait.ms", "100",
        "request.timeout.ms", "10000"), a.get("config"));
    String topic = a.get("topic").asText();
    List<TopicPartition> tps = new ArrayList<>();
    for (JsonNode p : a.get("partitions")) tps.add(new TopicPartition(topic, p.asInt()));
    int count = a.get("count").asInt();
    boolean stopOnError = a.path("stopOnError").asBoolean(false);
    long deadline = System.currentTimeMillis() + a.path("timeoutMs").asLong(15_000);
    ObjectNode out = JSON.createObjectNode();
    ArrayNode records = out.putArray("records");
    ArrayNode errors = out.putArray("errors");
    KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props);
    try {
      c.assign(tps);
      JsonNode from = a.get("from");
      if (from.isNumber()) for (TopicPartition tp : tps) c.seek(tp, from.asLong());
      else if (from.asText().equals("latest")) c.seekToEnd(tps);
      else c.seekToBeginning(tps);
      while (records.size() < count) {
        long left = deadline - System.currentTimeMillis();
        if (left <= 0) break;
        try {
          for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(Math.min(200, left)))) {
            if (records.size() < count) records.add(record(r));
          }
        } catch (KafkaException e) {
          errors.add(Errs.name(e));
          if (stopOnError || errors.size() >= 20) break;
          sleep(100);
        }
      }
    } finally {
      c.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }
    return out;
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // administration (Admin)

  private static Admin admin() {
    if (admin == null) {
      Properties p = new Properties();
      p.put("bootstrap.servers", bootstrap);
      p.put("request.timeout.ms", "15000");
      p.put("default.api.timeout.ms", "25000");
      admin = Admin.create(p);
    }
    return admin;
  }

  private static final long ADMIN_WAIT_S = 30;

  private static JsonNode createTopic(JsonNode a) throws InterruptedException {
    NewTopic t = new NewTopic(a.get("name").asText(), Optional.of(a.path("partitions").asInt(1)), Optional.empty());
    Map<String, String> configs = new HashMap<>();
    a.path("configs").properties().forEach(e -> configs.put(e.getKey(), e.getValue().asText()));
    t.configs(configs);
    try {
      admin().createTopics(List.of(t)).all().get(ADMIN_WAIT_S, TimeUnit.SECONDS);
      return error(null);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      return error(Errs.name(e));
    }
  }

  private static JsonNode deleteTopic(JsonNode a) throws InterruptedException {
    try {
      admin().deleteTopics(List.of(a.get("name").asText())).all().get(ADMIN_WAIT_S, TimeUnit.SECONDS);
      return error(null);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      return error(Errs.name(e));
    }
  }

  private static JsonNode describeTopic(JsonNode a) throws InterruptedException {
    String name = a.get("name").asText();
    try {
      ObjectNode r = error(null);
      r.put("partitions", admin().describeTopics(List.of(name)).allTopicNames().get(ADMIN_WAIT_S, TimeUnit.SECONDS).get(name).partitions().size());
      return r;
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      return error(Errs.name(e));
    }
  }

  private static JsonNode describeConfigs(JsonNode a) throws InterruptedException {
    ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, a.get("topic").asText());
    try {
      Config config = admin().describeConfigs(List.of(res)).all().get(ADMIN_WAIT_S, TimeUnit.SECONDS).get(res);
      ObjectNode r = error(null);
      ObjectNode configs = r.putObject("configs");
      for (ConfigEntry e : config.entries()) configs.put(e.name(), e.value());
      return r;
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      return error(Errs.name(e));
    }
  }

  private static JsonNode alterConfigs(JsonNode a) throws InterruptedException {
    ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, a.get("topic").asText());
    Collection<AlterConfigOp> ops = new ArrayList<>();
    a.get("set").properties().forEach(e -> ops.add(new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue().asText()), AlterConfigOp.OpType.SET)));
    try {
      admin().incrementalAlterConfigs(Map.of(res, ops)).all().get(ADMIN_WAIT_S, TimeUnit.SECONDS);
      return error(null);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      return error(Errs.name(e));
    }
  }

  private static long offsetFor(TopicPartition tp, OffsetSpec spec) throws Exception {
    return admin().listOffsets(Map.of(tp, spec)).partitionResult(tp).get(ADMIN_WAIT_S, TimeUnit.SECONDS).offset();
  }

  /** earliest and latest must answer (a failure fails the call); per timestamp an offset or an error name. */
  private static JsonNode listOffsets(JsonNode a) throws Exception {
    TopicPartition tp = new TopicPartition(a.get("topic").asText(), a.get("partition").asInt());
    ObjectNode r = JSON.createObjectNode();
    r.put("earliest", offsetFor(tp, OffsetSpec.earliest()));
    r.put("latest", offsetFor(tp, OffsetSpec.latest()));
    ObjectNode byTime = r.putObject("byTime");
    for (JsonNode ts : a.get("timestamps")) {
      try {
        byTime.put(ts.asText(), offsetFor(tp, OffsetSpec.forTimestamp(ts.asLong())));
      } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
        byTime.put(ts.asText(), Errs.name(e));
      }
    }
    return r;
  }

  private static JsonNode deleteRecords(JsonNode a) throws InterruptedException {
    TopicPartition tp = new TopicPartition(a.get("topic").asText(), a.get("partition").asInt());
    try {
      long low = admin().deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(a.get("before").asLong()))).lowWatermarks().get(tp).get(ADMIN_WAIT_S, TimeUnit.SECONDS).lowWatermark();
      ObjectNode r = error(null);
      r.put("lowWatermark", low);
      return r;
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      return error(Errs.name(e));
    }
  }

  // ---------------------------------------------------------------------------------------------
  // consumer groups (subscribe, classic protocol)

  private static Member member(JsonNode a) {
    Member m = members.get(a.get("handle").asText());
    if (m == null) throw new IllegalArgumentException("no group member " + a.get("handle").asText());
    return m;
  }

  private static JsonNode groupOpen(JsonNode a) {
    Map<String, String> d = new HashMap<>(Map.of(
        "key.deserializer", ByteArrayDeserializer.class.getName(),
        "value.deserializer", ByteArrayDeserializer.class.getName(),
        "group.id", a.get("group").asText(),
        "group.protocol", "classic",
        "enable.auto.commit", "false",
        "auto.offset.reset", "earliest",
        "session.timeout.ms", a.path("sessionTimeoutMs").asText("6000"),
        "heartbeat.interval.ms", "500",
        "fetch.max.wait.ms", "100"));
    String instance = str(a, "instanceId");
    if (instance != null) d.put("group.instance.id", instance);
    Member m = new Member();
    m.topic = a.get("topic").asText();
    m.consumer = new KafkaConsumer<>(props(d, a.get("config")));
    // Called once per completed rebalance (eager or cooperative), inside poll.
    m.consumer.subscribe(List.of(m.topic), new ConsumerRebalanceListener() {
      @Override public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}
      @Override public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        m.assigns++;
      }
    });
    members.put(a.get("handle").asText(), m);
    return JSON.createObjectNode();
  }

  private static JsonNode groupPoll(JsonNode a) {
    Member m = member(a);
    int max = a.path("max").asInt(1000);
    long deadline = System.currentTimeMillis() + a.path("timeoutMs").asLong(1000);
    ObjectNode out = JSON.createObjectNode();
    ArrayNode records = out.putArray("records");
    ArrayNode errors = out.putArray("errors");
    for (;;) {
      while (records.size() < max && !m.pending.isEmpty()) records.add(record(m.pending.poll()));
      long left = deadline - System.currentTimeMillis();
      if (records.size() >= max || left <= 0) break;
      try {
        for (ConsumerRecord<byte[], byte[]> r : m.consumer.poll(Duration.ofMillis(Math.min(100, left)))) m.pending.add(r);
      } catch (KafkaException e) {
        errors.add(Errs.name(e));
        sleep(50);
      }
    }
    ArrayNode assignment = out.putArray("assignment");
    m.consumer.assignment().stream().filter(tp -> tp.topic().equals(m.topic)).map(TopicPartition::partition).sorted().forEach(assignment::add);
    out.put("assigns", m.assigns);
    return out;
  }

  private static JsonNode groupCommit(JsonNode a) {
    try {
      member(a).consumer.commitSync(Duration.ofSeconds(15));
      return error(null);
    } catch (KafkaException e) {
      return error(Errs.name(e));
    }
  }

  private static JsonNode groupClose(JsonNode a) {
    Member m = members.remove(a.get("handle").asText());
    // A dynamic member sends LeaveGroup; a static one (group.instance.id) does not.
    if (m != null) m.consumer.close(CloseOptions.timeout(Duration.ofSeconds(10)));
    return JSON.createObjectNode();
  }
}
