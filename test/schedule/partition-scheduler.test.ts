import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/clock.js';
import { PartitionScheduler, type PartitionSchedulerOptions } from '../../src/schedule/partition-scheduler.js';
import { murmur2 } from '../../src/protocol/murmur2.js';
import { buildRecordBatch } from '../../src/protocol/records/record.js';
import { MemCheckpoints, MemLog, MemSource, MemTarget, hdr } from './_mem.js';

const T0 = 1_700_000_000_000;

function setup(opts: Partial<PartitionSchedulerOptions> & { targets?: number; sources?: number } = {}) {
  const clock = new ManualClock(T0);
  const log = new MemLog();
  const source = new MemSource(log, opts.sources ?? 1);
  const target = new MemTarget(opts.targets ?? 1);
  const checkpoints = new MemCheckpoints();
  const make = () => new PartitionScheduler({ topic: 'sched', partition: 0, delayMs: 1000, tickMs: 100, clock, source, target, checkpoints, ...opts });
  return { clock, log, source, target, checkpoints, make };
}

async function runFor(s: PartitionScheduler, clock: ManualClock, ms: number, step = 50): Promise<void> {
  for (let t = 0; t < ms; t += step) {
    clock.advance(step);
    await s.runOnce();
  }
}

test('records are delivered at their header time or timestamp + delay, not before, once, with key, value, headers and timestamp', async () => {
  const { clock, log, target, make } = setup({ delayMs: 5000 });
  log.appendRecords([
    { key: Buffer.from('a'), value: Buffer.from('in 1 s'), timestamp: BigInt(T0), headers: [{ key: 'samsa-deliver-at', value: Buffer.from(String(T0 + 1000)) }, { key: 'x', value: Buffer.from('y') }] },
    { key: Buffer.from('b'), value: Buffer.from('in 5 s (delay)'), timestamp: BigInt(T0) },
    { key: null, value: Buffer.from('in 30 s'), timestamp: BigInt(T0), headers: [{ key: 'samsa-deliver-at', value: Buffer.from(String(T0 + 30_000)) }] },
    { key: Buffer.from('d'), value: Buffer.from('past'), timestamp: BigInt(T0 - 60_000) },
  ]);
  const s = make();
  await s.recover();
  const seenAt = new Map<string, number>();
  for (let i = 0; i < 700; i++) {
    await s.runOnce();
    for (const { r } of target.all()) if (!seenAt.has(r.value!.toString())) seenAt.set(r.value!.toString(), clock.now());
    clock.advance(50);
  }
  const due: Record<string, number> = { 'in 1 s': T0 + 1000, 'in 5 s (delay)': T0 + 5000, 'in 30 s': T0 + 30_000, past: T0 - 55_000 };
  for (const [v, d] of Object.entries(due)) {
    assert.ok(seenAt.get(v)! >= d, `${v} delivered before it was due`);
    assert.ok(seenAt.get(v)! <= Math.max(d, T0) + 200, `${v} delivered late: ${seenAt.get(v)! - d} ms`);
  }
  const out = target.all().map(({ r }) => r);
  assert.equal(out.map((r) => r.value!.toString()), ['past', 'in 1 s', 'in 5 s (delay)', 'in 30 s'], 'due-time order, each once');
  const first = out[1];
  assert.is(first.key!.toString(), 'a');
  assert.is(Number(first.timestamp), T0, 'original timestamp');
  assert.is(hdr(first, 'x'), 'y');
  assert.is(hdr(first, 'samsa-scheduled-from'), 'sched/0/0');
  assert.is(hdr(out[0], 'samsa-scheduled-from'), 'sched/0/3');
});

test('the target partition is the source index when the counts match, else the murmur2 hash of the key', async () => {
  const same = setup({ targets: 3, sources: 3 });
  const s1 = new PartitionScheduler({ topic: 'sched', partition: 2, delayMs: 0, tickMs: 100, clock: same.clock, source: same.source, target: same.target, checkpoints: same.checkpoints });
  same.log.appendRecords([{ key: Buffer.from('k1'), value: Buffer.from('v'), timestamp: BigInt(T0) }]);
  await s1.recover();
  await runFor(s1, same.clock, 300);
  assert.equal(same.target.all().map((x) => x.p), [2]);
  const other = setup({ targets: 5, sources: 2 });
  const keys = ['alpha', 'beta', 'gamma', 'delta'];
  other.log.appendRecords(keys.map((k) => ({ key: Buffer.from(k), value: Buffer.from(k), timestamp: BigInt(T0) })));
  const s2 = other.make();
  await s2.recover();
  await runFor(s2, other.clock, 1300);
  for (const { p, r } of other.target.all()) assert.is(p, (murmur2(r.key!) & 0x7fffffff) % 5, r.key!.toString());
  assert.is(other.target.all().length, 4);
});

test('a crash after some target appends and before the checkpoint delivers nothing twice and loses nothing', async () => {
  const { clock, log, target, checkpoints, make } = setup({ targets: 2, sources: 3, maxPerRound: 50 });
  const n = 400;
  for (let i = 0; i < n; i += 20) {
    log.appendRecords(Array.from({ length: 20 }, (_, j) => ({ key: Buffer.from(`key-${i + j}`), value: Buffer.from(String(i + j)), timestamp: BigInt(T0 + ((i + j) * 37) % 3000) })));
  }
  let s = make();
  await s.recover();
  await runFor(s, clock, 1500);
  const before = target.all().length;
  assert.ok(before > 0 && before < n, `some delivered before the crash (${before})`);
  // Crash: checkpoints fail from now on, and the broker dies in the middle of a round (after one partition's append).
  checkpoints.failSaves = true;
  let appends = 0;
  target.beforeAppend = () => { if (++appends === 2) throw new Error('SIGKILL'); };
  clock.advance(400);
  await s.runOnce().then(() => assert.unreachable('survived'), () => undefined);
  await s.runOnce().then(() => undefined, () => undefined);
  target.beforeAppend = null;
  checkpoints.failSaves = false;
  let skipped = 0;
  for (let round = 0; round < 3; round++) {
    s = make();
    await s.recover();
    await runFor(s, clock, 700);
    skipped += s.duplicatesSkipped;
  }
  await runFor(s, clock, 3000);
  const values = target.all().map(({ r }) => Number(r.value!.toString()));
  assert.is(values.length, n, 'every record exactly once');
  assert.is(new Set(values).size, n);
  assert.ok(skipped > 0, 'the half-done round was found in the target and not written again');
});

test('without a checkpoint the target is reconciled from its log start', async () => {
  const { clock, log, target, checkpoints, make } = setup();
  log.appendRecords([0, 1, 2].map((i) => ({ key: null, value: Buffer.from(String(i)), timestamp: BigInt(T0 - 5000) })));
  let s = make();
  await s.recover();
  await runFor(s, clock, 200);
  assert.is(target.all().length, 3);
  checkpoints.saved = null;
  s = make();
  await s.recover();
  await runFor(s, clock, 500);
  assert.is(target.all().length, 3, 'a new leader without the checkpoint finds the deliveries in the target');
});

test('with more pending records than the wheel holds, memory stays bounded and all arrive in due order', async () => {
  const { clock, log, target, make } = setup({ wheelCapacity: 200, chunkSize: 256, maxPerRound: 1000 });
  const n = 5000;
  const dues: number[] = [];
  for (let i = 0; i < n; i += 100) {
    log.appendRecords(Array.from({ length: 100 }, (_, j) => {
      const due = T0 + 1000 + (((i + j) * 7919) % 20_000);
      dues.push(due);
      return { key: null, value: Buffer.from(String(i + j)), timestamp: BigInt(T0), headers: [{ key: 'samsa-deliver-at', value: Buffer.from(String(due)) }] };
    }));
  }
  const s = make();
  await s.recover();
  let maxInWheel = 0;
  for (let t = 0; t < 25_000; t += 100) {
    clock.advance(100);
    await s.runOnce();
    maxInWheel = Math.max(maxInWheel, s.inWheel);
    for (const { r } of target.all().slice(-5)) assert.ok(Number(hdr(r, 'samsa-deliver-at')) <= clock.now(), 'not before due');
  }
  assert.ok(maxInWheel <= 200, `wheel held ${maxInWheel}`);
  const got = target.all().map(({ r }) => Number(hdr(r, 'samsa-deliver-at')));
  assert.is(got.length, n);
  for (let i = 1; i < got.length; i++) assert.ok(got[i] >= got[i - 1] || got[i - 1] - got[i] < 100, `order at ${i}: ${got[i - 1]} then ${got[i]}`);
  assert.is(s.pending, 0);
});

test('records of aborted transactions and control batches are not delivered', async () => {
  const { clock, log, source, target, make } = setup({ delayMs: 0 });
  const txn = (pid: bigint, v: string) => log.append(buildRecordBatch({ transactional: true, producerId: pid, producerEpoch: 0, baseSequence: 0, records: [{ key: null, value: Buffer.from(v), timestamp: BigInt(T0) }] }));
  const marker = (pid: bigint, commit: boolean) => log.append(buildRecordBatch({ control: true, transactional: true, producerId: pid, producerEpoch: 0, records: [{ key: Buffer.from([0, 0, 0, commit ? 1 : 0]), value: Buffer.from([0, 0, 0, 0, 0, 0]), timestamp: BigInt(T0) }] }));
  txn(1n, 'committed');
  const abortedAt = txn(2n, 'aborted');
  marker(1n, true);
  marker(2n, false);
  log.appendRecords([{ key: null, value: Buffer.from('plain'), timestamp: BigInt(T0) }]);
  source.aborted = [{ producerId: 2, firstOffset: abortedAt, lastOffset: abortedAt + 2 }];
  const s = make();
  await s.recover();
  await runFor(s, clock, 300);
  assert.equal(target.all().map(({ r }) => r.value!.toString()), ['committed', 'plain']);
});

test('pending counts by due minute', async () => {
  const { log, make } = setup({ wheelCapacity: 2 });
  log.appendRecords([60_000, 61_000, 180_000, 190_000, 200_000].map((d) => ({ key: null, value: null, timestamp: BigInt(T0), headers: [{ key: 'samsa-deliver-at', value: Buffer.from(String(T0 - (T0 % 60_000) + d)) }] })));
  const s = make();
  await s.recover();
  await s.runOnce();
  const m = await s.pendingByMinute();
  const base = T0 - (T0 % 60_000);
  assert.equal([...m].sort((a, b) => a[0] - b[0]), [[base + 60_000, 2], [base + 180_000, 3]]);
});

test.run();
