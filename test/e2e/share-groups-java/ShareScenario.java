// The Java client (Apache Kafka 4.4) in share groups (KIP-932): KafkaShareConsumer scenarios
// driven by test/e2e/share-groups-scenarios.ts, run with the single-file source launcher
// (java -cp <kafka jars> ShareScenario.java MODES BOOTSTRAP), MODES a comma-separated list run
// at the same time in this JVM, one thread each (their topics and groups are their own): the
// JVM's start and the compilation are paid once and the run takes as long as the slowest mode.
// Each mode prints JSON lines tagged with "mode".
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class ShareScenario {
    static String bs;
    static Admin admin;

    /** What one delivery looked like: value, delivery count, when. */
    record Seen(String value, long offset, int deliveryCount, long atMs) {}

    /**
     * A KafkaShareConsumer in explicit mode on a thread of its own. Per record: note it, sleep
     * `pauseMs`, acknowledge with decide(value, delivery count); commitAsync after each poll.
     */
    static final class Worker {
        final KafkaShareConsumer<String, String> consumer;
        final List<Seen> seen = Collections.synchronizedList(new ArrayList<>());
        final List<String> accepted = Collections.synchronizedList(new ArrayList<>());
        final Thread thread;
        volatile boolean running = true;

        Worker(String name, String group, String topic, long pauseMs, BiFunction<String, Integer, AcknowledgeType> decide) {
            consumer = new KafkaShareConsumer<>(shareProps(name, group));
            thread = new Thread(() -> {
                consumer.subscribe(List.of(topic));
                while (running) {
                    ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
                    for (ConsumerRecord<String, String> r : records) {
                        int n = r.deliveryCount().map(Short::intValue).orElse(-1);
                        seen.add(new Seen(r.value(), r.offset(), n, System.currentTimeMillis()));
                        if (pauseMs > 0) sleep(pauseMs);
                        AcknowledgeType how = decide.apply(r.value(), n);
                        consumer.acknowledge(r, how);
                        if (how == AcknowledgeType.ACCEPT) accepted.add(r.value());
                    }
                    if (!records.isEmpty()) consumer.commitAsync();
                }
                consumer.close();
            }, name);
            thread.start();
        }

        Worker(String name, String group, String topic, long pauseMs) {
            this(name, group, topic, pauseMs, (v, n) -> AcknowledgeType.ACCEPT);
        }

        Set<String> acceptedSet() {
            synchronized (accepted) { return new HashSet<>(accepted); }
        }

        List<Integer> deliveriesOf(String value) {
            synchronized (seen) { return seen.stream().filter(s -> s.value.equals(value)).map(Seen::deliveryCount).collect(Collectors.toList()); }
        }

        void stop() throws InterruptedException {
            running = false;
            thread.join(30_000);
        }
    }

    static Properties shareProps(String name, String group) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bs);
        p.put("group.id", group);
        p.put("client.id", name);
        p.put("share.acknowledgement.mode", "explicit");
        p.put("max.poll.records", "10");
        p.put("key.deserializer", StringDeserializer.class.getName());
        p.put("value.deserializer", StringDeserializer.class.getName());
        return p;
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void waitUntil(String what, long timeoutMs, BooleanSupplier cond) throws InterruptedException {
        long end = System.currentTimeMillis() + timeoutMs;
        while (System.currentTimeMillis() < end) {
            if (cond.getAsBoolean()) return;
            Thread.sleep(50);
        }
        throw new IllegalStateException("timed out: " + what);
    }

    /** Polls on for a while (whatever would still be redelivered shows up), then stops the workers. */
    static void settle(long ms, Worker... ws) throws InterruptedException {
        Thread.sleep(ms);
        for (Worker w : ws) w.stop();
    }

    static void create(String topic, Map<String, String> configs) throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(configs))).all().get(15, TimeUnit.SECONDS);
    }

    static void groupConfig(String group, Map<String, String> configs) throws Exception {
        List<AlterConfigOp> ops = configs.entrySet().stream().map(e -> new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue()), AlterConfigOp.OpType.SET)).collect(Collectors.toList());
        admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), ops)).all().get(15, TimeUnit.SECONDS);
    }

    /** Produces in batches of `batch` records (a share fetch acquires whole batches; small ones spread the work). */
    static void produce(String topic, List<String> values, int batch) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bs);
        p.put("linger.ms", "0");
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        try (KafkaProducer<String, String> prod = new KafkaProducer<>(p)) {
            for (int i = 0; i < values.size(); i += batch) {
                for (String v : values.subList(i, Math.min(values.size(), i + batch))) prod.send(new ProducerRecord<>(topic, 0, null, v));
                prod.flush();
            }
        }
    }

    static List<String> values(int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add("r" + i);
        return out;
    }

    static String json(Object o) {
        if (o == null) return "null";
        if (o instanceof String s) return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
        if (o instanceof Map<?, ?> m) return m.entrySet().stream().map(e -> json(String.valueOf(e.getKey())) + ":" + json(e.getValue())).collect(Collectors.joining(",", "{", "}"));
        if (o instanceof Collection<?> c) return c.stream().map(ShareScenario::json).collect(Collectors.joining(",", "[", "]"));
        return String.valueOf(o);
    }

    static final ThreadLocal<String> mode = new ThreadLocal<>();

    static void out(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("mode", mode.get());
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        System.out.println(json(m));
        System.out.flush();
    }

    public static void main(String[] args) throws Exception {
        bs = args[1];
        if (args[0].equals("victim")) {
            victim(args[2], args[3]);
            return;
        }
        String[] modes = args[0].split(",");
        ExecutorService pool = Executors.newFixedThreadPool(modes.length);
        List<Future<Boolean>> runs = new ArrayList<>();
        try (Admin a = Admin.create(Map.of("bootstrap.servers", bs))) {
            admin = a;
            for (String m : modes) runs.add(pool.submit(() -> {
                mode.set(m);
                try {
                    run(m);
                    return true;
                } catch (Throwable t) {
                    System.err.println("mode " + m + " failed:");
                    t.printStackTrace();
                    StringBuilder why = new StringBuilder(String.valueOf(t));
                    for (Throwable c = t.getCause(); c != null; c = c.getCause()) why.append(" / ").append(c);
                    out("error", why.toString());
                    return false;
                }
            }));
            int failed = 0;
            for (Future<Boolean> f : runs) if (!f.get()) failed++;
            System.out.flush();
            System.exit(failed == 0 ? 0 : 1);
        }
    }

    static void run(String m) throws Exception {
        switch (m) {
            case "three" -> three();
            case "kill" -> kill();
            case "freeze" -> freeze();
            case "release" -> release();
            case "late" -> late();
            case "limit" -> recordLimit();
            case "poison" -> poison("sg-j-poison", null);
            case "dlq" -> poison("sg-j-dlq", "dlq.sg-j-dlq");
            case "side" -> side();
            default -> throw new IllegalArgumentException(m);
        }
    }

    static void three() throws Exception {
        create("sg-j-three", Map.of());
        groupConfig("sg-j-three-g", Map.of("share.auto.offset.reset", "earliest"));
        produce("sg-j-three", values(300), 10);
        long t0 = System.currentTimeMillis();
        List<Worker> ws = new ArrayList<>();
        for (int i = 0; i < 3; i++) ws.add(new Worker("w" + i, "sg-j-three-g", "sg-j-three", 10));
        waitUntil("all 300 accepted", 60_000, () -> ws.stream().flatMap(w -> w.acceptedSet().stream()).distinct().count() == 300);
        double seconds = (System.currentTimeMillis() - t0) / 1000.0;
        settle(500, ws.toArray(new Worker[0]));
        out("accepted", ws.stream().map(w -> new ArrayList<>(w.accepted)).collect(Collectors.toList()),
            "counts", ws.stream().map(w -> w.seen.stream().map(Seen::deliveryCount).distinct().sorted().collect(Collectors.toList())).collect(Collectors.toList()),
            "seconds", seconds);
    }

    static void victim(String group, String topic) throws Exception {
        KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(shareProps("victim", group));
        c.subscribe(List.of(topic));
        for (;;) {
            ConsumerRecords<String, String> rs = c.poll(Duration.ofMillis(500));
            if (rs.isEmpty()) continue;
            List<String> held = new ArrayList<>();
            for (ConsumerRecord<String, String> r : rs) held.add(r.value());
            System.out.println(json(held));
            System.out.flush();
            Thread.sleep(600_000);
        }
    }

    static void kill() throws Exception {
        create("sg-j-kill", Map.of());
        groupConfig("sg-j-kill-g", Map.of("share.auto.offset.reset", "earliest", "share.record.lock.duration.ms", "15000"));
        produce("sg-j-kill", values(100), 10);
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path")));
        cmd.addAll(List.of(System.getProperty("scenario.main"), "victim", bs, "sg-j-kill-g", "sg-j-kill"));
        Process victim = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        java.io.BufferedReader r = new java.io.BufferedReader(new java.io.InputStreamReader(victim.getInputStream()));
        String line = r.readLine();
        long acquiredAt = System.currentTimeMillis();
        if (line == null) throw new IllegalStateException("the victim ended without records");
        List<String> held = Arrays.stream(line.replaceAll("[\\[\\]\"]", "").split(",")).collect(Collectors.toList());
        victim.destroyForcibly();
        victim.waitFor();
        redelivered("sg-j-kill", held, acquiredAt);
    }

    /** Two workers read everything; what `held` had comes back to them. */
    static void redelivered(String topic, List<String> held, long acquiredAt) throws Exception {
        Worker[] ws = { new Worker("w0", topic + "-g", topic, 5), new Worker("w1", topic + "-g", topic, 5) };
        waitUntil("all 100 accepted by the others", 60_000, () -> Arrays.stream(ws).flatMap(w -> w.acceptedSet().stream()).distinct().count() == 100);
        settle(500, ws);
        List<List<Object>> again = new ArrayList<>();
        long first = Long.MAX_VALUE;
        for (Worker w : ws) for (Seen s : w.seen) if (held.contains(s.value)) {
            again.add(List.of(s.value, s.offset, s.deliveryCount));
            first = Math.min(first, s.atMs);
        }
        out("held", held, "accepted", Arrays.stream(ws).map(w -> new ArrayList<>(w.accepted)).collect(Collectors.toList()),
            "again", again, "afterSeconds", again.isEmpty() ? null : (first - acquiredAt) / 1000.0);
    }

    /** A consumer polls once and then never again (its connection and heartbeats go on): its records wait for the lock to expire. */
    static void freeze() throws Exception {
        create("sg-j-freeze", Map.of());
        groupConfig("sg-j-freeze-g", Map.of("share.auto.offset.reset", "earliest", "share.record.lock.duration.ms", "3000"));
        produce("sg-j-freeze", values(100), 10);
        CompletableFuture<List<String>> polled = new CompletableFuture<>();
        CountDownLatch done = new CountDownLatch(1);
        Thread frozen = new Thread(() -> {
            try (KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(shareProps("frozen", "sg-j-freeze-g"))) {
                c.subscribe(List.of("sg-j-freeze"));
                List<String> held = new ArrayList<>();
                while (held.isEmpty()) for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(500))) held.add(r.value());
                polled.complete(held);
                done.await();
            } catch (Throwable t) {
                polled.completeExceptionally(t);
            }
        }, "frozen");
        frozen.start();
        List<String> held = polled.get(30, TimeUnit.SECONDS);
        long acquiredAt = System.currentTimeMillis();
        try {
            redelivered("sg-j-freeze", held, acquiredAt);
        } finally {
            done.countDown();
            frozen.join(30_000);
        }
    }

    static void release() throws Exception {
        create("sg-j-release", Map.of());
        groupConfig("sg-j-release-g", Map.of("share.auto.offset.reset", "earliest"));
        produce("sg-j-release", values(20), 10);
        Set<String> released = new HashSet<>(values(5));
        Worker w = new Worker("w", "sg-j-release-g", "sg-j-release", 0, (v, n) -> released.contains(v) && n == 1 ? AcknowledgeType.RELEASE : AcknowledgeType.ACCEPT);
        waitUntil("all 20 accepted", 30_000, () -> w.acceptedSet().size() == 20);
        settle(500, w);
        Map<String, Object> deliveries = new TreeMap<>();
        for (String v : values(20)) deliveries.put(v, w.deliveriesOf(v));
        out("deliveries", deliveries, "accepted", new ArrayList<>(w.accepted));
    }

    static void late() throws Exception {
        out("whileHeld", late("sg-j-late-held", false), "afterAccepted", late("sg-j-late-done", true));
    }

    /**
     * "slow" acquires 3 records, its 2 s locks expire, "other" has them (and accepts them first or
     * not); then "slow" accepts them: what its commitSync answers.
     */
    static Map<String, Object> late(String topic, boolean otherAcceptsFirst) throws Exception {
        String group = topic + "-g";
        create(topic, Map.of());
        groupConfig(group, Map.of("share.auto.offset.reset", "earliest", "share.record.lock.duration.ms", "2000"));
        produce(topic, values(3), 10);
        try (KafkaShareConsumer<String, String> a = new KafkaShareConsumer<>(shareProps("slow", group));
             KafkaShareConsumer<String, String> b = new KafkaShareConsumer<>(shareProps("other", group))) {
            a.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> held = new ArrayList<>();
            long end = System.currentTimeMillis() + 20_000;
            while (held.isEmpty() && System.currentTimeMillis() < end) for (ConsumerRecord<String, String> r : a.poll(Duration.ofMillis(300))) held.add(r);
            b.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> other = new ArrayList<>();
            while (other.size() < held.size() && System.currentTimeMillis() < end) for (ConsumerRecord<String, String> r : b.poll(Duration.ofMillis(200))) other.add(r);
            if (otherAcceptsFirst) {
                for (ConsumerRecord<String, String> r : other) b.acknowledge(r, AcknowledgeType.ACCEPT);
                b.commitSync();
            }
            for (ConsumerRecord<String, String> r : held) a.acknowledge(r, AcknowledgeType.ACCEPT);
            List<String> late = new ArrayList<>();
            for (Optional<KafkaException> e : a.commitSync().values()) late.add(e.map(x -> x.getClass().getSimpleName()).orElse("none"));
            if (!otherAcceptsFirst) {
                for (ConsumerRecord<String, String> r : other) b.acknowledge(r, AcknowledgeType.ACCEPT);
                b.commitSync();
            }
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("held", held.size());
            o.put("otherCounts", other.stream().map(r -> r.deliveryCount().map(Short::intValue).orElse(-1)).collect(Collectors.toList()));
            o.put("late", late);
            return o;
        }
    }

    /**
     * share.acquire.mode=record_limit (ShareFetch v2, KIP-1206) with max.poll.records=5 on one
     * 50-record batch: a fetch acquires five records, the rest of the batch stays for others.
     */
    static void recordLimit() throws Exception {
        create("sg-j-limit", Map.of());
        groupConfig("sg-j-limit-g", Map.of("share.auto.offset.reset", "earliest"));
        produce("sg-j-limit", values(50), 50);
        Properties p = shareProps("x", "sg-j-limit-g");
        p.put("max.poll.records", "5");
        p.put("share.acquire.mode", "record_limit");
        try (KafkaShareConsumer<String, String> x = new KafkaShareConsumer<>(p); KafkaShareConsumer<String, String> y = new KafkaShareConsumer<>(p)) {
            x.subscribe(List.of("sg-j-limit"));
            List<Long> first = new ArrayList<>();
            long end = System.currentTimeMillis() + 20_000;
            while (first.isEmpty() && System.currentTimeMillis() < end) for (ConsumerRecord<String, String> r : x.poll(Duration.ofMillis(300))) first.add(r.offset());
            y.subscribe(List.of("sg-j-limit"));
            List<Long> other = new ArrayList<>();
            while (other.isEmpty() && System.currentTimeMillis() < end) for (ConsumerRecord<String, String> r : y.poll(Duration.ofMillis(300))) other.add(r.offset());
            out("first", first, "other", other);
        }
    }

    /** r3 is released every time it comes, r6 rejected; share.delivery.count.limit=2. */
    static void poison(String topic, String dlqTopic) throws Exception {
        String group = topic + "-g";
        create(topic, Map.of());
        groupConfig(group, Map.of("share.auto.offset.reset", "earliest", "share.delivery.count.limit", "2"));
        if (dlqTopic != null) {
            create(dlqTopic, Map.of("errors.deadletterqueue.group.enable", "true"));
            groupConfig(group, Map.of("errors.deadletterqueue.topic.name", dlqTopic, "errors.deadletterqueue.copy.record.enable", "true"));
        }
        produce(topic, values(10), 1);
        Worker w = new Worker("w", group, topic, 0, (v, n) -> v.equals("r3") ? AcknowledgeType.RELEASE : v.equals("r6") ? AcknowledgeType.REJECT : AcknowledgeType.ACCEPT);
        waitUntil("the others accepted, the poison record seen twice", 30_000, () -> w.acceptedSet().size() == 8 && w.deliveriesOf("r3").equals(List.of(1, 2)));
        // A released record is offered again before newer ones: once the next record is read, the
        // poison record would have come back had it not been archived.
        produce(topic, List.of("after"), 1);
        waitUntil("the record after", 30_000, () -> w.acceptedSet().contains("after"));
        settle(500, w);
        out("poison", w.deliveriesOf("r3"), "rejected", w.deliveriesOf("r6"), "accepted", new ArrayList<>(w.accepted));
        if (dlqTopic == null) return;
        Properties p = new Properties();
        p.put("bootstrap.servers", bs);
        p.put("group.id", topic + "-reader");
        p.put("enable.auto.commit", "false");
        p.put("auto.offset.reset", "earliest");
        p.put("key.deserializer", StringDeserializer.class.getName());
        p.put("value.deserializer", StringDeserializer.class.getName());
        List<Map<String, Object>> dead = new ArrayList<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
            c.assign(List.of(new TopicPartition(dlqTopic, 0)));
            c.seekToBeginning(List.of(new TopicPartition(dlqTopic, 0)));
            long end = System.currentTimeMillis() + 20_000;
            long quietUntil = Long.MAX_VALUE;
            while (System.currentTimeMillis() < Math.min(end, quietUntil)) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    Map<String, Object> headers = new TreeMap<>();
                    for (Header h : r.headers()) headers.put(h.key(), h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8));
                    Map<String, Object> d = new LinkedHashMap<>();
                    d.put("value", r.value());
                    d.put("headers", headers);
                    dead.add(d);
                }
                if (dead.size() >= 2 && quietUntil == Long.MAX_VALUE) quietUntil = System.currentTimeMillis() + 1000;
            }
        }
        out("dead", dead);
    }

    /** A classic KafkaConsumer group and a KafkaShareConsumer read the same topic at the same time. */
    static void side() throws Exception {
        create("sg-j-side", Map.of());
        groupConfig("sg-j-side-share", Map.of("share.auto.offset.reset", "earliest"));
        produce("sg-j-side", values(60), 10);
        Properties p = new Properties();
        p.put("bootstrap.servers", bs);
        p.put("group.id", "sg-j-side-classic");
        p.put("group.protocol", "classic");
        p.put("auto.offset.reset", "earliest");
        p.put("key.deserializer", StringDeserializer.class.getName());
        p.put("value.deserializer", StringDeserializer.class.getName());
        List<String> classic = Collections.synchronizedList(new ArrayList<>());
        Worker share = new Worker("share", "sg-j-side-share", "sg-j-side", 0);
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
            c.subscribe(List.of("sg-j-side"));
            long end = System.currentTimeMillis() + 30_000;
            while (System.currentTimeMillis() < end && (classic.size() < 60 || share.acceptedSet().size() < 60)) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) classic.add(r.value());
            }
        }
        settle(500, share);
        out("classic", classic, "shared", new ArrayList<>(share.accepted));
    }
}
