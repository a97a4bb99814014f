// The Java client (Apache Kafka 4.4) with group.protocol=consumer: scenarios driven by
// test/e2e/consumer-protocol-java.test.ts, run with the single-file source launcher
// (java -cp <kafka jars> Scenario.java MODE BOOTSTRAP). Each prints one JSON object per line.
import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class Scenario {
    static String bs;

    /** One consumer on a thread of its own; what its rebalance listener saw is kept. */
    static final class Member implements ConsumerRebalanceListener {
        final String name;
        final KafkaConsumer<String, String> consumer;
        final Set<TopicPartition> assigned = ConcurrentHashMap.newKeySet();
        final List<Integer> revoked = Collections.synchronizedList(new ArrayList<>());
        final List<String> values = Collections.synchronizedList(new ArrayList<>());
        final Thread thread;
        volatile boolean running = true;

        Member(String name, String group, String instanceId, Object subscription) {
            this.name = name;
            Properties p = new Properties();
            p.put("bootstrap.servers", bs);
            p.put("group.id", group);
            p.put("group.protocol", "consumer");
            p.put("client.id", name);
            p.put("auto.offset.reset", "earliest");
            p.put("enable.auto.commit", "false");
            p.put("key.deserializer", StringDeserializer.class.getName());
            p.put("value.deserializer", StringDeserializer.class.getName());
            if (instanceId != null) p.put("group.instance.id", instanceId);
            consumer = new KafkaConsumer<>(p);
            thread = new Thread(() -> {
                if (subscription instanceof java.util.regex.Pattern re) consumer.subscribe(new org.apache.kafka.clients.consumer.SubscriptionPattern(re.pattern()), this);
                else consumer.subscribe(List.of((String) subscription), this);
                while (running) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) values.add(r.value());
                }
                consumer.close();
            }, name);
            thread.start();
        }

        public void onPartitionsAssigned(Collection<TopicPartition> parts) {
            assigned.addAll(parts);
        }

        public void onPartitionsRevoked(Collection<TopicPartition> parts) {
            for (TopicPartition tp : parts) revoked.add(tp.partition());
            assigned.removeAll(parts);
        }

        public void onPartitionsLost(Collection<TopicPartition> parts) {
            assigned.removeAll(parts);
        }

        List<Integer> parts() {
            return assigned.stream().map(TopicPartition::partition).sorted().collect(Collectors.toList());
        }

        void stop() throws InterruptedException {
            running = false;
            thread.join(30_000);
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

    static boolean settled(List<Member> ms, int n) {
        Set<TopicPartition> all = new HashSet<>();
        int sum = 0;
        for (Member m : ms) {
            all.addAll(m.assigned);
            sum += m.assigned.size();
        }
        return sum == n && all.size() == n;
    }

    static void create(String topic, int partitions) throws Exception {
        try (Admin a = Admin.create(Map.of("bootstrap.servers", bs))) {
            a.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(15, TimeUnit.SECONDS);
        }
        Thread.sleep(300);
    }

    static void produce(String topic, int partitions, int perPartition) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bs);
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        try (KafkaProducer<String, String> prod = new KafkaProducer<>(p)) {
            for (int part = 0; part < partitions; part++)
                for (int i = 0; i < perPartition; i++) prod.send(new ProducerRecord<>(topic, part, null, part + "-" + i));
            prod.flush();
        }
    }

    static String json(Object o) {
        if (o instanceof String s) return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
        if (o instanceof Map<?, ?> m) return m.entrySet().stream().map(e -> json(String.valueOf(e.getKey())) + ":" + json(e.getValue())).collect(Collectors.joining(",", "{", "}"));
        if (o instanceof Collection<?> c) return c.stream().map(Scenario::json).collect(Collectors.joining(",", "[", "]"));
        return String.valueOf(o);
    }

    static void out(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        System.out.println(json(m));
        System.out.flush();
    }

    public static void main(String[] args) throws Exception {
        try {
            run(args);
        } catch (Throwable t) {
            t.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    static void run(String[] args) throws Exception {
        String mode = args[0];
        bs = args[1];
        switch (mode) {
            case "three-four" -> threeThenFour();
            case "kill" -> kill();
            case "victim" -> victim(args[2], args[3]);
            case "static" -> staticRestart();
            case "regex" -> regex();
            case "describe" -> describe();
            default -> throw new IllegalArgumentException(mode);
        }
    }

    static void threeThenFour() throws Exception {
        create("cp-j-three", 6);
        List<Member> ms = new ArrayList<>();
        for (int i = 0; i < 3; i++) ms.add(new Member("m" + i, "cp-j-group", null, "cp-j-three"));
        // The records come once the three share the partitions: without commits, a partition
        // moving while it is being read would be read again by its next owner.
        waitUntil("three members settle", 60_000, () -> settled(ms, 6) && ms.stream().allMatch(m -> m.assigned.size() == 2));
        produce("cp-j-three", 6, 50);
        waitUntil("300 records", 60_000, () -> ms.stream().mapToInt(m -> m.values.size()).sum() >= 300);
        Thread.sleep(500);
        List<String> values = new ArrayList<>();
        for (Member m : ms) synchronized (m.values) { values.addAll(m.values); }
        Collections.sort(values);
        out("values", values, "before", ms.stream().map(Member::parts).collect(Collectors.toList()));
        for (Member m : ms) m.revoked.clear();
        long t0 = System.nanoTime();
        ms.add(new Member("m3", "cp-j-group", null, "cp-j-three"));
        waitUntil("fourth member", 60_000, () -> !ms.get(3).assigned.isEmpty() && settled(ms, 6));
        double secs = (System.nanoTime() - t0) / 1e9;
        out("after", ms.stream().map(Member::parts).collect(Collectors.toList()),
            "revoked", ms.stream().map(m -> new ArrayList<>(m.revoked)).collect(Collectors.toList()),
            "absorbSeconds", Math.round(secs * 100) / 100.0);
        for (Member m : ms) m.stop();
    }

    static void victim(String group, String topic) throws Exception {
        Member m = new Member("victim", group, null, topic);
        waitUntil("victim assigned", 60_000, () -> !m.assigned.isEmpty());
        out("victim", "assigned");
        Thread.sleep(600_000);
    }

    static void kill() throws Exception {
        create("cp-j-kill", 6);
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path")));
        cmd.addAll(List.of(System.getProperty("scenario.main"), "victim", bs, "cp-j-kill-group", "cp-j-kill"));
        Process victim = new ProcessBuilder(cmd).redirectErrorStream(false).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        java.io.BufferedReader r = new java.io.BufferedReader(new java.io.InputStreamReader(victim.getInputStream()));
        String first = r.readLine();
        if (first == null) throw new IllegalStateException("victim ended");
        List<Member> ms = new ArrayList<>();
        for (int i = 0; i < 2; i++) ms.add(new Member("m" + i, "cp-j-kill-group", null, "cp-j-kill"));
        waitUntil("three-member split", 60_000, () -> ms.stream().mapToInt(m -> m.assigned.size()).sum() == 4);
        Set<Integer> held = new TreeSet<>(List.of(0, 1, 2, 3, 4, 5));
        for (Member m : ms) held.removeAll(m.parts());
        victim.destroyForcibly();
        victim.waitFor();
        long t0 = System.nanoTime();
        waitUntil("victim's partitions moved", 60_000, () -> settled(ms, 6));
        double secs = (System.nanoTime() - t0) / 1e9;
        out("victim", new ArrayList<>(held), "after", ms.stream().map(Member::parts).collect(Collectors.toList()), "movedSeconds", Math.round(secs * 100) / 100.0);
        for (Member m : ms) m.stop();
    }

    static void staticRestart() throws Exception {
        create("cp-j-static", 6);
        Member s = new Member("s", "cp-j-static-group", "cp-j-static-1", "cp-j-static");
        Member d = new Member("d", "cp-j-static-group", null, "cp-j-static");
        waitUntil("two members", 60_000, () -> settled(List.of(s, d), 6) && s.assigned.size() == 3);
        List<Integer> before = s.parts();
        d.revoked.clear();
        s.stop();
        Member s2 = new Member("s2", "cp-j-static-group", "cp-j-static-1", "cp-j-static");
        waitUntil("static rejoin", 30_000, () -> s2.assigned.size() == 3);
        Thread.sleep(1000);
        out("before", before, "after", s2.parts(), "other", d.parts(), "otherRevoked", new ArrayList<>(d.revoked));
        s2.stop();
        d.stop();
    }

    /** The Java admin on a consumer group: describeConsumerGroups (ConsumerGroupDescribe) and listGroups by type. */
    static void describe() throws Exception {
        create("cp-j-desc", 4);
        Member a = new Member("a", "cp-j-desc-group", "cp-j-desc-static", "cp-j-desc");
        Member b = new Member("b", "cp-j-desc-group", null, "cp-j-desc");
        waitUntil("two members", 60_000, () -> settled(List.of(a, b), 4) && a.assigned.size() == 2);
        Thread.sleep(1500);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bs))) {
            var g = admin.describeConsumerGroups(List.of("cp-j-desc-group")).all().get(15, TimeUnit.SECONDS).get("cp-j-desc-group");
            String unknown;
            try {
                unknown = String.valueOf(admin.describeConsumerGroups(List.of("cp-j-desc-nobody")).all().get(15, TimeUnit.SECONDS).get("cp-j-desc-nobody").groupState());
            } catch (ExecutionException e) {
                unknown = e.getCause().getClass().getSimpleName();
            }
            List<Object> members = new ArrayList<>();
            for (var m : g.members()) {
                members.add(Map.of(
                    "clientId", m.clientId(),
                    "instanceId", m.groupInstanceId().orElse("-"),
                    "partitions", m.assignment().topicPartitions().stream().map(TopicPartition::partition).sorted().collect(Collectors.toList()),
                    "target", m.targetAssignment().map(t -> t.topicPartitions().stream().map(TopicPartition::partition).sorted().collect(Collectors.toList())).orElse(List.of()),
                    "memberEpoch", m.memberEpoch().orElse(-99),
                    "upgraded", m.upgraded().map(String::valueOf).orElse("-")));
            }
            members.sort(Comparator.comparing(Object::toString));
            var listed = admin.listGroups(org.apache.kafka.clients.admin.ListGroupsOptions.forConsumerGroups()).all().get(15, TimeUnit.SECONDS);
            var mine = listed.stream().filter(l -> l.groupId().equals("cp-j-desc-group")).findFirst().orElseThrow();
            out("type", String.valueOf(g.type()), "state", String.valueOf(g.groupState()), "assignor", g.partitionAssignor(),
                "groupEpoch", g.groupEpoch().orElse(-99), "targetEpoch", g.targetAssignmentEpoch().orElse(-99), "members", members,
                "unknownState", unknown,
                "listedType", String.valueOf(mine.type().orElse(null)), "listedState", String.valueOf(mine.groupState().orElse(null)));
        }
        a.stop();
        b.stop();
    }

    static void regex() throws Exception {
        create("cp-j-rx-a", 2);
        produce("cp-j-rx-a", 2, 5);
        Member m = new Member("rx", "cp-j-rx-group", null, java.util.regex.Pattern.compile("cp-j-rx-.*"));
        waitUntil("first topic", 60_000, () -> m.values.size() >= 10);
        create("cp-j-rx-late", 3);
        produce("cp-j-rx-late", 3, 4);
        long t0 = System.nanoTime();
        waitUntil("late topic", 60_000, () -> m.values.size() >= 22);
        double secs = (System.nanoTime() - t0) / 1e9;
        out("topics", m.assigned.stream().map(TopicPartition::topic).distinct().sorted().collect(Collectors.toList()),
            "values", m.values.size(), "pickedUpSeconds", Math.round(secs * 100) / 100.0);
        m.stop();
    }
}
