/**
 * Fetch from the closest replica (KIP-392) on three broker processes in racks r1, r2, r3 (etcd,
 * test/support/cluster.ts), seen through each broker's test control over HTTP (every Fetch
 * recorded). Brokers 1 and 2 have replica.selector.class = Kafka's RackAwareReplicaSelector,
 * broker 3 none. Topics of one partition on replicas [1, 2, 3]: broker 1 leads.
 * - Raw Fetch v12 to the leader: a consumer in rack r2 is sent to broker 2 (preferred_read_replica
 *   2, no records, the leader's high watermark); one in the leader's rack, one without a rack, and
 *   a Fetch v10 are answered with records. Broker 3 (no selector) leading a topic answers -1 even
 *   to rack r1.
 * - The Java client (Kafka 4.4) and librdkafka (confluent-kafka) with client.rack=r2 read every
 *   record from broker 2: the leader's answers to them carry no records, broker 2's carry them all.
 * - Fall-back: broker 2 stops; the clients go back to the leader and read what is written
 *   meanwhile; every offset read once, none missing.
 * - A follower that lags: broker 2 cut off from the leader (its fetches stall) while it stays up;
 *   the Java client reads what broker 2 has, then (broker 2 out of the ISR, the preferred replica
 *   expired after metadata.max.age.ms) reads the rest from the leader.
 *
 * @samsa-timeout 600
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lineChild, type Child } from '../support/line-child.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { freePort } from '../support/net.js';
import { VENV_PYTHON } from '../support/external.js';
import { javaBin, javaMissing, kafkaJars } from '../../tools/kafka/kafka.js';
import { CLIENT_JVM_OPTS, javaProgram } from '../../tools/kafka/java-classes.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';

const { Kafka, logLevel } = kafkajs;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`follower-fetch: etcd is required under CI: ${missing}`);

const SELECTOR = 'org.apache.kafka.common.replica.RackAwareReplicaSelector';
const IDS = [1, 2, 3];
const FIRST = 120;
const MORE = 80;
let c: TestCluster | null = null;
const httpPorts = new Map<number, number>();

const url = (id: number, path: string) => `http://127.0.0.1:${httpPorts.get(id)}${path}`;

async function control(id: number, path: string, body: unknown = {}): Promise<any> {
  const res = await fetch(url(id, path), { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  assert.is(res.status, 200, `${path} on broker ${id}: ${await res.clone().text()}`);
  return res.json();
}

interface Exchange {
  clientId: string;
  apiVersion: number;
  request: { replicaId: number; rackId: string };
  response?: { responses: { partitions: { errorCode: number; preferredReadReplica: number; highWatermark: string; records: string | string[] | null }[] }[] };
}

async function startRecording(id: number): Promise<number> {
  return (await control(id, '/control/record', { apis: ['Fetch'] })).id;
}

async function recorded(id: number, rec: number, clientId: string): Promise<Exchange[]> {
  const res = await fetch(url(id, `/control/recordings/${rec}`));
  const { exchanges } = (await res.json()) as { exchanges: Exchange[] };
  return exchanges.filter((e) => e.clientId === clientId && e.response);
}

const recordBytes = (e: Exchange) => e.response!.responses.flatMap((t) => t.partitions).reduce((n, p) => n + (Array.isArray(p.records) ? p.records.join('') : (p.records ?? '')).length, 0);
const preferred = (e: Exchange) => e.response!.responses.flatMap((t) => t.partitions).map((p) => p.preferredReadReplica);

async function createTopic(name: string, replicas: number[]): Promise<void> {
  const cl = await c!.client(1);
  const r: any = await cl.send(19, 7, { topics: [{ name, numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: replicas }], configs: [] }], timeoutMs: 30_000, validateOnly: false });
  assert.is(r.topics[0].errorCode, ErrorCode.NONE, JSON.stringify(r.topics[0]));
  await c!.waitForMetadata(1, (m) => m.topics.some((t) => t.name === name && t.partitions[0]?.isrNodes.length === replicas.length), `${name} with every replica in sync`);
}

async function produce(topic: string, from: number, n: number): Promise<void> {
  const kafka = new Kafka({ clientId: `${topic}-producer`, brokers: c!.bootstrapList, logLevel: logLevel.NOTHING, retry: { retries: 30, initialRetryTime: 100 } });
  const producer = kafka.producer();
  await producer.connect();
  try {
    // One batch per 10 records: the consumers' small fetches take several rounds.
    for (let i = from; i < from + n; i += 10) {
      await producer.send({ topic, acks: -1, messages: Array.from({ length: Math.min(10, from + n - i) }, (_, k) => ({ partition: 0, value: `${topic}-${i + k}-`.padEnd(100, 'x') })) });
    }
  } finally {
    await producer.disconnect();
  }
}

/** Every live replica of `topic` has `offset` below its high watermark. */
async function replicatedTo(topic: string, offset: number, ids: number[]): Promise<void> {
  for (const id of ids) await control(id, '/control/wait/high-watermark', { topic, partition: 0, offset, timeoutMs: 60_000 });
}

function fetchRequest(topic: string, rackId: string, fetchOffset = 0n) {
  return {
    clusterId: null, replicaId: -1, replicaState: null, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
    topics: [{ topic, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1 << 20, replicaDirectoryId: 'AAAAAAAAAAAAAAAAAAAAAA', highWatermark: 0x7fffffffffffffffn }] }],
    forgottenTopicsData: [], rackId,
  };
}

const child = (cmd: string, args: string[]): Child => lineChild(cmd, args, 200_000);

/** RackConsumer.java, compiled; javaConsumer() starts it. */
const rackConsumer = () => javaProgram(join(process.cwd(), 'test', 'support', 'java', 'RackConsumer.java'), kafkaJars().classpath);

function javaConsumer(prog: { classpath: string; main: string }, topic: string, clientId: string, metadataMaxAgeMs: number): Child {
  return child(javaBin(), [
    ...CLIENT_JVM_OPTS, '-cp', prog.classpath, prog.main,
    c!.bootstrap, topic, String(FIRST), String(FIRST + MORE), clientId, 'r2', String(metadataMaxAgeMs),
  ]);
}

/** librdkafka: the same as RackConsumer.java. */
const PY_CONSUMER = `
import sys, time
from confluent_kafka import Consumer, TopicPartition, OFFSET_BEGINNING
bs, topic, first, expected, client_id, rack = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
c = Consumer({'bootstrap.servers': bs, 'group.id': client_id, 'client.id': client_id, 'client.rack': rack,
              'enable.auto.commit': False, 'fetch.wait.max.ms': 200, 'fetch.message.max.bytes': 4096,
              'topic.metadata.refresh.interval.ms': 3000, 'enable.partition.eof': False})
c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
seen = set()
records = dups = 0
caught_up = False
deadline = time.time() + 150
while len(seen) < expected and time.time() < deadline:
    m = c.poll(0.2)
    if m is None or m.error():
        continue
    records += 1
    if m.offset() in seen: dups += 1
    seen.add(m.offset())
    if not caught_up and len(seen) >= first:
        caught_up = True
        print('CAUGHT_UP', flush=True)
c.close()
print('DONE %d %d %d' % (records, dups, len([o for o in range(expected) if o not in seen])), flush=True)
`;

function checkDone(out: string, who: string): void {
  const line = out.split('\n').find((l) => l.startsWith('DONE '));
  assert.ok(line, `${who}: no DONE line: ${out.slice(-2000)}`);
  const [records, dups, missingOffsets] = line!.slice(5).split(' ').map(Number);
  assert.equal({ records, dups, missingOffsets }, { records: FIRST + MORE, dups: 0, missingOffsets: 0 }, `${who}: every offset read once`);
}

/**
 * A consumer in rack r2 reads FIRST records from broker 2 (the leader's answers carry none), then
 * broker 2 goes away by `fault` and the consumer reads MORE from the leader; every offset once.
 */
async function scenario(topic: string, clientId: string, start: () => Child, fault: () => Promise<void>, heal: () => Promise<void>): Promise<void> {
  await createTopic(topic, [1, 2, 3]);
  await produce(topic, 0, FIRST);
  await replicatedTo(topic, FIRST, IDS);
  const rec1 = await startRecording(1);
  const rec2 = await startRecording(2);
  const consumer = start();
  try {
    await consumer.waitFor('CAUGHT_UP', 120_000);
    const onLeader = await recorded(1, rec1, clientId);
    const onFollower = await recorded(2, rec2, clientId);
    assert.ok(onLeader.some((e) => preferred(e).includes(2)), `${clientId}: the leader named broker 2 (${onLeader.map(preferred)})`);
    assert.is(onLeader.reduce((n, e) => n + recordBytes(e), 0), 0, `${clientId}: the leader sent no records`);
    const served = onFollower.filter((e) => recordBytes(e) > 0);
    assert.ok(served.length > 1, `${clientId}: broker 2 served the records (${served.length} answers with records of ${onFollower.length})`);
    assert.ok(onFollower.every((e) => preferred(e).every((p) => p === -1)), 'a follower names no preferred replica');
    console.log(`${clientId}: ${onLeader.length} fetches to the leader (none with records), ${served.length} of ${onFollower.length} fetches to broker 2 with records`);

    await fault();
    const rec1b = await startRecording(1);
    await produce(topic, FIRST, MORE);
    const d = await consumer.done;
    assert.is(d.code, 0, `${clientId}: ${d.out.slice(-2000)}\n${d.err.slice(-4000)}`);
    checkDone(d.out, clientId);
    const later = await recorded(1, rec1b, clientId);
    assert.ok(later.some((e) => recordBytes(e) > 0), `${clientId}: the leader served the records written after the fault`);
  } finally {
    await consumer.done.catch(() => undefined);
    await heal();
  }
}

test.before(async () => {
  if (missing) return;
  for (const id of IDS) httpPorts.set(id, await freePort());
  c = await startCluster({
    brokers: 3, args: ['--control'], peerProxies: true,
    config: { 'replica.fetch.wait.max.ms': 200, 'replica.fetch.backoff.ms': 100, 'replica.lag.time.max.ms': 4000 },
    brokerConfig: (id) => ({
      'samsa.http.listeners': `http://127.0.0.1:${httpPorts.get(id)}`, 'broker.rack': `r${id}`,
      ...(id === 3 ? {} : { 'replica.selector.class': SELECTOR }),
    }),
  });
});

test.after(async () => {
  await c?.cleanup();
});

test('the leader names the in-sync replica of the client\'s rack (no records); the leader\'s rack, no rack, Fetch v10 and a leader without the selector read there', async () => {
  if (!c) return console.log('follower-fetch: skipped:', missing);
  await createTopic('ff-raw', [1, 2, 3]);
  await produce('ff-raw', 0, 30);
  await replicatedTo('ff-raw', 30, IDS);
  const leader = await c.client(1);
  const r2: any = await leader.send(1, 12, fetchRequest('ff-raw', 'r2', 5n));
  const p = r2.responses[0].partitions[0];
  assert.equal([p.errorCode, p.preferredReadReplica, p.highWatermark, p.records.length], [0, 2, 30n, 0]);
  for (const rack of ['r1', '', 'r9']) {
    const r: any = await leader.send(1, 12, fetchRequest('ff-raw', rack));
    assert.equal([r.responses[0].partitions[0].preferredReadReplica, r.responses[0].partitions[0].records.length > 0], [-1, true], `rack '${rack}'`);
  }
  const v10: any = await leader.send(1, 10, fetchRequest('ff-raw', ''));
  assert.equal([v10.responses[0].partitions[0].preferredReadReplica, v10.responses[0].partitions[0].records.length > 0], [-1, true], 'Fetch v10: no rack, no redirection');
  // The follower serves the consumer it was named for.
  const fromFollower: any = await (await c.client(2)).send(1, 12, fetchRequest('ff-raw', 'r2', 5n));
  assert.equal([fromFollower.responses[0].partitions[0].errorCode, fromFollower.responses[0].partitions[0].highWatermark, fromFollower.responses[0].partitions[0].records.length > 0], [0, 30n, true]);

  await createTopic('ff-none', [3, 1, 2]);
  await produce('ff-none', 0, 10);
  await replicatedTo('ff-none', 10, IDS);
  const none: any = await (await c.client(3)).send(1, 12, fetchRequest('ff-none', 'r1'));
  assert.equal([none.responses[0].partitions[0].errorCode, none.responses[0].partitions[0].preferredReadReplica, none.responses[0].partitions[0].records.length > 0], [0, -1, true],
    'broker 3 has no replica.selector.class: preferred_read_replica stays -1');
});

test('the Java client with client.rack reads from broker 2, then from the leader when broker 2 stops; every offset once', async () => {
  if (!c) return;
  const why = javaMissing();
  if (why) {
    if (IN_CI) throw new Error(why);
    return console.log(`skipped: ${why}`);
  }
  const prog = await rackConsumer();
  await scenario('ff-java', 'ff-java', () => javaConsumer(prog, 'ff-java', 'ff-java', 300_000),
    async () => {
      await c!.stop(2);
      await c!.waitForMetadata(1, (m) => m.topics.find((t) => t.name === 'ff-java')?.partitions[0]?.isrNodes.length === 2, 'broker 2 out of the ISR');
    },
    async () => {
      await c!.start(2);
      await c!.waitForMetadata(1, (m) => m.topics.find((t) => t.name === 'ff-java')?.partitions[0]?.isrNodes.length === 3, 'broker 2 back in the ISR');
    });
});

test('librdkafka with client.rack reads from broker 2, then from the leader when broker 2 stops; every offset once', async () => {
  if (!c) return;
  if (!existsSync(VENV_PYTHON)) {
    if (IN_CI) throw new Error(`${VENV_PYTHON} missing`);
    return console.log(`skipped: ${VENV_PYTHON} not found`);
  }
  await scenario('ff-rdkafka', 'ff-rdkafka', () => child(VENV_PYTHON, ['-c', PY_CONSUMER, c!.bootstrap, 'ff-rdkafka', String(FIRST), String(FIRST + MORE), 'ff-rdkafka', 'r2']),
    async () => {
      await c!.stop(2);
      await c!.waitForMetadata(1, (m) => m.topics.find((t) => t.name === 'ff-rdkafka')?.partitions[0]?.isrNodes.length === 2, 'broker 2 out of the ISR');
    },
    async () => {
      await c!.start(2);
      await c!.waitForMetadata(1, (m) => m.topics.find((t) => t.name === 'ff-rdkafka')?.partitions[0]?.isrNodes.length === 3, 'broker 2 back in the ISR');
    });
});

test('a follower that lags: the Java client reads what broker 2 has, then the rest from the leader once broker 2 left the ISR', async () => {
  if (!c || javaMissing()) return;
  const prog = await rackConsumer();
  await scenario('ff-lag', 'ff-lag', () => javaConsumer(prog, 'ff-lag', 'ff-lag', 3000),
    async () => {
      // Broker 2 stays up and keeps serving what it has; it stops getting anything from the leader.
      c!.peerLink(2, 1).stall();
    },
    async () => {
      c!.peerLink(2, 1).heal();
      await c!.waitForMetadata(1, (m) => m.topics.find((t) => t.name === 'ff-lag')?.partitions[0]?.isrNodes.length === 3, 'broker 2 back in the ISR', 60_000);
    });
});

test.run();
