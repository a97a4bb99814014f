// Kafka 4.4's own StickyTaskAssignor (and java.util.HashMap / PriorityQueue) on the cases of
// streams-assignor-kafka.test.ts, run with `java -cp <Kafka's jars> StickyOracle.java CASES_FILE`.
//
// Input lines (tokens separated by single spaces):
//   case <id> <numStandbyReplicas>
//   sub <subtopologyId> <tasks> <stateful 0|1>
//   member <memberId> <processId> <active> <standby> <offsets>   tasks "sub_p,sub_p" or "-", offsets "sub_p=n,..." or "-"
//   end
//   hashmap <put|compute> <initialCapacity or -1> <key,key,...>
//   pq <int,int,...>   (adds them in order, then polls; the order of the indexes polled)
// Output: for a case, "case <id>" then "m <memberId> A:<tasks> S:<tasks>" per member sorted by id;
// for hashmap, its keys in iteration order; for pq, the indexes in poll order.
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;
import org.apache.kafka.coordinator.group.streams.assignor.AssignmentConfigsImpl;
import org.apache.kafka.coordinator.group.streams.assignor.GroupSpecImpl;
import org.apache.kafka.coordinator.group.streams.assignor.MemberMetadataAndStateImpl;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;

public class StickyOracle {
    static Map<String, Set<Integer>> tasks(String s) {
        Map<String, Set<Integer>> m = new HashMap<>();
        if (s.equals("-")) return m;
        for (String t : s.split(",")) {
            int i = t.lastIndexOf('_');
            m.computeIfAbsent(t.substring(0, i), k -> new HashSet<>()).add(Integer.parseInt(t.substring(i + 1)));
        }
        return m;
    }

    static Map<String, Map<Integer, Long>> offsets(String s) {
        Map<String, Map<Integer, Long>> m = new HashMap<>();
        if (s.equals("-")) return m;
        for (String t : s.split(",")) {
            String[] kv = t.split("=");
            int i = kv[0].lastIndexOf('_');
            m.computeIfAbsent(kv[0].substring(0, i), k -> new HashMap<>()).put(Integer.parseInt(kv[0].substring(i + 1)), Long.parseLong(kv[1]));
        }
        return m;
    }

    static String render(Map<String, Set<Integer>> m) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, Set<Integer>> e : m.entrySet()) for (int p : e.getValue()) out.add(e.getKey() + "_" + p);
        Collections.sort(out);
        return String.join(",", out);
    }

    public static void main(String[] args) throws Exception {
        StringBuilder sb = new StringBuilder();
        String id = null;
        int standby = 0;
        TreeMap<String, int[]> subs = new TreeMap<>();
        Map<String, MemberMetadataAndStateImpl> members = new HashMap<>();
        for (String line : Files.readAllLines(Path.of(args[0]))) {
            String[] w = line.split(" ");
            switch (w[0]) {
                case "case":
                    id = w[1];
                    standby = Integer.parseInt(w[2]);
                    subs = new TreeMap<>();
                    members = new HashMap<>();
                    break;
                case "sub":
                    subs.put(w[1], new int[] {Integer.parseInt(w[2]), Integer.parseInt(w[3])});
                    break;
                case "member":
                    members.put(w[1], new MemberMetadataAndStateImpl(Optional.empty(), Optional.empty(), w[2], Map.of(),
                        tasks(w[3]), tasks(w[4]), Map.of(), offsets(w[5]), Map.of()));
                    break;
                case "end": {
                    final TreeMap<String, int[]> s = subs;
                    TopologyDescriber d = new TopologyDescriber() {
                        public List<String> subtopologies() { return new ArrayList<>(s.keySet()); }
                        public int maxNumInputPartitions(String sub) { return s.get(sub)[0]; }
                        public boolean isStateful(String sub) { return s.get(sub)[1] == 1; }
                    };
                    GroupAssignment a = new StickyTaskAssignor().assign(new GroupSpecImpl(members, new AssignmentConfigsImpl(standby, List.of())), d);
                    sb.append("case ").append(id).append('\n');
                    for (String m : new TreeSet<>(a.members().keySet())) {
                        MemberAssignment ma = a.members().get(m);
                        sb.append("m ").append(m).append(" A:").append(render(ma.activeTasks())).append(" S:").append(render(ma.standbyTasks())).append('\n');
                    }
                    break;
                }
                case "hashmap": {
                    int cap = Integer.parseInt(w[2]);
                    Map<String, Integer> m = cap < 0 ? new HashMap<>() : new HashMap<>(cap);
                    for (String k : w[3].split(",")) {
                        if (w[1].equals("put")) m.put(k, 0);
                        else m.computeIfAbsent(k, x -> 0);
                    }
                    sb.append(String.join(",", m.keySet())).append('\n');
                    break;
                }
                case "pq": {
                    String[] xs = w[1].split(",");
                    PriorityQueue<int[]> q = new PriorityQueue<>(Comparator.comparingInt((int[] e) -> e[0]));
                    for (int i = 0; i < xs.length; i++) q.add(new int[] {Integer.parseInt(xs[i]), i});
                    List<String> order = new ArrayList<>();
                    while (!q.isEmpty()) order.add(String.valueOf(q.poll()[1]));
                    sb.append(String.join(",", order)).append('\n');
                    break;
                }
                default:
                    break;
            }
        }
        System.out.print(sb);
    }
}
