/**
 * Issue 23 item 8: SIGTERM stops a broker that cannot reach etcd within
 * samsa.controlled.shutdown.timeout.ms, with its data flushed.
 *
 * Three broker processes, replication factor 3, acks=all records written; then etcd goes away.
 * Broker 1 (a session of 30 s) gets SIGTERM at once: it is still registered, but its controlled
 * shutdown can be neither recorded nor answered. Brokers 2 and 3 (sessions of 2 s) get it once
 * their sessions have run out and they are retrying their registration: there is no controlled
 * shutdown to wait for. Each must exit 0 within the timeout plus a margin for the process itself
 * (a correctness bound, not a benchmark), leaving `.kafka_cleanshutdown` and every acknowledged
 * record in its log files. Two ways of going away: etcd paused (SIGSTOP: connections stay open,
 * nothing is answered; before the fix every broker hung in closing its metadata watch) and etcd
 * killed (connections refused; before the fix a broker without a registration still waited the
 * whole timeout for leaderships that could not move).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { buildRecordBatch } from '../../src/protocol/records/record.js';
import { baseOffset, batchSize, lastOffsetDelta } from '../../src/protocol/records/record-batch.js';
import { ZERO_UUID } from '../../src/protocol/reader.js';

const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`stop-without-etcd: etcd is required under CI: ${missing}`);

const TOPIC = 'kept';
let c: TestCluster | null = null;

test.after.each(async () => {
  c?.etcd.resume();
  await c?.cleanup();
  c = null;
});

/** The last offset + 1 of the batches in the partition's log files on one broker. */
function logEndOnDisk(logDir: string, partition: number): number {
  const dir = join(logDir, `${TOPIC}-${partition}`);
  const bytes = Buffer.concat(readdirSync(dir).filter((f) => f.endsWith('.log')).sort().map((f) => readFileSync(join(dir, f))));
  let end = 0;
  for (let pos = 0; pos + 61 <= bytes.length; pos += batchSize(bytes, pos)) end = baseOffset(bytes, pos) + lastOffsetDelta(bytes, pos) + 1;
  return end;
}

/** SIGTERM, then how long until the process exited and with what (SIGKILL after `killAfterMs`). */
function terminate(child: ChildProcess, killAfterMs: number): Promise<{ ms: number; code: number | null; signal: string | null }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const t = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.once('exit', (code, signal) => {
      clearTimeout(t);
      resolve({ ms: Date.now() - started, code, signal });
    });
    child.kill('SIGTERM');
  });
}

/**
 * A cluster with `timeoutMs` as the controlled-shutdown timeout and acknowledged records, etcd
 * taken away by `fault`, SIGTERM to broker 1 at once and to 2 and 3 once their sessions have run
 * out. Returns how long each took to exit after its SIGTERM, after checking the exit status and
 * what each left on disk.
 */
async function stopWithoutEtcd(fault: 'pause' | 'kill', timeoutMs: number): Promise<number[]> {
  c = await startCluster({
    brokers: 3,
    config: { 'samsa.controlled.shutdown.timeout.ms': timeoutMs, 'default.replication.factor': 3, 'min.insync.replicas': 2 },
    // Broker 1 stays registered (in its own view) through the whole stop.
    brokerConfig: (id): Record<string, number> => (id === 1 ? { 'broker.session.timeout.ms': 30_000, 'broker.heartbeat.interval.ms': 1000 } : {}),
  });
  const admin = await c.client(1);
  const created = await admin.send(19, 7, {
    topics: [{ name: TOPIC, numPartitions: 3, replicationFactor: 3, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false,
  });
  assert.is(created.topics[0].errorCode, ErrorCode.NONE);
  const m = await c.waitForMetadata(1, (x) => {
    const t = x.topics.find((y) => y.name === TOPIC);
    return t?.partitions.length === 3 && t.partitions.every((p) => p.leaderId > 0 && p.isrNodes.length === 3);
  }, 'kept in sync');
  const acked = new Map<number, number>();
  // A leader may still move while the cluster settles (a loaded machine): a write answered
  // NOT_LEADER_OR_FOLLOWER or NOT_ENOUGH_REPLICAS is sent again to the leader of the moment.
  const retriable: number[] = [ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND, ErrorCode.REQUEST_TIMED_OUT];
  for (const p of m.topics.find((y) => y.name === TOPIC)!.partitions) {
    for (let i = 0; i < 5; i++) {
      let code: number = ErrorCode.UNKNOWN_SERVER_ERROR;
      for (let attempt = 0; attempt < 20; attempt++) {
        const now = await c.metadata(1, [TOPIC]);
        const leader = now.topics.find((y) => y.name === TOPIC)!.partitions.find((x) => x.partitionIndex === p.partitionIndex)!.leaderId;
        const cl = await c.client(leader > 0 ? leader : p.leaderId);
        const r = await cl.send(0, 9, {
          transactionalId: null, acks: -1, timeoutMs: 10_000,
          topicData: [{ name: TOPIC, topicId: ZERO_UUID, partitionData: [{ index: p.partitionIndex, records: buildRecordBatch({ records: [{ key: null, value: Buffer.from(`r${i}`) }] }) }] }],
        });
        const pr = r.responses[0].partitionResponses[0];
        code = pr.errorCode;
        if (code === ErrorCode.NONE) {
          acked.set(p.partitionIndex, Number(pr.baseOffset) + 1);
          break;
        }
        if (!retriable.includes(code)) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      assert.is(code, ErrorCode.NONE);
    }
  }

  if (fault === 'pause') c.etcd.pause();
  else await c.etcd.kill();
  const killAfter = timeoutMs + 30_000;
  const first = terminate(c.broker(1).child!, killAfter);
  // Brokers 2 and 3 lose their 2 s sessions: they are retrying their registration when told to stop.
  await new Promise((r) => setTimeout(r, 4000));
  const rest = [2, 3].map((id) => terminate(c!.broker(id).child!, killAfter));
  const results = await Promise.all([first, ...rest]);
  console.log(`etcd ${fault === 'pause' ? 'paused' : 'killed'}: brokers exited ${results.map((r) => r.ms).join(', ')} ms after SIGTERM (timeout ${timeoutMs} ms)`);
  results.forEach((r, i) => {
    assert.ok(r.code === 0, `broker ${i + 1} exited with ${r.code ?? r.signal} after ${r.ms} ms:\n${c!.broker(i + 1).output().slice(-3000)}`);
  });
  for (const b of c.brokers) {
    assert.ok(existsSync(join(b.logDir, '.kafka_cleanshutdown')), `broker ${b.nodeId} left .kafka_cleanshutdown`);
    for (const [partition, end] of acked) {
      assert.ok(logEndOnDisk(b.logDir, partition) >= end, `broker ${b.nodeId} holds the ${end} acknowledged records of ${TOPIC}-${partition}`);
    }
  }
  return results.map((r) => r.ms);
}

test('etcd paused: SIGTERM ends every broker within the controlled-shutdown timeout, its records flushed', async () => {
  if (missing) return console.log('stop-without-etcd: skipped:', missing);
  const timeoutMs = 6000;
  const times = await stopWithoutEtcd('pause', timeoutMs);
  times.forEach((ms, i) => assert.ok(ms <= timeoutMs + 10_000, `broker ${i + 1} exited ${ms} ms after SIGTERM (timeout ${timeoutMs} ms)`));
});

test('etcd killed: a broker without a registration does not wait the timeout; none outlives it', async () => {
  if (missing) return;
  const timeoutMs = 30_000;
  const times = await stopWithoutEtcd('kill', timeoutMs);
  times.forEach((ms, i) => assert.ok(ms <= timeoutMs + 10_000, `broker ${i + 1} exited ${ms} ms after SIGTERM (timeout ${timeoutMs} ms)`));
  // No controlled shutdown can happen without etcd: waiting for one is waiting for nothing.
  for (const i of [1, 2]) assert.ok(times[i] < 10_000, `broker ${i + 1}, its registration lost, exited ${times[i]} ms after SIGTERM`);
});

test.run();
