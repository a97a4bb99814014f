/**
 * Follower fetch sessions (KIP-227) between three broker processes (etcd, test/support/cluster.ts),
 * seen through each broker's test control over HTTP (`--control`: every Fetch recorded) and its
 * /metrics. A topic of 30 partitions, replication factor 3, min.insync.replicas 2, written with
 * acks=all:
 * - every replica ends with every record (log end offsets and high watermarks equal everywhere);
 * - each follower opens one session with each leader with a full fetch (epoch 0) and then fetches
 *   incrementally: epochs in order, idle fetches naming no partition and answered with none,
 *   requests naming far fewer partitions than the follower takes from that leader;
 * - the leaders keep one privileged session per follower, 60 partitions in all (30 × 2 followers),
 *   as NumIncrementalFetchSessions / NumIncrementalFetchPartitionsCached show;
 * - a broker killed and started again fetches with a full fetch first (its sessions are gone), then
 *   incrementally, and catches up: every replica equal again, the ISR full.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { freePort } from '../support/net.js';
import { parsePrometheusText, valueOr0, type Family } from '../support/prom-text.js';

const { Kafka, logLevel } = kafkajs;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`fetch-sessions: etcd is required under CI: ${missing}`);

const TOPIC = 'fsc';
const PARTITIONS = 30;
const IDS = [1, 2, 3];
let c: TestCluster | null = null;
const httpPorts = new Map<number, number>();
const recordings = new Map<number, number>();

const url = (id: number, path: string) => `http://127.0.0.1:${httpPorts.get(id)}${path}`;

async function scrape(id: number): Promise<Map<string, Family>> {
  const res = await fetch(url(id, '/metrics'));
  assert.is(res.status, 200);
  return parsePrometheusText(await res.text());
}

function sum(f: Map<string, Family>, name: string, topic?: string): number[] {
  return (f.get(name)?.samples ?? []).filter((s) => topic === undefined || s.labels.topic === topic).map((s) => s.value);
}

/** Polls until `ok` holds for the metrics of every broker. */
async function until(ok: (all: Map<number, Map<string, Family>>) => boolean, what: string, timeoutMs = 60_000): Promise<Map<number, Map<string, Family>>> {
  const deadline = Date.now() + timeoutMs;
  let last = new Map<number, Map<string, Family>>();
  while (Date.now() < deadline) {
    last = new Map(await Promise.all(IDS.filter((id) => c!.broker(id).child).map(async (id) => [id, await scrape(id)] as const)));
    if (ok(last)) return last;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what}: not reached in ${timeoutMs} ms`);
}

/** Every replica of the topic at `end` records per partition, high watermarks too, the ISR full. */
function replicated(end: number) {
  return (all: Map<number, Map<string, Family>>) => all.size === IDS.length && [...all.values()].every((f) => {
    const leo = sum(f, 'kafka_log_log_logendoffset', TOPIC);
    const hw = sum(f, 'kafka_log_log_highwatermark', TOPIC);
    return leo.length === PARTITIONS && leo.every((v) => v === end) && hw.every((v) => v === end) && valueOr0(f, 'kafka_server_replicamanager_underreplicatedpartitions') === 0;
  });
}

interface Exchange {
  request: { replicaState: { replicaId: number } | null; sessionId: number; sessionEpoch: number; topics: { partitions: unknown[] }[]; forgottenTopicsData: unknown[] };
  response?: { errorCode: number; sessionId: number; responses: { partitions: unknown[] }[] };
}

async function startRecording(id: number): Promise<void> {
  const res = await fetch(url(id, '/control/record'), { method: 'POST', body: JSON.stringify({ apis: ['Fetch'] }), headers: { 'content-type': 'application/json' } });
  assert.is(res.status, 200);
  recordings.set(id, ((await res.json()) as { id: number }).id);
}

/** The follower fetches broker `id` has answered since its recording started, by follower. */
async function followerFetches(id: number): Promise<Map<number, Exchange[]>> {
  const res = await fetch(url(id, `/control/recordings/${recordings.get(id)}`));
  const { exchanges } = (await res.json()) as { exchanges: Exchange[] };
  const out = new Map<number, Exchange[]>();
  for (const e of exchanges) {
    const follower = e.request.replicaState?.replicaId ?? -1;
    if (follower < 0 || !e.response) continue;
    if (!out.has(follower)) out.set(follower, []);
    out.get(follower)!.push(e);
  }
  return out;
}

const named = (e: Exchange) => e.request.topics.reduce((n, t) => n + t.partitions.length, 0);
const answered = (e: Exchange) => e.response!.responses.reduce((n, t) => n + t.partitions.length, 0);

async function produce(from: number, n: number): Promise<void> {
  const kafka = new Kafka({ clientId: 'fsc-producer', brokers: c!.bootstrapList, logLevel: logLevel.NOTHING, retry: { retries: 20, initialRetryTime: 100 } });
  const producer = kafka.producer();
  await producer.connect();
  try {
    for (let i = from; i < from + n; i++) {
      await producer.send({ topic: TOPIC, acks: -1, messages: Array.from({ length: PARTITIONS }, (_, partition) => ({ partition, value: `${partition}-${i}` })) });
    }
  } finally {
    await producer.disconnect();
  }
}

test.before(async () => {
  if (missing) return;
  for (const id of IDS) httpPorts.set(id, await freePort());
  c = await startCluster({
    brokers: 3, args: ['--control'],
    config: { 'default.replication.factor': 3, 'min.insync.replicas': 2, 'replica.fetch.wait.max.ms': 200, 'replica.fetch.backoff.ms': 100, 'replica.lag.time.max.ms': 5000 },
    brokerConfig: (id) => ({ 'samsa.http.listeners': `http://127.0.0.1:${httpPorts.get(id)}` }),
  });
});

test.after(async () => {
  await c?.cleanup();
});

test('followers fetch in sessions: one full fetch per leader, then incremental ones; every record on every replica', async () => {
  if (missing) return;
  for (const id of IDS) await startRecording(id);
  const kafka = new Kafka({ clientId: 'fsc-admin', brokers: c!.bootstrapList, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS, replicationFactor: 3 }], waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
  await produce(0, 20);
  await until(replicated(20), 'every replica at 20 records per partition');
  // A moment of idling: the followers' fetches then name nothing and get nothing.
  await new Promise((r) => setTimeout(r, 1500));
  const all = await until((m) => {
    let sessions = 0, partitions = 0;
    for (const f of m.values()) {
      sessions += valueOr0(f, 'kafka_server_fetchsessioncache_numincrementalfetchsessions');
      partitions += valueOr0(f, 'kafka_server_fetchsessioncache_numincrementalfetchpartitionscached');
    }
    return sessions === 6 && partitions === PARTITIONS * 2;
  }, 'one session per follower and leader, 60 partitions cached');
  assert.is(all.size, 3);
  for (const leader of IDS) {
    const byFollower = await followerFetches(leader);
    for (const [follower, fetches] of byFollower) {
      const who = `follower ${follower} of leader ${leader}`;
      const full = fetches.filter((e) => e.request.sessionEpoch <= 0);
      assert.ok(full.length >= 1 && full.length <= 3, `${who}: ${full.length} full fetches`);
      assert.equal([fetches[0].request.sessionId, fetches[0].request.sessionEpoch], [0, 0], `${who}: the first fetch asks for a session`);
      const inc = fetches.filter((e) => e.request.sessionEpoch > 0);
      assert.ok(inc.length >= 5, `${who}: ${inc.length} incremental fetches`);
      for (const e of inc) assert.equal([e.response!.errorCode, e.response!.sessionId], [0, e.request.sessionId], `${who}: epoch ${e.request.sessionEpoch} answered in its session`);
      // Epochs follow each other within a session.
      for (let i = 1; i < fetches.length; i++) {
        const a = fetches[i - 1].request, b = fetches[i].request;
        if (b.sessionEpoch > 1 && a.sessionId === b.sessionId) assert.is(b.sessionEpoch, a.sessionEpoch + 1, `${who}: epochs in order`);
      }
      const idle = inc.filter((e) => named(e) === 0 && answered(e) === 0);
      assert.ok(idle.length > 0, `${who}: idle incremental fetches name and get nothing`);
      // The partitions this follower takes from this leader (they may join the session one by one).
      const taken = new Set(fetches.flatMap((e) => e.request.topics.flatMap((t) => (t.partitions as { partition: number }[]).map((p) => p.partition))));
      const avg = inc.reduce((n, e) => n + named(e), 0) / inc.length;
      console.log(`${who}: ${fetches.length} fetches (${full.length} full), ${taken.size} partitions in the session, incremental requests name ${avg.toFixed(1)} on average, ${idle.length} idle`);
      assert.ok(avg < taken.size, `${who}: incremental requests name fewer partitions than the session holds`);
    }
    assert.is(byFollower.size, 2, `leader ${leader} is fetched from by both others`);
  }
});

test('a broker killed and started again: a full fetch first, then incremental ones; all replicas equal again', async () => {
  if (missing) return;
  await c!.kill(1);
  await produce(20, 5);
  for (const id of [2, 3]) await startRecording(id);
  await c!.start(1);
  await produce(25, 5);
  await until(replicated(30), 'every replica at 30 records per partition after the restart', 90_000);
  for (const leader of [2, 3]) {
    const fetches = (await followerFetches(leader)).get(1) ?? [];
    if (fetches.length === 0) continue; // broker 1 may lead everything it holds (it did not, in practice)
    assert.equal([fetches[0].request.sessionId, fetches[0].request.sessionEpoch], [0, 0], `broker 1's first fetch from ${leader} after its restart is a new session`);
    assert.ok(fetches.some((e) => e.request.sessionEpoch > 0), `broker 1 fetches from ${leader} incrementally`);
  }
});

test.run();
