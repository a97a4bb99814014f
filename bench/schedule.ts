/**
 * Scheduled delivery with a million pending records (issue 16): memory while they wait,
 * scheduler throughput (records delivered per second) and delivery lateness (p50/p99/max after
 * the due time). An in-process broker (tmpdir storage); the schedule topic (2 partitions, tick
 * 10 ms, default wheel capacity 262144 per partition, so most records are cold and re-read from
 * the log) is written straight into its partition logs; the records fall due uniformly over a
 * window. The target uses LogAppendTime, so each delivered batch carries the broker's append
 * time: lateness = append time − samsa-deliver-at. Prints figures only.
 *
 *   npx tsx --expose-gc bench/schedule.ts [records=1000000] [window seconds=10] [order=random|offset]
 *   (random: due order unrelated to offsets, the worst case; offset: due times rise with the
 *   offsets, as with a constant delay)
 *   (or: node --expose-gc --import tsx bench/schedule.ts)
 */
import { startBroker } from '../src/testing/start-broker.js';
import { buildRecordBatch, decodeRecordBatches, type RecordInput } from '../src/protocol/records/record.js';

const N = Number(process.argv[2] ?? 1_000_000);
const WINDOW_S = Number(process.argv[3] ?? 10);
const ORDER = process.argv[4] === 'offset' ? 'offset' : 'random';
const PARTITIONS = 2;
const PER_BATCH = 1000;

const gc = (globalThis as { gc?: () => void }).gc;
const heapMb = (): number => { gc?.(); return process.memoryUsage().heapUsed / 1e6; };
const rssMb = (): number => process.memoryUsage().rss / 1e6;
/** Typed arrays (the wheels) live outside the JS heap. */
const arrayBuffersMb = (): number => process.memoryUsage().arrayBuffers / 1e6;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const b = await startBroker({ port: 0, storage: 'tmpdir', logLevel: 'warn' });
  try {
    await b.broker.createTopic({ name: 'target', numPartitions: PARTITIONS, replicationFactor: 1, configs: { 'message.timestamp.type': 'LogAppendTime' } });
    await b.broker.createTopic({ name: 'timers', numPartitions: PARTITIONS, replicationFactor: 1, configs: { 'samsa.schedule.target': 'target', 'samsa.schedule.tick.ms': '10' } });
    const heap0 = heapMb();
    const ab0 = arrayBuffersMb();
    const value = Buffer.alloc(100, 'v');
    // Due times: uniform over the window, which opens once everything is written and scanned.
    const loadS = Math.max(8, Math.ceil(N / 100_000));
    const windowStart = Date.now() + loadS * 1000;
    const t0 = performance.now();
    for (let p = 0; p < PARTITIONS; p++) {
      const part = b.broker.replicaManager.getPartition('timers', p)!;
      for (let i = p; i < N; i += PARTITIONS * PER_BATCH) {
        const records: RecordInput[] = [];
        for (let j = i; j < Math.min(N, i + PARTITIONS * PER_BATCH); j += PARTITIONS) {
          // A permutation of the indices, so offsets and due times are unrelated.
          const rank = ORDER === 'offset' ? j : (j * 2654435761) % N;
          const at = windowStart + Math.floor((rank / N) * WINDOW_S * 1000);
          records.push({ key: Buffer.from(`k${j}`), value, headers: [{ key: 'samsa-deliver-at', value: Buffer.from(String(at)) }] });
        }
        await part.log.appendAsLeader(buildRecordBatch({ records }), part.leaderEpoch);
      }
    }
    console.log(`${N} records written to ${PARTITIONS} partitions in ${((performance.now() - t0) / 1000).toFixed(1)} s; due (${ORDER} order) over ${WINDOW_S} s from ${((windowStart - Date.now()) / 1000).toFixed(1)} s from now`);
    const schedulers = () => b.broker.scheduler!.schedulers;
    while (schedulers().length < PARTITIONS || schedulers().some((s) => s.scanned < N / PARTITIONS - 1)) await sleep(100);
    await sleep(200);
    const inWheel = schedulers().reduce((n, s) => n + s.inWheel, 0);
    const pending = schedulers().reduce((n, s) => n + s.pending, 0);
    console.log(`pending ${pending}: ${inWheel} in the wheels, ${pending - inWheel} cold (re-read from the log); JS heap +${(heapMb() - heap0).toFixed(0)} MB and array buffers +${(arrayBuffersMb() - ab0).toFixed(0)} MB over the idle broker (${heap0.toFixed(0)} MB heap), RSS ${rssMb().toFixed(0)} MB`);
    if (Date.now() > windowStart) console.log('warning: the window opened before the records were all scanned; raise the load time');
    let peakHeap = 0;
    const target = () => [0, 1].reduce((n, p) => n + b.broker.replicaManager.getPartition('target', p)!.log.logEndOffset, 0);
    while (target() < N) {
      await sleep(250);
      peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed / 1e6);
    }
    const done = Date.now();
    // Lateness from the target's batches (LogAppendTime = the broker's append time).
    const lateness = new Float64Array(N);
    let k = 0;
    let firstAppend = Infinity;
    for (let p = 0; p < PARTITIONS; p++) {
      const log = b.broker.replicaManager.getPartition('target', p)!.log;
      let offset = 0;
      while (offset < log.logEndOffset) {
        const r = await log.read(offset, 8 << 20, { minOneMessage: true, maxOffset: log.logEndOffset });
        for (const buf of r.records) {
          for (const batch of decodeRecordBatches(buf)) {
            const appended = Number(batch.maxTimestamp);
            firstAppend = Math.min(firstAppend, appended);
            for (const rec of batch.records) {
              const at = Number(rec.headers.find((h) => h.key === 'samsa-deliver-at')!.value!.toString());
              lateness[k++] = appended - at;
            }
            offset = Number(batch.baseOffset) + batch.lastOffsetDelta + 1;
          }
        }
      }
    }
    const sorted = lateness.subarray(0, k).sort();
    const q = (x: number) => sorted[Math.min(k - 1, Math.floor(x * k))];
    const span = (done - Math.max(firstAppend, windowStart)) / 1000;
    console.log(`delivered ${k} records (${schedulers().reduce((n, s) => n + s.delivered, 0)} counted by the schedulers, ${schedulers().reduce((n, s) => n + s.duplicatesSkipped, 0)} duplicates skipped)`);
    console.log(`throughput: ${(k / span).toFixed(0)} records/s over ${span.toFixed(1)} s (offered: ${(N / WINDOW_S).toFixed(0)} records/s due)`);
    console.log(`lateness after the due time: p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${sorted[k - 1]} ms, min ${sorted[0]} ms (never negative: not early)`);
    console.log(`heap peak during delivery ${peakHeap.toFixed(0)} MB, RSS ${rssMb().toFixed(0)} MB`);
  } finally {
    await b.stop();
  }
}

await main();
