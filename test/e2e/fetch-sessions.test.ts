/**
 * Fetch sessions (KIP-227) with real clients over real sockets, checked with the test control's
 * request recording. A topic of 40 partitions holds 25 one-record batches in each; a consumer
 * without a group (kafka-python 3 from the test venv, the Java client of Kafka 4.4) reads it from
 * the beginning with small fetches (2 KiB per partition, 16 KiB per fetch), says when it has read
 * it all, then the test writes 10 more records into 3 partitions and the consumer reads those.
 * - Every record is read once (count and offset sum per partition).
 * - The first Fetch is a full one with epoch 0 and gets a session id; every later one carries that
 *   id and the next epoch, and names only the partitions whose fetch offset moved (none at all
 *   once the consumer has caught up).
 * - Once caught up, the answers name only the 3 partitions written to (nothing else changed):
 *   incremental answers leave the others out.
 * - With max.incremental.fetch.session.cache.slots=0 the broker makes no session: every answer
 *   has session id 0, every request is full, and everything is still read.
 * The session cache's gauges (sessions, cached partitions) are checked on the way.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lineChild, type Child } from '../support/line-child.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import type { RecordedExchange } from '../../src/testing/control.js';
import { VENV_PYTHON } from '../support/external.js';
import { hostPort } from '../support/clients.js';
import { javaBin, javaMissing, kafkaJars } from '../../tools/kafka/kafka.js';
import { CLIENT_JVM_OPTS, javaProgram } from '../../tools/kafka/java-classes.js';

const { Kafka, logLevel } = kafkajs;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const PARTITIONS = 40;
const PER_PARTITION = 25;
const EXTRA_PARTITIONS = [3, 17, 29];
const EXTRA_EACH = 10;
const FIRST = PARTITIONS * PER_PARTITION;
const TOTAL = FIRST + EXTRA_PARTITIONS.length * EXTRA_EACH;

const PY_CONSUMER = `
import sys
from kafka import KafkaConsumer, TopicPartition
bs, topic, partitions, first, expected, client_id = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
c = KafkaConsumer(bootstrap_servers=bs, client_id=client_id, group_id=None, enable_auto_commit=False,
                  auto_offset_reset='earliest', fetch_max_wait_ms=200, max_partition_fetch_bytes=2048,
                  fetch_max_bytes=16384, request_timeout_ms=30000)
tps = [TopicPartition(topic, p) for p in range(partitions)]
c.assign(tps)
c.seek_to_beginning(*tps)
count = [0] * partitions
total_offsets = [0] * partitions
total = 0
caught_up = False
import time
deadline = time.time() + 90
while total < expected and time.time() < deadline:
    for tp, recs in c.poll(timeout_ms=200).items():
        for r in recs:
            count[r.partition] += 1
            total_offsets[r.partition] += r.offset
            total += 1
    if not caught_up and total >= first:
        caught_up = True
        print('CAUGHT_UP', flush=True)
c.close()
print('DONE ' + ','.join('%d:%d:%d' % (p, count[p], total_offsets[p]) for p in range(partitions)), flush=True)
`;

const child = (cmd: string, args: string[]): Child => lineChild(cmd, args, 150_000);

let b: RunningBroker;
let off: RunningBroker;

async function produce(port: number, topic: string, rounds: { partition: number; n: number }[]): Promise<void> {
  const kafka = new Kafka({ clientId: `${topic}-producer`, brokers: [hostPort(port)], logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  try {
    const max = Math.max(...rounds.map((r) => r.n));
    // One record per partition per request: one batch each, so small fetches take several rounds.
    for (let i = 0; i < max; i++) {
      await producer.send({ topic, acks: 1, messages: rounds.filter((r) => i < r.n).map((r) => ({ partition: r.partition, value: `${topic}-${r.partition}-${i}-`.padEnd(200, 'x') })) });
    }
  } finally {
    await producer.disconnect();
  }
}

async function fill(broker: RunningBroker, topic: string): Promise<void> {
  await broker.broker.createTopic({ name: topic, numPartitions: PARTITIONS, replicationFactor: 1, configs: {} });
  await produce(broker.port, topic, Array.from({ length: PARTITIONS }, (_, partition) => ({ partition, n: PER_PARTITION })));
}

function checkCounts(out: string): void {
  const line = out.split('\n').find((l) => l.startsWith('DONE '));
  assert.ok(line, `no DONE line: ${out.slice(-2000)}`);
  const got = line!.slice(5).split(',').map((x) => x.split(':').map(Number));
  for (const [p, count, sum] of got) {
    const n = PER_PARTITION + (EXTRA_PARTITIONS.includes(p) ? EXTRA_EACH : 0);
    assert.equal([p, count, sum], [p, n, (n * (n - 1)) / 2], `partition ${p}: every record once`);
  }
}

const partitionsOf = (body: { topics?: { partitions: unknown[] }[]; responses?: { partitions: { partitionIndex: number }[] }[] }): number[] =>
  body.responses ? body.responses.flatMap((t) => t.partitions.map((p) => p.partitionIndex)) : (body.topics ?? []).flatMap((t) => t.partitions.map((p) => (p as { partition: number }).partition));

/**
 * Runs one consumer (`start`) on `broker`, with the second wave written once it has caught up;
 * returns its fetches and the index of the first one sent after the second wave.
 */
async function consume(broker: RunningBroker, topic: string, clientId: string, start: () => Child): Promise<{ fetches: RecordedExchange[]; afterWave: number }> {
  const rec = broker.control.record({ apiKeys: ['Fetch'] });
  const c = start();
  let afterWave = -1;
  try {
    await c.waitFor('CAUGHT_UP', 120_000);
    // Until the consumer idles in its session (an incremental fetch naming nothing and answering
    // nothing), then the second wave.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const mine = rec.exchanges.filter((e) => e.clientId === clientId && e.response);
      const last = mine[mine.length - 1]?.response as { sessionId: number; responses: unknown[] } | undefined;
      if (last && last.sessionId !== 0 && last.responses.length === 0) break;
      if (broker === off && mine.length > 0) break;
      if (Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    afterWave = rec.exchanges.filter((e) => e.clientId === clientId).length;
    await produce(broker.port, topic, EXTRA_PARTITIONS.map((partition) => ({ partition, n: EXTRA_EACH })));
    const d = await c.done;
    assert.is(d.code, 0, `${clientId}: ${d.out.slice(-2000)}\n${d.err.slice(-4000)}`);
    checkCounts(d.out);
  } finally {
    rec.stop();
  }
  return { fetches: rec.exchanges.filter((e) => e.clientId === clientId), afterWave };
}

/** The session checks on one consumer's recorded fetches. */
function checkSession(fetches: RecordedExchange[], afterWave: number, who: string): void {
  const req = (e: RecordedExchange) => e.request as { sessionId: number; sessionEpoch: number; topics: { partitions: unknown[] }[] };
  const res = (e: RecordedExchange) => e.response as { errorCode: number; sessionId: number; responses: { partitions: { partitionIndex: number; records: Buffer | null }[] }[] };
  assert.ok(fetches.length > 5, `${who}: ${fetches.length} fetches`);
  const first = fetches[0];
  assert.equal([req(first).sessionId, req(first).sessionEpoch], [0, 0], `${who}: the first fetch asks for a session`);
  assert.is(partitionsOf(req(first) as never).length, PARTITIONS);
  const id = res(first).sessionId;
  assert.ok(id > 0, `${who}: the broker made a session`);
  let epoch = 1;
  let empty = 0;
  for (const e of fetches.slice(1)) {
    if (!e.response) continue; // the last one, cut short by close()
    // A client closing its session at the end (epoch -1) is the only full fetch after the first.
    if (req(e).sessionEpoch === -1) continue;
    assert.equal([req(e).sessionId, req(e).sessionEpoch], [id, epoch], `${who}: fetch ${epoch} in the session`);
    assert.equal([res(e).errorCode, res(e).sessionId], [0, id], `${who}: answer ${epoch}`);
    epoch++;
    if (partitionsOf(req(e) as never).length === 0) empty++;
  }
  const named = fetches.slice(1).map((e) => partitionsOf(req(e) as never).length);
  const answeredCounts = fetches.slice(1).filter((e) => e.response).map((e) => partitionsOf(res(e) as never).length);
  console.log(`${who}: ${fetches.length} fetches in session ${id}; incremental requests named ${named.reduce((a, x) => a + x, 0) / named.length} partitions on average (${empty} none), answers ${answeredCounts.reduce((a, x) => a + x, 0) / answeredCounts.length}; a full one names ${PARTITIONS}`);
  assert.ok(epoch > 3, `${who}: incremental fetches`);
  assert.ok(empty > 0, `${who}: some incremental fetches name no partition at all`);
  // Once caught up, only the partitions written to are answered.
  const later = fetches.slice(afterWave).filter((e) => e.response && req(e).sessionEpoch > 0);
  assert.ok(later.length > 0, `${who}: fetches after the second wave`);
  const answered = new Set(later.flatMap((e) => partitionsOf(res(e) as never)));
  assert.ok(answered.size > 0, `${who}: the new records were answered`);
  for (const p of answered) assert.ok(EXTRA_PARTITIONS.includes(p), `${who}: partition ${p} answered after catching up, but nothing changed there`);
}

test.before(async () => {
  b = await startBroker({ port: 0, config: { 'num.partitions': 1 } });
  off = await startBroker({ port: 0, config: { 'num.partitions': 1, 'max.incremental.fetch.session.cache.slots': 0 } });
});

test.after(async () => {
  await b?.stop();
  await off?.stop();
});

test('kafka-python 3: a full fetch starts a session, incremental fetches name and answer only changes, every record read', async () => {
  if (!existsSync(VENV_PYTHON)) {
    if (IN_CI) throw new Error(`${VENV_PYTHON} missing`);
    console.log(`skipped: ${VENV_PYTHON} not found (tools/ensure-test-deps.sh)`);
    return;
  }
  const topic = 'fs-python';
  await fill(b, topic);
  const { fetches, afterWave } = await consume(b, topic, 'fs-kafka-python', () =>
    child(VENV_PYTHON, ['-c', PY_CONSUMER, hostPort(b.port), topic, String(PARTITIONS), String(FIRST), String(TOTAL), 'fs-kafka-python']));
  checkSession(fetches, afterWave, 'kafka-python');
});

test('the Java client (Kafka 4.4): the same over topic ids (Fetch v13+)', async () => {
  const missing = javaMissing();
  if (missing) {
    if (IN_CI) throw new Error(missing);
    console.log(`skipped: ${missing}`);
    return;
  }
  const jars = kafkaJars();
  const topic = 'fs-java';
  await fill(b, topic);
  const sessionsBefore = b.broker.replicaManager.fetchSessions.size;
  const prog = await javaProgram(join(process.cwd(), 'test', 'support', 'java', 'SessionConsumer.java'), jars.classpath);
  const { fetches, afterWave } = await consume(b, topic, 'fs-java', () => child(javaBin(), [
    ...CLIENT_JVM_OPTS, '-cp', prog.classpath, prog.main, hostPort(b.port), topic, String(PARTITIONS), String(FIRST), String(TOTAL), 'fs-java',
  ]));
  assert.ok(fetches.every((e) => e.apiVersion >= 13), 'topic ids');
  checkSession(fetches, afterWave, 'java');
  // The session was there while it consumed (closed or left behind by close(); never more than one).
  assert.ok(b.broker.replicaManager.fetchSessions.size <= sessionsBefore + 1);
});

test('max.incremental.fetch.session.cache.slots=0: no session, full fetches only, every record read', async () => {
  if (!existsSync(VENV_PYTHON)) return;
  const topic = 'fs-off';
  await fill(off, topic);
  const { fetches } = await consume(off, topic, 'fs-off', () =>
    child(VENV_PYTHON, ['-c', PY_CONSUMER, hostPort(off.port), topic, String(PARTITIONS), String(FIRST), String(TOTAL), 'fs-off']));
  assert.ok(fetches.length > 5);
  for (const e of fetches) {
    if (!e.response) continue;
    assert.is((e.response as { sessionId: number }).sessionId, 0);
    assert.ok((e.request as { sessionEpoch: number }).sessionEpoch <= 0, 'every request is a full one');
  }
  assert.is(off.broker.replicaManager.fetchSessions.size, 0);
});

test('the cache gauges count sessions and their partitions', async () => {
  const cache = b.broker.replicaManager.fetchSessions;
  const before = cache.size;
  const topic = 'fs-gauges';
  await b.broker.createTopic({ name: topic, numPartitions: 7, replicationFactor: 1, configs: {} });
  const { KafkaClient } = await import('../../src/cli/client.js');
  const client = await KafkaClient.connect({ bootstrap: hostPort(b.port) });
  try {
    const id = b.broker.metadataCache.topic(topic)!.topicId;
    const res = await client.send(1, 13, {
      clusterId: null, replicaId: -1, replicaState: null, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: 0, rackId: '', forgottenTopicsData: [],
      topics: [{ topic: '', topicId: id, partitions: Array.from({ length: 7 }, (_, partition) => ({ partition, currentLeaderEpoch: -1, fetchOffset: 0n, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1024, replicaDirectoryId: 'AAAAAAAAAAAAAAAAAAAAAA' })) }],
    } as never) as { sessionId: number };
    assert.ok(res.sessionId > 0);
    assert.is(cache.size, before + 1);
    assert.is(cache.get(res.sessionId)!.size, 7);
    // Closing it: epoch -1 with its id.
    await client.send(1, 13, { clusterId: null, replicaId: -1, replicaState: null, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: res.sessionId, sessionEpoch: -1, rackId: '', forgottenTopicsData: [], topics: [] } as never);
    assert.is(cache.size, before);
  } finally {
    client.close();
  }
});

test.run();
