/**
 * A KIP-848 consumer group across a coordinator failover, on a three-broker cluster
 * (@samsa-timeout 300): two confluent-kafka consumers with group.protocol=consumer read a topic;
 * the broker leading the group's `__consumer_offsets` partition is SIGKILLed; the new leader loads
 * the consumer group from its replica (the consumer-group records), the members find it and
 * carry on with their epochs and partitions, and every record is read.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { until } from '../support/until.js';
import { venvPython } from '../support/external.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { describeRun, jsonLines } from '../support/clients.js';
import { CONSUMER_PROTOCOL_BROKER_CONFIG } from '../support/consumer-protocol-scenarios.js';

const { Kafka, logLevel } = kafkajs;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`consumer-protocol-failover: etcd is required under CI: ${missing}`);

const TOPIC = 'cpf';
const GROUP = 'cpf-group';
let c: TestCluster | null = null;

test.before(async () => {
  if (missing) return;
  c = await startCluster({
    brokers: 3,
    config: {
      ...CONSUMER_PROTOCOL_BROKER_CONFIG,
      'min.insync.replicas': 2, 'default.replication.factor': 3, 'replica.lag.time.max.ms': 3000, 'replica.fetch.backoff.ms': 200,
      'offsets.topic.num.partitions': 3, 'offsets.topic.replication.factor': 3,
    },
  });
});

test.after(async () => {
  await c?.cleanup();
});

const PY_GROUP = `
import sys, json, time
from confluent_kafka import Consumer
bs, group, topic, want, seconds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
def member(name):
    c = Consumer({'bootstrap.servers': bs, 'group.id': group, 'group.protocol': 'consumer', 'client.id': name,
                  'auto.offset.reset': 'earliest', 'enable.auto.commit': True, 'auto.commit.interval.ms': 200})
    c.subscribe([topic])
    return c
ms = [member('m0'), member('m1')]
seen = set()
end = time.time() + seconds
while time.time() < end and len(seen) < want:
    for c in ms:
        m = c.poll(0.05)
        if m is not None and m.error() is None:
            seen.add(m.value().decode())
print(json.dumps({'seen': len(seen), 'assignments': [sorted(p.partition for p in c.assignment()) for c in ms]}), flush=True)
for c in ms:
    c.close()
`;

test('a consumer-protocol group carries on at the new coordinator after a SIGKILL of the old one', async () => {
  if (!c) return console.log('consumer-protocol-failover: skipped:', missing);
  const cluster = c;
  const kafka = new Kafka({ clientId: 'cpf', brokers: cluster.bootstrapList, logLevel: logLevel.NOTHING, retry: { retries: 40, initialRetryTime: 100, maxRetryTime: 1000 } });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 4, replicationFactor: 3 }], waitForLeaders: true });
  await admin.disconnect();
  const producer = kafka.producer({ idempotent: true });
  await producer.connect();
  const produce = async (from: number) => {
    await producer.send({ topic: TOPIC, acks: -1, messages: Array.from({ length: 100 }, (_, i) => ({ partition: (from + i) % 4, value: `v-${from + i}` })) });
  };
  await produce(0);
  const group = venvPython(PY_GROUP, [cluster.bootstrap, GROUP, TOPIC, '200', '120'], { timeoutMs: 180_000 });

  const coordinatorOf = () => until('the group coordinator', 30_000, async () => {
    for (const b of cluster.brokers) {
      try {
        const r = await (await cluster.client(b.nodeId)).send(10, 3, { key: GROUP, keyType: 0, coordinatorKeys: [] });
        if (r.errorCode === ErrorCode.NONE) return r.nodeId as number;
      } catch { /* a killed broker */ }
    }
    return null;
  });
  const describe = async (nodeId: number) => (await cluster.client(nodeId)).send(69, 1, { groupIds: [GROUP], includeAuthorizedOperations: false });
  // The coordinator is looked up on every try: the partition's leadership may still move while
  // the cluster balances leaders.
  let victim = -1;
  const before = await until('the group Stable with two members', 90_000, async () => {
    victim = await coordinatorOf();
    const d = (await describe(victim)).groups[0];
    return d.errorCode === ErrorCode.NONE && d.groupState === 'Stable' && d.members.length === 2 ? d : null;
  });
  await cluster.kill(victim);
  const successor = await until('a new coordinator', 30_000, async () => {
    const id = await coordinatorOf();
    return id !== victim ? id : null;
  });
  const after = await until('the group loaded at the new coordinator', 30_000, async () => {
    const d = (await describe(successor)).groups[0];
    return d.errorCode === ErrorCode.NONE ? d : null;
  });
  assert.is(after.groupEpoch, before.groupEpoch, 'the same group epoch: loaded, not rebuilt');
  assert.equal(after.members.map((m: { memberId: string }) => m.memberId).sort(), before.members.map((m: { memberId: string }) => m.memberId).sort());
  await produce(100);
  const res = await group;
  assert.is(res.code, 0, describeRun(res));
  const [o] = jsonLines(res, 'consumer group');
  assert.is(o.seen, 200, 'every record read across the failover');
  assert.equal(o.assignments.flat().sort(), [0, 1, 2, 3]);
  await producer.disconnect();
  await cluster.start(victim);
});

test.run();
