/**
 * CoordinatorLeadership: shards follow the leadership of their partitions. Newly led partitions
 * load from their log, lost ones unload (NOT_COORDINATOR), and a partition led again at a new
 * epoch reloads what was written meanwhile; until loaded, COORDINATOR_LOAD_IN_PROGRESS.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/clock.js';
import { KafkaApiError } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { MemoryCoordinatorLog } from '../../src/coordinator/runtime/coordinator-log.js';
import { CoordinatorRuntime, type CoordinatorShard, type RecordSerde } from '../../src/coordinator/runtime/runtime.js';
import { CoordinatorLeadership } from '../../src/coordinator/runtime/coordinator-leadership.js';

class Counter implements CoordinatorShard<number> {
  total = 0;
  unloaded = false;
  replay(n: number): void { this.total += n; }
  onLoaded(): void {}
  onUnloaded(): void { this.unloaded = true; }
}

const serde: RecordSerde<number> = {
  serialize: (n) => ({ key: Buffer.from('k'), value: Buffer.from(String(n)) }),
  deserialize: (r) => (r.value === null ? null : Number(r.value.toString())),
};

function setup(awaiting: boolean[] = []) {
  const shards = new Map<number, Counter>();
  const rt = new CoordinatorRuntime<Counter, number>({
    name: 'test', clock: new ManualClock(), logger: createLogger('silent'), serde,
    newShard: (ctx) => {
      const s = new Counter();
      shards.set(ctx.partition, s);
      return s;
    },
  });
  const logs = [new MemoryCoordinatorLog(), new MemoryCoordinatorLog()];
  const led: (number | null)[] = [0, null];
  const leadership = new CoordinatorLeadership(rt, { ledEpoch: (p) => led[p], awaitingLeadership: (p) => awaiting[p] ?? false, log: (p) => logs[p] }, createLogger('silent'), 'test');
  return { rt, shards, logs, led, leadership };
}

function codeOf(fn: () => void): number {
  try {
    fn();
    return ErrorCode.NONE;
  } catch (err) {
    return err instanceof KafkaApiError ? err.errorCode : -1;
  }
}

test('only led partitions are loaded; the others answer NOT_COORDINATOR', async () => {
  const { rt, leadership } = setup();
  await leadership.start(2);
  assert.equal(rt.partitions, [0]);
  assert.is(codeOf(() => leadership.check(0)), ErrorCode.NONE);
  assert.is(codeOf(() => leadership.check(1)), ErrorCode.NOT_COORDINATOR);
});

test('elected: the shard loads from the log the follower kept; until then COORDINATOR_LOAD_IN_PROGRESS', async () => {
  const { rt, shards, logs, led, leadership } = setup();
  await leadership.start(2);
  await logs[1].append([serde.serialize(7)], 0);
  led[1] = 3;
  assert.is(codeOf(() => leadership.check(1)), ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, 'led but not loaded yet');
  await leadership.reconcile();
  assert.is(codeOf(() => leadership.check(1)), ErrorCode.NONE);
  assert.is(rt.loadedEpoch(1), 3);
  assert.is(shards.get(1)!.total, 7);
});

test('resigned: the shard unloads; led again at a new epoch it reloads what another leader wrote', async () => {
  const { rt, shards, logs, led, leadership } = setup();
  await leadership.start(2);
  await rt.schedule(0, () => ({ records: [1], response: () => undefined }));
  const first = shards.get(0)!;
  led[0] = null;
  await leadership.reconcile();
  assert.ok(first.unloaded, 'parked requests answered');
  assert.equal(rt.partitions, []);
  await rt.schedule(0, () => ({ records: [], response: () => undefined })).then(() => assert.unreachable(), (err) => assert.is(err.errorCode, ErrorCode.NOT_COORDINATOR));
  // Another broker led it and wrote 10; this one leads again at epoch 2.
  await logs[0].append([serde.serialize(10)], 0);
  led[0] = 2;
  await leadership.reconcile();
  assert.is(shards.get(0)!.total, 11);
  // Lost and regained between two passes (epoch 2 → 4): the stale shard is not used.
  await logs[0].append([serde.serialize(100)], 0);
  led[0] = 4;
  assert.is(codeOf(() => leadership.check(0)), ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
  await leadership.reconcile();
  assert.is(shards.get(0)!.total, 111);
});

test('named leader by this broker\'s metadata before its replica leads: COORDINATOR_LOAD_IN_PROGRESS, then served once it leads', async () => {
  // A partition just created: another broker's FindCoordinator already names this one, whose
  // replica manager has not made it leader yet. NOT_COORDINATOR here ended kafkajs's sendOffsets.
  const awaiting = [false, true];
  const { led, leadership } = setup(awaiting);
  await leadership.start(2);
  assert.is(codeOf(() => leadership.check(1)), ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, 'named here, not led yet');
  led[1] = 1;
  awaiting[1] = false;
  await leadership.reconcile();
  assert.is(codeOf(() => leadership.check(1)), ErrorCode.NONE);
  // Led elsewhere by this broker's metadata: NOT_COORDINATOR, as before.
  led[1] = null;
  await leadership.reconcile();
  assert.is(codeOf(() => leadership.check(1)), ErrorCode.NOT_COORDINATOR);
});

test.run();
