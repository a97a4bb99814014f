/**
 * The coordinator runtime: replayable state machines, one per partition of an internal topic.
 *
 * - Each partition is a *shard*: its state, a serial queue and its timers. Every operation, and
 *   every timer callback, runs through the shard's queue, one at a time.
 * - An operation returns `{ records, response }`. The runtime appends the records to the shard's
 *   log, then replays each one (`shard.replay`), then builds the answer (`response()`), all inside
 *   the queue. When the append fails nothing is replayed and `onAppendError` decides the answer.
 * - Loading a shard is reading its log from the start and replaying every record: the same
 *   `replay` path as live writes, followed by `onLoaded()` (which arms timers).
 * - Timers are keyed; scheduling a key replaces the previous timer of that key, and a timer
 *   cancelled after it fired but before its operation ran does nothing.
 *
 * Kafka's counterpart is `coordinator-common`'s CoordinatorRuntime (one event loop per
 * partition, CoordinatorResult, CoordinatorTimer).
 */
import { KafkaApiError } from '../../errors.js';
import type { Clock, Timer } from '../../clock.js';
import type { Logger } from '../../logger.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { CoordinatorLog, LogRecord, TxnProducer } from './coordinator-log.js';
import { SerialQueue } from './serial-queue.js';

export interface CoordinatorResult<T, R> {
  /** Records to append and then replay, in order. */
  records: R[];
  /** The answer, built after the records are appended and replayed. */
  response: () => T;
  /** The answer when the append failed (nothing was replayed); default: throw the mapped error. */
  onAppendError?: (errorCode: number) => T;
  /** The records are a transaction's (TxnOffsetCommit): written as its transactional batch. */
  transactional?: TxnProducer;
}

/** A result without records. */
export function answer<T, R>(value: T): CoordinatorResult<T, R> {
  return { records: [], response: () => value };
}

export interface RecordSerde<R> {
  serialize(record: R): LogRecord;
  /** null for records this coordinator does not know (skipped on load). */
  deserialize(record: LogRecord): R | null;
}

export interface CoordinatorShard<R> {
  /**
   * Applies one record to the state; the only way durable state changes. `txn`: the record is
   * part of that producer's transaction, pending until `replayEndTransaction`. `offset`: the
   * record's offset in the log, when the log knows it.
   */
  replay(record: R, txn?: TxnProducer, offset?: number): void;
  /** A COMMIT or ABORT marker of `producerId` in the shard's log. */
  replayEndTransaction?(producerId: number, commit: boolean): void;
  /** After loading: arm timers for what was loaded. */
  onLoaded(): void;
  /** The shard is going away: answer every parked request. */
  onUnloaded(): void;
}

/** What a shard may ask of the runtime. */
export interface ShardContext<R> {
  readonly partition: number;
  readonly logger: Logger;
  now(): number;
  /** Runs `op` through the queue after `delayMs`, replacing any timer with this key. */
  schedule(key: string, delayMs: number, op: () => CoordinatorResult<void, R>): void;
  cancel(key: string): void;
  isScheduled(key: string): boolean;
}

type ShardStatus = 'loading' | 'active' | 'closed';

interface TimerEntry {
  handle: Timer;
}

class ShardRuntime<S extends CoordinatorShard<R>, R> {
  readonly queue = new SerialQueue();
  readonly timers = new Map<string, TimerEntry>();
  status: ShardStatus = 'loading';
  shard!: S;
  /** The leader epoch of the internal partition this shard was loaded at (0 outside a cluster). */
  epoch = 0;

  constructor(readonly partition: number, readonly log: CoordinatorLog) {}
}

export interface RuntimeOptions<S extends CoordinatorShard<R>, R> {
  name: string;
  clock: Clock;
  logger: Logger;
  serde: RecordSerde<R>;
  newShard(ctx: ShardContext<R>): S;
}

/** Kafka's mapping of append failures to coordinator errors (appendGroupMetadataErrorToResponseError). */
export function appendErrorCode(err: unknown): number {
  const code = err instanceof KafkaApiError ? err.errorCode : ErrorCode.UNKNOWN_SERVER_ERROR;
  switch (code) {
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case ErrorCode.REQUEST_TIMED_OUT:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.KAFKA_STORAGE_ERROR:
      return ErrorCode.NOT_COORDINATOR;
    case ErrorCode.MESSAGE_TOO_LARGE:
    case ErrorCode.RECORD_LIST_TOO_LARGE:
    case ErrorCode.INVALID_FETCH_SIZE:
      return ErrorCode.UNKNOWN_SERVER_ERROR;
    default:
      return code;
  }
}

export class CoordinatorRuntime<S extends CoordinatorShard<R>, R> {
  private readonly shards = new Map<number, ShardRuntime<S, R>>();

  constructor(private readonly opts: RuntimeOptions<S, R>) {}

  /**
   * Creates the shard of `partition` and replays its log; operations may run once this resolves.
   * `epoch`: the leader epoch of the internal partition it is loaded at.
   */
  async load(partition: number, log: CoordinatorLog, epoch = 0): Promise<void> {
    if (this.shards.has(partition)) return;
    const rt = new ShardRuntime<S, R>(partition, log);
    rt.epoch = epoch;
    rt.shard = this.opts.newShard(this.contextFor(rt));
    this.shards.set(partition, rt);
    await rt.queue.run(async () => {
      const started = Date.now();
      let skipped = 0;
      const count = await log.readAll((lr, txn) => {
        const record = this.opts.serde.deserialize(lr);
        if (record === null) skipped++;
        else rt.shard.replay(record, txn, lr.offset);
      }, (producerId, commit) => rt.shard.replayEndTransaction?.(producerId, commit));
      rt.status = 'active';
      rt.shard.onLoaded();
      if (count > 0) {
        this.opts.logger.info(`${this.opts.name} partition ${partition}: loaded ${count} records (${skipped} skipped) in ${Date.now() - started} ms`);
      }
    });
  }

  isActive(partition: number): boolean {
    return this.shards.get(partition)?.status === 'active';
  }

  /** The leader epoch the shard of `partition` was loaded at, or null when it is not here. */
  loadedEpoch(partition: number): number | null {
    return this.shards.get(partition)?.epoch ?? null;
  }

  get partitions(): number[] {
    return [...this.shards.keys()].sort((a, b) => a - b);
  }

  /**
   * Runs `op` on the shard of `partition` through its queue. Rejects with NOT_COORDINATOR when
   * the shard is not here, COORDINATOR_LOAD_IN_PROGRESS while it loads.
   */
  schedule<T>(partition: number, op: (shard: S) => CoordinatorResult<T, R>): Promise<T> {
    const rt = this.shards.get(partition);
    if (!rt || rt.status === 'closed') return Promise.reject(new KafkaApiError(ErrorCode.NOT_COORDINATOR));
    return rt.queue.run(() => {
      if (rt.status === 'closed') throw new KafkaApiError(ErrorCode.NOT_COORDINATOR);
      if (rt.status === 'loading') throw new KafkaApiError(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
      return this.execute(rt, op(rt.shard));
    });
  }

  /**
   * A COMMIT/ABORT marker of `producerId` was appended to the shard's partition: the shard applies
   * it in its queue, after what was queued before (nothing when the shard is not here: it reads
   * the marker from its log when it loads).
   */
  async completeTransaction(partition: number, producerId: number, commit: boolean): Promise<void> {
    // A shard still loading has this queued after its load (applying a marker twice is harmless).
    if (!this.shards.has(partition)) return;
    await this.schedule(partition, (s) => {
      s.replayEndTransaction?.(producerId, commit);
      return { records: [], response: () => undefined };
    }).catch(() => undefined);
  }

  /** The shard of `partition` when it is loaded here (read-only looks outside the queue). */
  shardOf(partition: number): S | undefined {
    const rt = this.shards.get(partition);
    return rt?.status === 'active' ? rt.shard : undefined;
  }

  /** Runs `fn` on every active shard (one after the other) and collects the results. */
  async scheduleAll<T>(op: (shard: S, partition: number) => CoordinatorResult<T, R>): Promise<T[]> {
    const out: T[] = [];
    for (const p of this.partitions) {
      if (!this.isActive(p)) continue;
      try {
        out.push(await this.schedule(p, (s) => op(s, p)));
      } catch (err) {
        if (!(err instanceof KafkaApiError)) throw err;
      }
    }
    return out;
  }

  private async execute<T>(rt: ShardRuntime<S, R>, result: CoordinatorResult<T, R>): Promise<T> {
    if (result.records.length > 0) {
      let base: number | void;
      try {
        base = await rt.log.append(result.records.map((r) => this.opts.serde.serialize(r)), this.opts.clock.now(), result.transactional);
      } catch (err) {
        const code = appendErrorCode(err);
        if (!(err instanceof KafkaApiError)) this.opts.logger.error(`${this.opts.name} partition ${rt.partition}: append failed`, err);
        if (result.onAppendError) return result.onAppendError(code);
        throw new KafkaApiError(code);
      }
      result.records.forEach((r, i) => rt.shard.replay(r, result.transactional, typeof base === 'number' ? base + i : undefined));
    }
    return result.response();
  }

  private contextFor(rt: ShardRuntime<S, R>): ShardContext<R> {
    const { clock, logger } = this.opts;
    return {
      partition: rt.partition,
      logger: logger,
      now: () => clock.now(),
      schedule: (key, delayMs, op) => {
        if (rt.status === 'closed') return;
        rt.timers.get(key)?.handle.cancel();
        const entry: TimerEntry = { handle: { cancel() {} } };
        const fire = () => void rt.queue.run(async () => {
          // Cancelled or replaced after firing but before running: nothing to do.
          if (rt.timers.get(key) !== entry || rt.status !== 'active') return;
          rt.timers.delete(key);
          try {
            await this.execute(rt, op());
          } catch (err) {
            if (!(err instanceof KafkaApiError)) logger.error(`${this.opts.name} partition ${rt.partition}: timer ${key} failed`, err);
          }
        });
        // A zero delay (e.g. group.initial.rebalance.delay.ms=0) queues its operation only after
        // the requests already received were read and queued: Node fires a 0 ms timer before the
        // poll phase, so a JoinGroup that arrived with it would otherwise land in a generation of
        // its own (Kafka's timer thread hands its task to the shard's queue behind them).
        entry.handle = clock.setTimeout(delayMs <= 0 && clock.afterPendingIo ? () => clock.afterPendingIo!(fire) : fire, delayMs);
        rt.timers.set(key, entry);
      },
      cancel: (key) => {
        const entry = rt.timers.get(key);
        if (!entry) return;
        entry.handle.cancel();
        rt.timers.delete(key);
      },
      isScheduled: (key) => rt.timers.has(key),
    };
  }

  /** Resolves when every shard's queue is empty (tests, after advancing a manual clock). */
  async idle(): Promise<void> {
    for (;;) {
      const busy = [...this.shards.values()].filter((rt) => rt.queue.size > 0);
      if (busy.length === 0) return;
      await Promise.all(busy.map((rt) => rt.queue.idle()));
    }
  }

  /**
   * Unloads the shard of `partition` (Kafka's onResignation): operations from now on answer
   * NOT_COORDINATOR; queued ones run first, then timers stop and parked requests are answered.
   */
  async unload(partition: number): Promise<void> {
    const rt = this.shards.get(partition);
    if (!rt) return;
    this.shards.delete(partition);
    await this.shutdownShard(rt);
  }

  private shutdownShard(rt: ShardRuntime<S, R>): Promise<void> {
    return rt.queue.run(() => {
      for (const t of rt.timers.values()) t.handle.cancel();
      rt.timers.clear();
      if (rt.status !== 'loading') rt.shard.onUnloaded();
      rt.status = 'closed';
    });
  }

  /** Unloads every shard: cancels timers, answers parked requests, waits for queued operations. */
  async close(): Promise<void> {
    const all = [...this.shards.values()];
    this.shards.clear();
    await Promise.all(all.map((rt) => this.shutdownShard(rt)));
  }
}
