/**
 * The transaction coordinator service (Kafka `TransactionCoordinator` + `TransactionStateManager`
 * + `TransactionMarkerChannelManager`, single node):
 *
 * - producer ids: `ProducerIdManager` (blocks persisted before use, never repeated);
 * - transactional ids live in `__transaction_state`, partition abs(hash(id)) % partitions, one
 *   coordinator-runtime shard per partition (txn-shard.ts). The topic is created on first use
 *   (cleanup.policy=compact) and, when it exists at start-up, every partition is loaded before the
 *   broker accepts connections;
 * - markers: when a transaction enters PrepareCommit/PrepareAbort (EndTxn, a fencing
 *   InitProducerId, a timeout, or found so after a restart) a COMMIT/ABORT control batch is
 *   appended to every partition of the transaction (skipping partitions that no longer exist),
 *   then CompleteCommit/CompleteAbort is written. Failed marker writes are retried with backoff.
 */
import { KafkaApiError } from '../../errors.js';
import type { Clock, Timer } from '../../clock.js';
import type { Logger } from '../../logger.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { buildRecordBatch } from '../../protocol/records/record.js';
import type { PartitionLog } from '../../storage/partition-log.js';
import { MemoryCoordinatorLog, type CoordinatorLog } from '../runtime/coordinator-log.js';
import { CoordinatorRuntime, answer, type CoordinatorResult } from '../runtime/runtime.js';
import { CoordinatorLeadership } from '../runtime/coordinator-leadership.js';
import { ProducerIdManager } from './producer-id-manager.js';
import { txnRecordSerde, type TxnLogRecord } from './records.js';
import { TxnShard, TxnState, TXN_STATE_NAMES, splitTpKey, tpKey, type InitPidResult, type TxnMetadata, type TxnSettings } from './txn-shard.js';
import type { TransactionState } from '../../protocol/generated/messages/describe-transactions-response.js';

export const TRANSACTION_STATE_TOPIC = '__transaction_state';

/** Java's String.hashCode over UTF-16 code units. */
function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** Kafka `partitionFor`: Utils.abs(hash) % partitions (abs(MIN_INT) = 0). */
export function partitionForTxnId(id: string, partitions: number): number {
  const h = javaStringHash(id);
  return (h === -2147483648 ? 0 : Math.abs(h)) % partitions;
}

/** What the coordinator needs from the broker (a memory implementation serves unit tests). */
export interface TxnEnvironment {
  /** Partition count of __transaction_state, or null while it does not exist. */
  stateTopicPartitions(): number | null;
  createStateTopic(numPartitions: number): Promise<void>;
  stateLog(partition: number): CoordinatorLog;
  /**
   * Writes a COMMIT/ABORT marker into each partition wherever it is led, all at once (on a
   * broker: txn-markers.ts); per partition, in order, the error code (NONE once written), or
   * 'gone' when the partition no longer exists.
   */
  writeMarkers(partitions: readonly { topic: string; partition: number }[], marker: TxnMarker): Promise<(number | 'gone')[]>;
  /**
   * The leader epoch this broker leads a __transaction_state partition at (it coordinates the
   * partition's ids), or null when another broker leads it. Absent: always led here, at epoch 0.
   */
  stateLedEpoch?(partition: number): number | null;
  /** While stateLedEpoch is null: this broker's metadata names it the leader, or has not heard of the partition (CoordinatorPartitions). */
  stateAwaitingLeadership?(partition: number): boolean;
  /** __consumer_offsets partition of a group (AddOffsetsToTxn), creating the topic if needed. */
  offsetsPartitionFor?(groupId: string): Promise<number>;
}

export interface TxnMarker {
  producerId: number;
  producerEpoch: number;
  commit: boolean;
  coordinatorEpoch: number;
  /** The transaction's client version (WriteTxnMarkers v2): 2 when the marker ends a V2 transaction. */
  transactionVersion?: number;
}

export interface PendingOffset {
  topic: string;
  partition: number;
  offset: bigint;
  leaderEpoch: number;
  metadata: string;
}

export interface TxnCoordinatorOptions {
  clock: Clock;
  logger: Logger;
  producerIds: ProducerIdManager;
  env: TxnEnvironment;
  numPartitions: number;
  settings: TxnSettings;
}

/** One transaction as DescribeTransactions reports it. */
export type DescribedTxn = TransactionState;

/** Builds a COMMIT (1) / ABORT (0) control batch (Kafka `EndTransactionMarker`). */
export function buildMarkerBatch(producerId: number, producerEpoch: number, commit: boolean, coordinatorEpoch: number, timestampMs: number): Buffer {
  const key = Buffer.alloc(4);
  key.writeInt16BE(0, 0);
  key.writeInt16BE(commit ? 1 : 0, 2);
  const value = Buffer.alloc(6);
  value.writeInt16BE(0, 0);
  value.writeInt32BE(coordinatorEpoch, 2);
  return buildRecordBatch({
    producerId: BigInt(producerId), producerEpoch, baseSequence: -1, transactional: true, control: true,
    records: [{ key, value, timestamp: BigInt(timestampMs) }],
  });
}

const MARKER_RETRY_MS = 100;
const OBSOLETE_MARKER = new Set<number>([ErrorCode.INVALID_PRODUCER_EPOCH, ErrorCode.TRANSACTION_COORDINATOR_FENCED]);
const MARKER_MAX_RETRY_MS = 5000;

export class TxnCoordinator {
  readonly runtime: CoordinatorRuntime<TxnShard, TxnLogRecord>;
  private readonly leadership: CoordinatorLeadership<TxnShard, TxnLogRecord>;
  private numPartitions: number;
  private activating: Promise<void> | null = null;
  private closed = false;
  private readonly markerWork = new Set<Promise<void>>();
  private readonly retryTimers = new Set<Timer>();

  constructor(private readonly opts: TxnCoordinatorOptions) {
    this.numPartitions = opts.env.stateTopicPartitions() ?? opts.numPartitions;
    this.runtime = new CoordinatorRuntime<TxnShard, TxnLogRecord>({
      name: 'transaction coordinator',
      clock: opts.clock,
      logger: opts.logger,
      serde: txnRecordSerde,
      newShard: (ctx) => new TxnShard(ctx, opts.settings, { onPrepare: (p, txn) => this.startMarkers(p, txn) }),
    });
    const env = opts.env;
    this.leadership = new CoordinatorLeadership(this.runtime, {
      ledEpoch: (p) => (env.stateLedEpoch ? env.stateLedEpoch(p) : 0),
      awaitingLeadership: (p) => env.stateAwaitingLeadership?.(p) ?? false,
      log: (p) => env.stateLog(p),
    }, opts.logger, 'transaction coordinator');
  }

  /** A partition of __transaction_state changed leader: load or unload its shard. */
  onLeadershipChange(): Promise<void> {
    return this.activating && !this.closed ? this.activating.then(() => this.leadership.reconcile(), () => undefined) : Promise.resolve();
  }

  get settings(): TxnSettings {
    return this.opts.settings;
  }

  /** Start-up: loads every partition of an existing __transaction_state (completing prepared transactions). */
  async startup(): Promise<void> {
    if (this.opts.env.stateTopicPartitions() !== null) await this.ensureActive();
  }

  ensureActive(): Promise<void> {
    if (this.closed) return Promise.reject(new KafkaApiError(ErrorCode.NOT_COORDINATOR));
    if (!this.activating) {
      this.activating = (async () => {
        const env = this.opts.env;
        if (env.stateTopicPartitions() === null) await env.createStateTopic(this.opts.numPartitions);
        this.numPartitions = env.stateTopicPartitions()!;
        await this.leadership.start(this.numPartitions);
      })().catch((err) => {
        this.activating = null;
        this.opts.logger.error('transaction coordinator: loading __transaction_state failed', err);
        throw new KafkaApiError(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      });
    }
    return this.activating;
  }

  partitionFor(id: string): number {
    return partitionForTxnId(id, this.numPartitions);
  }

  private async run<T>(id: string, op: (shard: TxnShard) => CoordinatorResult<T, TxnLogRecord>): Promise<T> {
    await this.ensureActive();
    return this.runtime.schedule(this.coordinatedPartition(id), op);
  }

  /** The state partition of `id`; NOT_COORDINATOR when another broker leads it (a cluster). */
  private coordinatedPartition(id: string): number {
    const p = this.partitionFor(id);
    this.leadership.check(p);
    return p;
  }

  // -------------------------------------------------------------------------------------------
  // Requests

  /** InitProducerId. `transactionalId` null: a fresh idempotent producer id with epoch 0 (IP1). */
  async initProducerId(transactionalId: string | null, timeoutMs: number, expected: { producerId: number; epoch: number } | null, fencedCode: number): Promise<InitPidResult> {
    if (transactionalId === null) {
      return { errorCode: ErrorCode.NONE, producerId: await this.opts.producerIds.generate(), producerEpoch: 0 };
    }
    if (transactionalId === '') return { errorCode: ErrorCode.INVALID_REQUEST, producerId: -1, producerEpoch: -1 };
    await this.ensureActive();
    // An id is allocated up front (used only for new ids or exhausted epochs; ids are plentiful).
    const fresh = await this.opts.producerIds.generate();
    return this.runtime.schedule(this.coordinatedPartition(transactionalId), (s) => s.initProducerId(transactionalId, timeoutMs, expected, fresh, fencedCode));
  }

  /** AddPartitionsToTxn; `tv2`: the implicit add of Produce v12 / TxnOffsetCommit v5 (transactions V2). */
  addPartitions(transactionalId: string, producerId: number, epoch: number, partitions: { topic: string; partition: number }[], fencedCode: number, tv2 = false): Promise<number> {
    if (transactionalId === '') return Promise.resolve(ErrorCode.INVALID_REQUEST);
    return this.run(transactionalId, (s) => s.addPartitions(transactionalId, producerId, epoch, partitions.map((p) => tpKey(p.topic, p.partition)), fencedCode, tv2));
  }

  /**
   * EndTxn. `tv2` (EndTxn v5, transactions V2): the epoch is bumped and the answer names the
   * producer id and epoch to go on with; a new producer id is allocated first only when the bump
   * would exhaust the epoch (looked at in the shard's queue, used in a second queued operation,
   * which checks again).
   */
  async endTxn(transactionalId: string, producerId: number, epoch: number, commit: boolean, fencedCode: number, tv2 = false): Promise<InitPidResult> {
    if (transactionalId === '') return { errorCode: ErrorCode.INVALID_REQUEST, producerId: -1, producerEpoch: -1 };
    let fresh = -1;
    if (tv2 && await this.run(transactionalId, (s) => answer(s.needsNextProducerId(transactionalId)))) fresh = await this.opts.producerIds.generate();
    return this.run(transactionalId, (s) => s.endTxn(transactionalId, producerId, epoch, commit, fencedCode, tv2, fresh));
  }

  /**
   * Produce-side verification (behaviours.md R8-R11, AddPartitionsToTxn v4+ VerifyOnly): is each
   * partition in the producer's ongoing transaction? Per partition NONE, INVALID_TXN_STATE,
   * INVALID_PRODUCER_ID_MAPPING or INVALID_PRODUCER_EPOCH; throws NOT_COORDINATOR and the like
   * when this broker does not coordinate the id. One queued look at the id's shard.
   */
  verifyPartitions(transactionalId: string, producerId: number, epoch: number, partitions: readonly { topic: string; partition: number }[]): Promise<number[]> {
    return this.run(transactionalId, (s) => answer(partitions.map((p) => s.verify(transactionalId, producerId, epoch, tpKey(p.topic, p.partition)))));
  }

  /** A read-only look at one transactional id (TxnOffsetCommit checks). */
  async lookup(transactionalId: string): Promise<TxnMetadata | undefined> {
    return this.run(transactionalId, (s) => {
      const m = s.txns.get(transactionalId);
      return answer(m ? { ...m, partitions: new Set(m.partitions) } : undefined);
    });
  }

  async describe(ids: string[]): Promise<DescribedTxn[]> {
    const out: DescribedTxn[] = [];
    for (const id of ids) {
      // Error entries carry the schema's zero defaults, as Kafka's do; "" is INVALID_REQUEST.
      const notFound: DescribedTxn = { errorCode: ErrorCode.TRANSACTIONAL_ID_NOT_FOUND, transactionalId: id, transactionState: '', transactionTimeoutMs: 0, transactionStartTimeMs: 0n, producerId: 0n, producerEpoch: 0, topics: [] };
      if (id === '') {
        out.push({ ...notFound, errorCode: ErrorCode.INVALID_REQUEST });
        continue;
      }
      if (!this.activating && this.opts.env.stateTopicPartitions() === null) {
        out.push(notFound);
        continue;
      }
      try {
        const m = await this.lookup(id);
        if (!m) {
          out.push(notFound);
          continue;
        }
        const byTopic = new Map<string, number[]>();
        for (const k of m.partitions) {
          const { topic, partition } = splitTpKey(k);
          byTopic.set(topic, [...(byTopic.get(topic) ?? []), partition]);
        }
        out.push({
          errorCode: ErrorCode.NONE, transactionalId: id, transactionState: TXN_STATE_NAMES[m.state] ?? 'Unknown',
          transactionTimeoutMs: m.txnTimeoutMs, transactionStartTimeMs: BigInt(m.txnStartTimestamp),
          producerId: BigInt(m.producerId), producerEpoch: m.producerEpoch,
          topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions: partitions.sort((a, b) => a - b) })),
        });
      } catch (err) {
        out.push({ ...notFound, errorCode: err instanceof KafkaApiError ? err.errorCode : ErrorCode.UNKNOWN_SERVER_ERROR });
      }
    }
    return out;
  }

  /** ListTransactions: filters by state names, producer ids and (v1) minimum open duration. */
  async list(stateFilters: string[], producerIdFilters: bigint[], durationFilterMs: number): Promise<{ transactionalId: string; producerId: bigint; transactionState: string }[]> {
    if (!this.activating && this.opts.env.stateTopicPartitions() === null) return [];
    await this.ensureActive();
    const now = this.opts.clock.now();
    const pids = new Set(producerIdFilters.map(Number));
    const states = new Set(stateFilters);
    const perShard = await this.runtime.scheduleAll((s) => answer([...s.txns.values()]
      .filter((m) => (states.size === 0 || states.has(TXN_STATE_NAMES[m.state])) && (pids.size === 0 || pids.has(m.producerId)))
      // Kafka's shouldInclude drops only transactions started within the duration; a state
      // without a start time (-1, e.g. Empty) therefore always passes.
      .filter((m) => durationFilterMs < 0 || now - m.txnStartTimestamp > durationFilterMs)
      .map((m) => ({ transactionalId: m.transactionalId, producerId: BigInt(m.producerId), transactionState: TXN_STATE_NAMES[m.state] }))));
    return perShard.flat();
  }

  /** AddOffsetsToTxn: adds the group's __consumer_offsets partition to the transaction (AO1). */
  async addOffsets(transactionalId: string, producerId: number, epoch: number, groupId: string, fencedCode: number): Promise<number> {
    if (transactionalId === '') return ErrorCode.INVALID_REQUEST;
    if (!this.opts.env.offsetsPartitionFor) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    const p = await this.opts.env.offsetsPartitionFor(groupId);
    return this.addPartitions(transactionalId, producerId, epoch, [{ topic: '__consumer_offsets', partition: p }], fencedCode);
  }

  // -------------------------------------------------------------------------------------------
  // Markers

  private startMarkers(partition: number, txn: Readonly<TxnMetadata>): void {
    if (this.closed) return;
    const work = this.writeMarkers(partition, txn, 0).finally(() => this.markerWork.delete(work));
    this.markerWork.add(work);
  }

  /**
   * Writes the transaction's markers into every partition at once, then retries, with backoff,
   * only the partitions that failed, until all are written; then completes the transaction.
   */
  private async writeMarkers(partition: number, txn: Readonly<TxnMetadata>, attempt: number, only?: readonly { topic: string; partition: number }[]): Promise<void> {
    const commit = txn.state === TxnState.PrepareCommit;
    // Stopped, or this broker no longer coordinates the transaction (the new coordinator
    // completes it when it loads the partition).
    if (this.closed || this.runtime.loadedEpoch(partition) === null) return;
    const targets = only ?? [...txn.partitions].map(splitTpKey);
    let codes: (number | 'gone')[];
    try {
      codes = await this.opts.env.writeMarkers(targets, { producerId: txn.producerId, producerEpoch: txn.producerEpoch, commit, coordinatorEpoch: 0, transactionVersion: txn.clientTransactionVersion });
    } catch (err) {
      this.opts.logger.warn?.(`transaction ${txn.transactionalId}: markers failed: ${(err as Error).message}`);
      codes = targets.map(() => ErrorCode.UNKNOWN_SERVER_ERROR);
    }
    // Written, or nothing to mark: a deleted partition (Kafka skips unknown partitions), or a
    // newer epoch already wrote there (this marker is obsolete).
    const retry = targets.filter((t, i) => {
      const code = codes[i];
      if (code === 'gone' || code === ErrorCode.NONE || code === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION || OBSOLETE_MARKER.has(code)) return false;
      this.opts.logger.warn?.(`transaction ${txn.transactionalId}: marker to ${t.topic}-${t.partition} failed: error ${code}`);
      return true;
    });
    const failed = retry.length > 0;
    if (this.closed || this.runtime.loadedEpoch(partition) === null) return;
    if (failed) {
      const delay = Math.min(MARKER_RETRY_MS * 2 ** attempt, MARKER_MAX_RETRY_MS);
      await new Promise<void>((resolve) => {
        const t = this.opts.clock.setTimeout(() => { this.retryTimers.delete(t); resolve(); }, delay);
        this.retryTimers.add(t);
      });
      if (this.closed) return;
      return this.writeMarkers(partition, txn, attempt + 1, retry);
    }
    try {
      await this.runtime.schedule(partition, (s) => s.completeTransaction(txn.transactionalId, txn.producerId, txn.producerEpoch));
    } catch (err) {
      if (!this.closed) this.opts.logger.error(`transaction ${txn.transactionalId}: completing failed`, err);
    }
  }

  /** Resolves when no marker writes are running and every shard is idle (tests). */
  async idle(): Promise<void> {
    for (;;) {
      await this.runtime.idle();
      await new Promise((r) => setImmediate(r));
      if (this.markerWork.size === 0 && (await this.runtime.idle(), this.markerWork.size === 0)) return;
      await Promise.all([...this.markerWork]);
    }
  }

  async shutdown(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.retryTimers) t.cancel();
    this.retryTimers.clear();
    await this.activating?.catch(() => undefined);
    await Promise.all([...this.markerWork].map((w) => w.catch(() => undefined)));
    await this.runtime.close();
  }
}

/** A transaction-state topic in memory (unit tests; logs survive a coordinator "restart"). */
export class MemoryTxnEnvironment implements TxnEnvironment {
  readonly logs = new Map<number, MemoryCoordinatorLog>();
  readonly dataLogs = new Map<string, PartitionLog>();
  private count: number | null = null;

  stateTopicPartitions(): number | null {
    return this.count;
  }

  async createStateTopic(numPartitions: number): Promise<void> {
    this.count = numPartitions;
    for (let p = 0; p < numPartitions; p++) if (!this.logs.has(p)) this.logs.set(p, new MemoryCoordinatorLog());
  }

  stateLog(partition: number): MemoryCoordinatorLog {
    return this.logs.get(partition)!;
  }

  writeMarkers(partitions: readonly { topic: string; partition: number }[], m: TxnMarker): Promise<(number | 'gone')[]> {
    return Promise.all(partitions.map(({ topic, partition }) => this.writeMarker(topic, partition, m)));
  }

  private async writeMarker(topic: string, partition: number, m: TxnMarker): Promise<number | 'gone'> {
    const log = this.dataLogs.get(`${topic}-${partition}`);
    if (!log) return 'gone';
    try {
      await log.appendAsLeader(buildMarkerBatch(m.producerId, m.producerEpoch, m.commit, m.coordinatorEpoch, Date.now()), 0, { origin: 'coordinator', markerTransactionVersion: m.transactionVersion ?? 0 });
      return ErrorCode.NONE;
    } catch (err) {
      if (err instanceof KafkaApiError) return err.errorCode;
      throw err;
    }
  }
}
