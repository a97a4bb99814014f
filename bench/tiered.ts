/**
 * Tiered storage figures (issue 25), one broker process (dist/samsa.js) and Versity's S3 gateway on
 * loopback, the same two cores:
 *
 *  1. upload: --mib MiB produced to a tiered topic with remote.log.copy.disable=true, then copying
 *     turned on: MiB/s until every closed segment is remote;
 *  2. consume: the same offsets read with Fetch (1 MiB per request, one partition) from local
 *     segments, then again after local.retention.bytes removed them (cold chunk cache, every byte
 *     a ranged GET), then once more (warm cache): MiB/s and the remote / local ratio;
 *  3. produce latency: 64 KiB acks=1 produce requests one after another for --seconds, with no
 *     upload running, and while a backlog of --mib MiB is being copied: p50 / p99 and the ratio;
 *  4. broker RSS after each phase.
 *
 *   npm run build && npx tsx bench/tiered.ts [--mib 256] [--seconds 8] [--chunk BYTES] [--cache BYTES] [--json docs/bench/tiered.json]
 *
 * No assertions: it prints what it measured (targets: remote reads >= 0.5x local; produce p99
 * under upload no more than 1.2x).
 */
import { writeFileSync } from 'node:fs';
import { KafkaClient } from '../src/cli/client.js';
import { buildRecordBatch } from '../src/protocol/records/record.js';
import { ErrorCode } from '../src/protocol/generated/error-codes.js';
import { defaultFetchRequest } from '../src/protocol/generated/messages/fetch-request.js';
import { startSamsa, median, percentile, sleep } from './lib/proc.js';
import { startVersitygw, S3_ACCESS_KEY, S3_SECRET_KEY } from '../test/support/versitygw.js';
import { ZERO_UUID } from '../src/protocol/reader.js';

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
}
const MIB = Number(arg('mib', '256'));
const SECONDS = Number(arg('seconds', '8'));
const JSON_OUT = arg('json', '');
const CHUNK = arg('chunk', '4194304');
const CACHE = arg('cache', '67108864');
const ROUNDS = Number(arg('rounds', '3'));
const SEGMENT = 16 * 1024 * 1024;
const BATCH_RECORDS = 64;
const RECORD = Buffer.alloc(1024, 'x');

const s3 = await startVersitygw();
const broker = await startSamsa({
  overrides: {
    'remote.log.storage.system.enable': 'true', 'remote.log.manager.task.interval.ms': '200', 'log.retention.check.interval.ms': '500',
    'log.segment.delete.delay.ms': '0', 'samsa.remote.s3.endpoint': s3.endpoint, 'samsa.remote.s3.bucket': 'bench',
    'samsa.remote.s3.access.key.id': S3_ACCESS_KEY, 'samsa.remote.s3.secret.access.key': S3_SECRET_KEY,
    'samsa.remote.fetch.chunk.bytes': CHUNK, 'samsa.remote.fetch.cache.bytes': CACHE,
  },
});
const client = await KafkaClient.connect({ bootstrap: `${broker.host}:${broker.port}` });
const out: Record<string, unknown> = { date: new Date().toISOString(), mib: MIB, segmentBytes: SEGMENT, chunkBytes: Number(CHUNK), cacheBytes: Number(CACHE) };

async function create(name: string, configs: Record<string, string>): Promise<void> {
  const r = await client.send(19, 5, { topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: Object.entries(configs).map(([n, v]) => ({ name: n, value: v })) }], timeoutMs: 30_000, validateOnly: false });
  if (r.topics[0].errorCode !== ErrorCode.NONE) throw new Error(`create ${name}: ${r.topics[0].errorMessage}`);
  await sleep(300);
}

async function alter(name: string, configs: Record<string, string>): Promise<void> {
  const r = await client.send(44, 1, { resources: [{ resourceType: 2, resourceName: name, configs: Object.entries(configs).map(([n, v]) => ({ name: n, configOperation: 0, value: v })) }], validateOnly: false });
  if (r.responses[0].errorCode !== ErrorCode.NONE) throw new Error(`alter ${name}: ${r.responses[0].errorMessage}`);
}

const batch = () => buildRecordBatch({ records: Array.from({ length: BATCH_RECORDS }, () => ({ key: null, value: RECORD })) });

async function produce(topic: string, bytes: number): Promise<number[]> {
  const lat: number[] = [];
  for (let sent = 0; sent < bytes;) {
    const b = batch();
    const t0 = performance.now();
    const r = await client.send(0, 9, { transactionalId: null, acks: 1, timeoutMs: 30_000, topicData: [{ name: topic, topicId: ZERO_UUID, partitionData: [{ index: 0, records: b }] }] });
    lat.push(performance.now() - t0);
    if (r.responses[0].partitionResponses[0].errorCode !== ErrorCode.NONE) throw new Error(`produce: ${r.responses[0].partitionResponses[0].errorCode}`);
    sent += b.length;
  }
  return lat;
}

async function produceFor(topic: string, ms: number): Promise<number[]> {
  const lat: number[] = [];
  const end = performance.now() + ms;
  while (performance.now() < end) lat.push(...(await produce(topic, 1)));
  return lat;
}

async function listOffset(topic: string, timestamp: bigint): Promise<number> {
  const r = await client.send(2, 9, { replicaId: -1, isolationLevel: 0, timeoutMs: 30_000, topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp}] }] });
  return Number(r.topics[0].partitions[0].offset);
}

/** Reads [0, end) with 1 MiB fetches; MiB/s. */
async function consume(topic: string, end: number): Promise<number> {
  let offset = 0;
  let bytes = 0;
  const t0 = performance.now();
  while (offset < end) {
    const req = { ...defaultFetchRequest(), maxWaitMs: 500, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
      topics: [{ topic, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: BigInt(offset), lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1 << 20, replicaDirectoryId: 'AAAAAAAAAAAAAAAAAAAAAA', highWatermark: 0x7fffffffffffffffn }] }] };
    const r = await client.send(1, 12, req as never);
    const p = r.responses[0].partitions[0];
    if (p.errorCode !== ErrorCode.NONE) throw new Error(`fetch at ${offset}: error ${p.errorCode}`);
    const recs = p.records as Buffer | null;
    if (!recs || recs.length === 0) continue;
    bytes += recs.length;
    // The next offset: after the last whole batch.
    let pos = 0;
    let next = offset;
    while (pos + 61 <= recs.length) {
      const size = 12 + recs.readInt32BE(pos + 8);
      if (pos + size > recs.length) break;
      next = Number(recs.readBigInt64BE(pos)) + recs.readInt32BE(pos + 23) + 1;
      pos += size;
    }
    offset = next;
  }
  return bytes / (1 << 20) / ((performance.now() - t0) / 1000);
}

async function until(what: string, cond: () => Promise<boolean>, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(100);
  }
}

try {
  // 1. Upload throughput.
  await create('tiered', { 'remote.storage.enable': 'true', 'segment.bytes': String(SEGMENT), 'remote.log.copy.disable': 'true' });
  await produce('tiered', MIB << 20);
  const end = await listOffset('tiered', -1n);
  const closedMiB = Math.floor((MIB << 20) / SEGMENT) * SEGMENT / (1 << 20);
  const t0 = performance.now();
  await alter('tiered', { 'remote.log.copy.disable': 'false' });
  // Done when the last tiered offset has been still for 2 s (a 16 MiB copy to loopback takes well under that).
  let last = -1;
  let changedAt = performance.now();
  await until('every closed segment remote', async () => {
    const now = await listOffset('tiered', -5n);
    if (now !== last) {
      last = now;
      changedAt = performance.now();
    }
    return last >= 0 && performance.now() - changedAt > 2000;
  });
  const copiedMiB = (last + 1) * (RECORD.length + 8) / (1 << 20);
  void end;
  const uploadS = (changedAt - t0) / 1000;
  out.uploadMiBps = closedMiB / uploadS;
  out.rssAfterUploadMiB = broker.rssMiB();
  console.log(`upload: ${closedMiB} MiB of closed segments (~${copiedMiB.toFixed(0)} MiB of records) in ${uploadS.toFixed(1)} s = ${(closedMiB / uploadS).toFixed(1)} MiB/s; broker RSS ${broker.rssMiB().toFixed(0)} MiB`);

  // 2. Consume: the same records from a topic kept local and from one whose local copies are gone,
  // alternated A B A B for ROUNDS rounds (medians); with more data than the chunk cache, every
  // remote round reads its bytes from the store again (LRU over a sequential scan).
  await create('kept-local', { 'remote.storage.enable': 'true', 'segment.bytes': String(SEGMENT) });
  await produce('kept-local', MIB << 20);
  const remoteEnd = await listOffset('tiered', -5n) + 1;
  await alter('tiered', { 'local.retention.bytes': '1' });
  await until('local segments gone', async () => (await listOffset('tiered', -4n)) >= remoteEnd - 1);
  const local: number[] = [];
  const remote: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    local.push(await consume('kept-local', remoteEnd));
    remote.push(await consume('tiered', remoteEnd));
  }
  const rssRemote = broker.rssMiB();
  const localMiBps = median(local);
  const remoteMiBps = median(remote);
  out.consume = { records: remoteEnd, localMiBps, remoteMiBps, ratio: remoteMiBps / localMiBps, local, remote, rssAfterRemoteMiB: rssRemote };
  console.log(`consume ${remoteEnd} records, ${ROUNDS} rounds A B: local ${localMiBps.toFixed(1)} MiB/s, remote ${remoteMiBps.toFixed(1)} MiB/s (${(remoteMiBps / localMiBps).toFixed(2)}x); broker RSS ${rssRemote.toFixed(0)} MiB`);

  // 3. Produce latency without and with an upload running.
  await create('plain', { 'segment.bytes': String(SEGMENT) });
  await create('backlog', { 'remote.storage.enable': 'true', 'segment.bytes': String(SEGMENT), 'remote.log.copy.disable': 'true' });
  await produce('backlog', MIB << 20);
  const quiet = await produceFor('plain', SECONDS * 1000);
  await alter('backlog', { 'remote.log.copy.disable': 'false' });
  const busy = await produceFor('plain', SECONDS * 1000);
  // A B again (the backlog is copied by now; a second backlog for the second busy round).
  await create('backlog2', { 'remote.storage.enable': 'true', 'segment.bytes': String(SEGMENT), 'remote.log.copy.disable': 'true' });
  await produce('backlog2', MIB << 20);
  quiet.push(...(await produceFor('plain', SECONDS * 1000)));
  await alter('backlog2', { 'remote.log.copy.disable': 'false' });
  busy.push(...(await produceFor('plain', SECONDS * 1000)));
  const q = { p50: percentile(quiet, 50), p99: percentile(quiet, 99) };
  const bz = { p50: percentile(busy, 50), p99: percentile(busy, 99) };
  out.produce = { quiet: q, duringUpload: bz, p99Ratio: bz.p99 / q.p99, requests: [quiet.length, busy.length] };
  console.log(`produce 64 KiB acks=1: alone p50 ${q.p50.toFixed(2)} ms p99 ${q.p99.toFixed(2)} ms; during an upload p50 ${bz.p50.toFixed(2)} ms p99 ${bz.p99.toFixed(2)} ms (p99 ${(bz.p99 / q.p99).toFixed(2)}x)`);
  out.cpuSeconds = broker.cpuSeconds();
  if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify(out, null, 2) + '\n');
} finally {
  client.close();
  await broker.stop();
  await s3.close();
}
