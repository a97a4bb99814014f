/**
 * How long a 16-member group takes to absorb a 17th member, and how much reading stops meanwhile:
 * the classic protocol with eager rebalancing (range), the classic protocol with cooperative
 * rebalancing (cooperative-sticky), and KIP-848 (group.protocol=consumer, broker-side uniform
 * assignor), in one run against one Samsa broker. Clients: confluent-kafka-python 2.x (librdkafka)
 * from the test venv (tools/ensure-test-deps.sh), all 17 consumers in one Python process, polled
 * in turn; heartbeats every second in every mode (the classic members' heartbeat.interval.ms and
 * the broker's group.consumer.heartbeat.interval.ms).
 *
 * Figures, per mode, from the join of the 17th member:
 * - absorbed: until every partition has an owner again and the new member holds its share;
 * - revoked: partitions taken from the 16 members (eager: all of them);
 * - paused partition-seconds: summed over partitions, the time a partition had no owner (what
 *   was not read meanwhile: at R records/s per partition, R x this many records);
 * - paused records at the producing rate given (default 100 records/s per partition).
 *
 *   npx tsx bench/group-rebalance.ts [partitions=64] [records-per-second-per-partition=100]
 */
import { startBroker } from '../src/testing/start-broker.js';
import { venvPython } from '../test/support/external.js';

const partitions = Number(process.argv[2] ?? 64);
const rate = Number(process.argv[3] ?? 100);

const PY = `
import sys, json, time
from confluent_kafka import Consumer
from confluent_kafka.admin import AdminClient, NewTopic
bs, mode, topic, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
a = AdminClient({'bootstrap.servers': bs})
for f in a.create_topics([NewTopic(topic, n, 1)], operation_timeout=10).values():
    f.result(15)
time.sleep(0.5)
owner = {}
unowned_since = {}
paused = [0.0]
revoked = [0]
window = [False]
def conf(name):
    c = {'bootstrap.servers': bs, 'group.id': topic + '-g', 'client.id': name, 'auto.offset.reset': 'latest', 'enable.auto.commit': False}
    if mode == 'consumer':
        c['group.protocol'] = 'consumer'
    else:
        c.update({'partition.assignment.strategy': 'range' if mode == 'eager' else 'cooperative-sticky',
                  'session.timeout.ms': 10000, 'heartbeat.interval.ms': 1000})
    return c
class M:
    def __init__(self, name):
        self.name = name
        self.c = Consumer(conf(name))
        self.c.subscribe([topic], on_assign=self.assign, on_revoke=self.revoke)
    def assign(self, c, parts):
        now = time.time()
        if mode == 'eager':
            c.assign(parts)
        for p in parts:
            owner[p.partition] = self.name
            if p.partition in unowned_since:
                if window[0]:
                    paused[0] += now - unowned_since[p.partition]
                del unowned_since[p.partition]
    def revoke(self, c, parts):
        now = time.time()
        if mode == 'eager':
            c.unassign()
        for p in parts:
            if owner.get(p.partition) == self.name:
                del owner[p.partition]
                unowned_since[p.partition] = now
                if window[0] and self.name != 'new':
                    revoked[0] += 1
def pump(ms, cond, timeout):
    end = time.time() + timeout
    while time.time() < end:
        for m in ms:
            m.c.poll(0.005)
        if cond():
            return True
    return False
ms = [M('m%02d' % i) for i in range(16)]
assert pump(ms, lambda: len(owner) == n and len(set(owner.values())) == 16, 120), 'sixteen members settle'
pump(ms, lambda: False, 3)
share = n // 17
window[0] = True
t0 = time.time()
ms.append(M('new'))
ok = pump(ms, lambda: len(owner) == n and sum(1 for o in owner.values() if o == 'new') >= share, 120)
t1 = time.time()
window[0] = False
print(json.dumps({'mode': mode, 'settled': ok, 'absorbedSeconds': round(t1 - t0, 3), 'revoked': revoked[0],
                  'pausedPartitionSeconds': round(paused[0], 3), 'newMemberPartitions': sum(1 for o in owner.values() if o == 'new')}), flush=True)
for m in ms:
    m.c.close()
`;

const b = await startBroker({
  port: 0,
  config: {
    'group.initial.rebalance.delay.ms': 0,
    'group.consumer.heartbeat.interval.ms': 1000,
    'group.consumer.min.heartbeat.interval.ms': 500,
  },
  logLevel: 'warn',
});
const bs = `127.0.0.1:${b.port}`;
const rows: Record<string, unknown>[] = [];
try {
  for (const mode of ['eager', 'cooperative', 'consumer']) {
    const res = await venvPython(PY, [bs, mode, `bench-rebalance-${mode}`, String(partitions)], { timeoutMs: 400_000 });
    if (res.code !== 0) throw new Error(`${mode}: exit ${res.code}\n${res.stderr.slice(-2000)}`);
    const row = JSON.parse(res.stdout.trim().split('\n').pop()!);
    row.pausedRecords = Math.round(row.pausedPartitionSeconds * rate);
    rows.push(row);
  }
} finally {
  await b.stop();
}
console.log(`16-member group absorbing a 17th on ${partitions} partitions (paused records at ${rate} records/s per partition)`);
console.log('mode          absorbed   revoked  paused partition-s  paused records  new member partitions');
for (const r of rows) {
  console.log(`${String(r.mode).padEnd(13)} ${(String(r.absorbedSeconds) + ' s').padStart(8)}  ${String(r.revoked).padStart(8)}  ${String(r.pausedPartitionSeconds).padStart(18)}  ${String(r.pausedRecords).padStart(14)}  ${String(r.newMemberPartitions).padStart(21)}${r.settled ? '' : '  (did not settle)'}`);
}
