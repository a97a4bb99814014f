/**
 * The coordinator runtime: one operation at a time per shard, records appended then replayed,
 * append failures, keyed timers (replace, cancel, cancel-after-fire), loading = replay.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/clock.js';
import { KafkaApiError } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { MemoryCoordinatorLog } from '../../src/coordinator/runtime/coordinator-log.js';
import { CoordinatorRuntime, type CoordinatorShard, type RecordSerde, type ShardContext } from '../../src/coordinator/runtime/runtime.js';
import { SerialQueue } from '../../src/coordinator/runtime/serial-queue.js';

/** A counter shard: records are numbers added to the total. */
class Counter implements CoordinatorShard<number> {
  total = 0;
  loaded = false;
  unloaded = false;
  constructor(readonly ctx: ShardContext<number>) {}
  replay(n: number): void { this.total += n; }
  onLoaded(): void { this.loaded = true; }
  onUnloaded(): void { this.unloaded = true; }
}

const serde: RecordSerde<number> = {
  serialize: (n) => ({ key: Buffer.from('k'), value: Buffer.from(String(n)) }),
  deserialize: (r) => (r.value === null ? null : Number(r.value.toString())),
};

function runtime(clock = new ManualClock()) {
  let shard!: Counter;
  const rt = new CoordinatorRuntime<Counter, number>({
    name: 'test', clock, logger: createLogger('silent'), serde,
    newShard: (ctx) => (shard = new Counter(ctx)),
  });
  return { rt, clock, shard: () => shard };
}

test('SerialQueue runs tasks one at a time, in order, whatever their outcome', async () => {
  const q = new SerialQueue();
  const order: string[] = [];
  const slow = q.run(async () => { order.push('a-start'); await new Promise((r) => setTimeout(r, 10)); order.push('a-end'); });
  const failing = q.run(() => { order.push('b'); throw new Error('b'); });
  const c = q.run(() => { order.push('c'); return 3; });
  await slow;
  await failing.catch(() => {});
  assert.is(await c, 3);
  assert.equal(order, ['a-start', 'a-end', 'b', 'c']);
  await q.idle();
  assert.is(q.size, 0);
});

test('records are appended, then replayed, then the response is built; loading replays the log', async () => {
  const { rt, shard } = runtime();
  const log = new MemoryCoordinatorLog();
  await rt.load(0, log);
  assert.ok(shard().loaded);
  const seen = await rt.schedule(0, (s) => ({ records: [2, 3], response: () => s.total }));
  assert.is(seen, 5, 'response sees the replayed state');
  assert.is(log.records.length, 2);
  const again = runtime();
  await again.rt.load(0, log);
  assert.is(again.shard().total, 5);
});

test('an append failure replays nothing and answers the mapped error (or onAppendError)', async () => {
  const { rt, shard } = runtime();
  const log = new MemoryCoordinatorLog();
  await rt.load(0, log);
  log.failNextAppend = new KafkaApiError(ErrorCode.NOT_LEADER_OR_FOLLOWER);
  try {
    await rt.schedule(0, () => ({ records: [1], response: () => 'ok' }));
    assert.unreachable();
  } catch (err) {
    assert.is((err as KafkaApiError).errorCode, ErrorCode.NOT_COORDINATOR);
  }
  log.failNextAppend = new KafkaApiError(ErrorCode.NOT_ENOUGH_REPLICAS);
  const r = await rt.schedule(0, () => ({ records: [1], response: () => 'ok', onAppendError: (code) => `failed ${code}` }));
  assert.is(r, `failed ${ErrorCode.COORDINATOR_NOT_AVAILABLE}`);
  assert.is(shard().total, 0);
});

test('operations on an unknown or closed shard are NOT_COORDINATOR; close unloads', async () => {
  const { rt, shard } = runtime();
  await rt.load(0, new MemoryCoordinatorLog());
  await rt.schedule(1, () => ({ records: [], response: () => 1 })).then(() => assert.unreachable(), (err) => assert.is(err.errorCode, ErrorCode.NOT_COORDINATOR));
  await rt.close();
  assert.ok(shard().unloaded);
  await rt.schedule(0, () => ({ records: [], response: () => 1 })).then(() => assert.unreachable(), (err) => assert.is(err.errorCode, ErrorCode.NOT_COORDINATOR));
});

test('timers: keyed replacement, cancel, and cancel after firing but before running', async () => {
  const { rt, clock, shard } = runtime();
  await rt.load(0, new MemoryCoordinatorLog());
  const ctx = shard().ctx;
  const fire = (n: number) => () => ({ records: [n], response: () => undefined });
  ctx.schedule('a', 100, fire(1));
  ctx.schedule('a', 200, fire(10)); // replaces the first
  ctx.schedule('b', 50, fire(100));
  ctx.cancel('b');
  clock.advance(150);
  await rt.idle();
  assert.is(shard().total, 0);
  clock.advance(50);
  await rt.idle();
  assert.is(shard().total, 10);
  assert.not.ok(ctx.isScheduled('a'));
  // Fired, queued behind a slow operation, then cancelled: does nothing.
  let release!: () => void;
  const blocker = rt.schedule(0, () => ({ records: [], response: () => undefined }));
  void rt.schedule(0, () => ({ records: [], response: () => undefined }));
  ctx.schedule('c', 10, fire(1000));
  const gate = new Promise<void>((r) => { release = r; });
  const slow = (rt as unknown as { shards: Map<number, { queue: SerialQueue }> }).shards.get(0)!.queue.run(() => gate);
  clock.advance(10);
  ctx.cancel('c');
  release();
  await Promise.all([blocker, slow]);
  await rt.idle();
  assert.is(shard().total, 10);
});

test.run();
