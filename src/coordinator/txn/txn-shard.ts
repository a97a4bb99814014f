/**
 * One partition of `__transaction_state`: the transactional ids it owns and their state machine
 * (Kafka `TransactionMetadata` / `TransactionStateManager` / `TransactionCoordinator`, protocols v1
 * and v2).
 *
 * Transactions V2 (KIP-890 part 2, `clientTransactionVersion` 2: EndTxn v5): every EndTxn of an
 * Ongoing transaction bumps the producer epoch in the same PrepareCommit/PrepareAbort record, so
 * the markers carry the bumped epoch and the producer's next transaction starts fresh; when the
 * bumped epoch is exhausted a new producer id is recorded as NextProducerId and taken over (epoch
 * 0, PreviousProducerId = the old id) when the transaction completes. A retried EndTxn (epoch one
 * below the current, or the previous producer id at epoch 0 after a rotation) answers as the first.
 *
 * Queues: every operation on a transactional id runs as one queued operation of the shard that
 * owns its __transaction_state partition (the coordinator runtime's queue for that partition), so
 * the state of one id changes in one place, in order; the markers are written outside the queue
 * and the completion is queued again.
 *
 *   Empty ──AddPartitions──▶ Ongoing ──EndTxn(commit)──▶ PrepareCommit ──markers──▶ CompleteCommit
 *     ▲                        │  └────EndTxn(abort) / timeout / fence──▶ PrepareAbort ──markers──▶ CompleteAbort
 *     └──InitProducerId────────┴─────────────────────────────────────────── (Complete* ──AddPartitions──▶ Ongoing)
 *
 * Every change is a TransactionLogValue record; `replay` is the only place state changes. Each
 * operation returns `{records, response}` for the coordinator runtime. When a record puts a
 * transaction in PrepareCommit/PrepareAbort, `hooks.onPrepare` is called (after the load, for
 * transactions the log left in those states) so markers get written; `completeTransaction`
 * then writes CompleteCommit/CompleteAbort.
 */
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { answer, type CoordinatorResult, type CoordinatorShard, type ShardContext } from '../runtime/runtime.js';
import type { TransactionLogValue, TxnLogRecord } from './records.js';

export const TxnState = {
  Empty: 0,
  Ongoing: 1,
  PrepareCommit: 2,
  PrepareAbort: 3,
  CompleteCommit: 4,
  CompleteAbort: 5,
  Dead: 6,
  PrepareEpochFence: 7,
} as const;
export type TxnStateCode = (typeof TxnState)[keyof typeof TxnState];
export const TXN_STATE_NAMES = ['Empty', 'Ongoing', 'PrepareCommit', 'PrepareAbort', 'CompleteCommit', 'CompleteAbort', 'Dead', 'PrepareEpochFence'] as const;

export const NO_PRODUCER_ID = -1;
export const NO_PRODUCER_EPOCH = -1;
/** Kafka `TransactionMetadata.isEpochExhausted`: epochs stop at Short.MAX_VALUE - 1. */
const MAX_EPOCH = 32767 - 1;

export interface TxnMetadata {
  transactionalId: string;
  producerId: number;
  previousProducerId: number;
  nextProducerId: number;
  producerEpoch: number;
  /** Epoch before the last bump (memory only; lets a retried InitProducerId succeed). */
  lastProducerEpoch: number;
  txnTimeoutMs: number;
  state: TxnStateCode;
  /** "topic\u0000partition" keys. */
  partitions: Set<string>;
  txnStartTimestamp: number;
  txnLastUpdateTimestamp: number;
  /** The transaction version of the client's last operation (TransactionLogValue tag 2): 2 = V2. */
  clientTransactionVersion: number;
}

export interface TxnHooks {
  /** A transaction entered PrepareCommit/PrepareAbort: write the markers, then complete it. */
  onPrepare(partition: number, txn: Readonly<TxnMetadata>): void;
}

export interface TxnSettings {
  transactionMaxTimeoutMs: number;
  transactionalIdExpirationMs: number;
  abortTimedOutIntervalMs: number;
  removeExpiredIntervalMs: number;
}

export function tpKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

export function splitTpKey(k: string): { topic: string; partition: number } {
  const i = k.lastIndexOf('\u0000');
  return { topic: k.slice(0, i), partition: Number(k.slice(i + 1)) };
}

export function groupPartitions(keys: Iterable<string>): { topic: string; partitionIds: number[] }[] {
  const byTopic = new Map<string, number[]>();
  for (const k of keys) {
    const { topic, partition } = splitTpKey(k);
    let l = byTopic.get(topic);
    if (!l) byTopic.set(topic, (l = []));
    l.push(partition);
  }
  return [...byTopic].map(([topic, ids]) => ({ topic, partitionIds: ids.sort((a, b) => a - b) }));
}

export interface InitPidResult {
  errorCode: number;
  producerId: number;
  producerEpoch: number;
}

type R = TxnLogRecord;

export class TxnShard implements CoordinatorShard<R> {
  readonly txns = new Map<string, TxnMetadata>();
  private loaded = false;

  constructor(
    private readonly ctx: ShardContext<R>,
    private readonly settings: TxnSettings,
    private readonly hooks: TxnHooks,
  ) {}

  // -------------------------------------------------------------------------------------------
  // Replay

  replay(record: R): void {
    const { transactionalId: id, value } = record;
    if (value === null) {
      this.txns.delete(id);
      return;
    }
    const prev = this.txns.get(id);
    const producerId = Number(value.producerId);
    const meta: TxnMetadata = {
      transactionalId: id,
      producerId,
      previousProducerId: Number(value.previousProducerId),
      nextProducerId: Number(value.nextProducerId),
      producerEpoch: value.producerEpoch,
      lastProducerEpoch: prev && prev.producerId === producerId && prev.producerEpoch !== value.producerEpoch ? prev.producerEpoch : prev?.lastProducerEpoch ?? NO_PRODUCER_EPOCH,
      txnTimeoutMs: value.transactionTimeoutMs,
      state: value.transactionStatus as TxnStateCode,
      partitions: new Set((value.transactionPartitions ?? []).flatMap((t) => t.partitionIds.map((p) => tpKey(t.topic, p)))),
      txnStartTimestamp: Number(value.transactionStartTimestampMs),
      txnLastUpdateTimestamp: Number(value.transactionLastUpdateTimestampMs),
      clientTransactionVersion: value.clientTransactionVersion ?? 0,
    };
    this.txns.set(id, meta);
    if (this.loaded && (meta.state === TxnState.PrepareCommit || meta.state === TxnState.PrepareAbort)) {
      const snapshot = { ...meta, partitions: new Set(meta.partitions) };
      queueMicrotask(() => this.hooks.onPrepare(this.ctx.partition, snapshot));
    }
  }

  onLoaded(): void {
    this.loaded = true;
    for (const meta of this.txns.values()) {
      if (meta.state === TxnState.PrepareCommit || meta.state === TxnState.PrepareAbort) {
        const snapshot = { ...meta, partitions: new Set(meta.partitions) };
        queueMicrotask(() => this.hooks.onPrepare(this.ctx.partition, snapshot));
      }
    }
    this.armTimers();
  }

  onUnloaded(): void {
    this.loaded = false;
  }

  private armTimers(): void {
    this.armAbortTimer();
    this.armExpireTimer();
  }

  private armAbortTimer(): void {
    this.ctx.schedule('abort-timed-out', this.settings.abortTimedOutIntervalMs, () => {
      this.armAbortTimer();
      return this.abortTimedOut();
    });
  }

  private armExpireTimer(): void {
    this.ctx.schedule('expire-ids', this.settings.removeExpiredIntervalMs, () => {
      this.armExpireTimer();
      return this.expireIds();
    });
  }

  // -------------------------------------------------------------------------------------------
  // Records

  private record(meta: TxnMetadata, changes: Partial<TxnMetadata>): R {
    const m = { ...meta, ...changes };
    const value: TransactionLogValue = {
      producerId: BigInt(m.producerId),
      previousProducerId: BigInt(m.previousProducerId),
      nextProducerId: BigInt(m.nextProducerId),
      producerEpoch: m.producerEpoch,
      transactionTimeoutMs: m.txnTimeoutMs,
      transactionStatus: m.state,
      transactionPartitions: groupPartitions(m.partitions),
      transactionLastUpdateTimestampMs: BigInt(m.txnLastUpdateTimestamp),
      transactionStartTimestampMs: BigInt(m.txnStartTimestamp),
      clientTransactionVersion: m.clientTransactionVersion,
    };
    return { transactionalId: m.transactionalId, value };
  }

  // -------------------------------------------------------------------------------------------
  // Operations

  /**
   * InitProducerId for a transactional id (behaviours.md IP3-IP9). `newProducerId` is a fresh id
   * allocated by the caller, used when the id is new or its epoch is exhausted.
   */
  initProducerId(id: string, timeoutMs: number, expected: { producerId: number; epoch: number } | null, newProducerId: number, fencedCode: number): CoordinatorResult<InitPidResult, R> {
    const fail = (errorCode: number): CoordinatorResult<InitPidResult, R> => answer({ errorCode, producerId: -1, producerEpoch: -1 });
    if (timeoutMs <= 0 || timeoutMs > this.settings.transactionMaxTimeoutMs) return fail(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    const now = this.ctx.now();
    const existing = this.txns.get(id);
    if (!existing) {
      const meta: TxnMetadata = {
        transactionalId: id, producerId: newProducerId, previousProducerId: NO_PRODUCER_ID, nextProducerId: NO_PRODUCER_ID,
        producerEpoch: 0, lastProducerEpoch: NO_PRODUCER_EPOCH, txnTimeoutMs: timeoutMs, state: TxnState.Empty,
        partitions: new Set(), txnStartTimestamp: -1, txnLastUpdateTimestamp: now, clientTransactionVersion: 0,
      };
      return { records: [this.record(meta, {})], response: () => ({ errorCode: ErrorCode.NONE, producerId: newProducerId, producerEpoch: 0 }) };
    }
    const meta = existing;
    if (expected) {
      const matchesCurrent = expected.producerId === meta.producerId && (expected.epoch === meta.producerEpoch || expected.epoch === meta.lastProducerEpoch);
      const matchesPrevious = expected.producerId === meta.previousProducerId && meta.producerEpoch === 0;
      if (!matchesCurrent && !matchesPrevious) return fail(fencedCode);
    }
    switch (meta.state) {
      case TxnState.PrepareCommit:
      case TxnState.PrepareAbort:
      case TxnState.PrepareEpochFence:
        return fail(ErrorCode.CONCURRENT_TRANSACTIONS);
      case TxnState.Ongoing: {
        // IP6: fence the producer (epoch + 1) and abort its transaction; the client retries.
        if (meta.producerEpoch >= MAX_EPOCH) return fail(ErrorCode.CONCURRENT_TRANSACTIONS);
        const rec = this.record(meta, { producerEpoch: meta.producerEpoch + 1, state: TxnState.PrepareAbort, txnLastUpdateTimestamp: now });
        return { records: [rec], response: () => ({ errorCode: ErrorCode.CONCURRENT_TRANSACTIONS, producerId: -1, producerEpoch: -1 }) };
      }
      case TxnState.Dead:
        return fail(ErrorCode.CONCURRENT_TRANSACTIONS);
      default: {
        // Empty / CompleteCommit / CompleteAbort.
        const isRetry = expected !== null && (
          (expected.producerId === meta.producerId && expected.epoch === meta.lastProducerEpoch && meta.lastProducerEpoch !== NO_PRODUCER_EPOCH) ||
          (expected.producerId === meta.previousProducerId && meta.producerEpoch === 0));
        if (isRetry) return answer({ errorCode: ErrorCode.NONE, producerId: meta.producerId, producerEpoch: meta.producerEpoch });
        const exhausted = meta.producerEpoch >= MAX_EPOCH;
        const changes: Partial<TxnMetadata> = exhausted
          ? { producerId: newProducerId, previousProducerId: meta.producerId, producerEpoch: 0 }
          : { producerEpoch: meta.producerEpoch + 1 };
        const rec = this.record(meta, { ...changes, txnTimeoutMs: timeoutMs, state: TxnState.Empty, partitions: new Set(), txnStartTimestamp: -1, txnLastUpdateTimestamp: now });
        return {
          records: [rec],
          response: () => {
            const m = this.txns.get(id)!;
            return { errorCode: ErrorCode.NONE, producerId: m.producerId, producerEpoch: m.producerEpoch };
          },
        };
      }
    }
  }

  /** Common checks of AddPartitions/AddOffsets/EndTxn: the id, producer id and epoch. */
  private checkProducer(id: string, producerId: number, epoch: number, fencedCode: number): { meta: TxnMetadata } | { errorCode: number } {
    const meta = this.txns.get(id);
    if (!meta || meta.producerId !== producerId) return { errorCode: ErrorCode.INVALID_PRODUCER_ID_MAPPING };
    if (meta.producerEpoch !== epoch) return { errorCode: fencedCode };
    return { meta };
  }

  /** AddPartitionsToTxn / AddOffsetsToTxn (behaviours.md AP1-AP6). Returns one code for all partitions. */
  addPartitions(id: string, producerId: number, epoch: number, partitions: string[], fencedCode: number, tv2 = false): CoordinatorResult<number, R> {
    const c = this.checkProducer(id, producerId, epoch, fencedCode);
    if ('errorCode' in c) return answer(c.errorCode);
    const meta = c.meta;
    if (meta.state === TxnState.PrepareCommit || meta.state === TxnState.PrepareAbort || meta.state === TxnState.PrepareEpochFence) {
      return answer(ErrorCode.CONCURRENT_TRANSACTIONS);
    }
    if (meta.state === TxnState.Dead) return answer(ErrorCode.INVALID_TXN_STATE);
    if (meta.state === TxnState.Ongoing && partitions.every((p) => meta.partitions.has(p))) return answer(ErrorCode.NONE);
    const now = this.ctx.now();
    const merged = meta.state === TxnState.Ongoing ? new Set([...meta.partitions, ...partitions]) : new Set(partitions);
    const rec = this.record(meta, {
      state: TxnState.Ongoing, partitions: merged,
      txnStartTimestamp: meta.state === TxnState.Ongoing ? meta.txnStartTimestamp : now, txnLastUpdateTimestamp: now,
      // An implicit add (Produce v12 / TxnOffsetCommit v5) marks the transaction V2.
      clientTransactionVersion: tv2 ? 2 : meta.state === TxnState.Ongoing ? meta.clientTransactionVersion : 0,
    });
    return { records: [rec], response: () => ErrorCode.NONE };
  }

  /** Would a V2 EndTxn of `id` exhaust the epoch (the caller then allocates a new producer id)? */
  needsNextProducerId(id: string): boolean {
    const meta = this.txns.get(id);
    return meta !== undefined && meta.producerEpoch >= MAX_EPOCH;
  }

  /**
   * EndTxn (behaviours.md E1-E6). `tv2` (EndTxn v5): the epoch is bumped with the decision and the
   * answer carries the producer id and epoch to use next; `newProducerId` replaces the producer id
   * when the bumped epoch is exhausted.
   */
  endTxn(id: string, producerId: number, epoch: number, commit: boolean, fencedCode: number, tv2 = false, newProducerId = NO_PRODUCER_ID): CoordinatorResult<InitPidResult, R> {
    const fail = (errorCode: number): CoordinatorResult<InitPidResult, R> => answer({ errorCode, producerId: -1, producerEpoch: -1 });
    // Markers still being written (Kafka 4.4: a pending transition to Complete*, checked before
    // the producer id and epoch): the client retries, whatever it asks. A V2 producer ending its
    // next transaction at the bumped epoch this early is then answered once this one completed.
    const pending = this.txns.get(id)?.state;
    if (pending === TxnState.PrepareCommit || pending === TxnState.PrepareAbort) return fail(ErrorCode.CONCURRENT_TRANSACTIONS);
    if (tv2) return this.endTxnV2(id, producerId, epoch, commit, fencedCode, newProducerId);
    const c = this.checkProducer(id, producerId, epoch, fencedCode);
    if ('errorCode' in c) return fail(c.errorCode);
    const meta = c.meta;
    const ok = (): CoordinatorResult<InitPidResult, R> => answer({ errorCode: ErrorCode.NONE, producerId: meta.producerId, producerEpoch: meta.producerEpoch });
    switch (meta.state) {
      case TxnState.Ongoing: {
        // The ending request decides the transaction's version (Kafka's prepareAbortOrCommit): a
        // V1 EndTxn ends a transaction whose partitions came through AddPartitionsToTxn v4-5 (V2
        // adds) with V1 markers, at the producer's own epoch.
        const rec = this.record(meta, { state: commit ? TxnState.PrepareCommit : TxnState.PrepareAbort, clientTransactionVersion: 0, txnLastUpdateTimestamp: this.ctx.now() });
        return { records: [rec], response: () => ({ errorCode: ErrorCode.NONE, producerId: meta.producerId, producerEpoch: meta.producerEpoch }) };
      }
      case TxnState.CompleteCommit:
        return commit ? ok() : fail(ErrorCode.INVALID_TXN_STATE);
      case TxnState.CompleteAbort:
        return commit ? fail(ErrorCode.INVALID_TXN_STATE) : ok();
      case TxnState.PrepareCommit:
        return fail(commit ? ErrorCode.CONCURRENT_TRANSACTIONS : ErrorCode.INVALID_TXN_STATE);
      case TxnState.PrepareAbort:
        return fail(commit ? ErrorCode.INVALID_TXN_STATE : ErrorCode.CONCURRENT_TRANSACTIONS);
      default:
        return fail(ErrorCode.INVALID_TXN_STATE);
    }
  }

  /**
   * EndTxn v5 (Kafka's TransactionCoordinator.endTransaction for a client of transaction version
   * 2). The epoch check depends on the state: Ongoing and Empty need the current epoch; a
   * Prepare* state only a retry of the bumping EndTxn (epoch one below); a Complete* state the
   * current epoch (a new, empty transaction to abort) or a retry, including the retry after the
   * producer id was rotated. An abort of an Empty or completed transaction bumps the epoch too (a
   * V2 producer cannot know whether its Produce added a partition).
   */
  private endTxnV2(id: string, producerId: number, epoch: number, commit: boolean, fencedCode: number, newProducerId: number): CoordinatorResult<InitPidResult, R> {
    const fail = (errorCode: number): CoordinatorResult<InitPidResult, R> => answer({ errorCode, producerId: -1, producerEpoch: -1 });
    const meta = this.txns.get(id);
    if (!meta) return fail(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    const retryOnOverflow = meta.previousProducerId === producerId && epoch === MAX_EPOCH && meta.producerEpoch === 0;
    const retryOnEpochBump = meta.producerEpoch === epoch + 1;
    const isRetry = retryOnEpochBump || retryOnOverflow;
    let validEpoch: boolean;
    switch (meta.state) {
      case TxnState.PrepareCommit:
      case TxnState.PrepareAbort:
        validEpoch = retryOnEpochBump;
        break;
      case TxnState.CompleteCommit:
      case TxnState.CompleteAbort:
        validEpoch = isRetry || epoch === meta.producerEpoch;
        break;
      default:
        validEpoch = epoch === meta.producerEpoch;
    }
    if (meta.producerId !== producerId && !retryOnOverflow) return fail(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    if (!validEpoch) return fail(fencedCode);
    const current = (): CoordinatorResult<InitPidResult, R> => answer({ errorCode: ErrorCode.NONE, producerId: meta.producerId, producerEpoch: meta.producerEpoch });
    // Ongoing → Prepare*, or (an abort with nothing added) Empty/Complete* → PrepareAbort: the
    // epoch is bumped in the same record; an exhausted epoch records the next producer id.
    const prepare = (state: TxnStateCode, noPartitionAdded: boolean): CoordinatorResult<InitPidResult, R> => {
      const now = this.ctx.now();
      const bumped = meta.producerEpoch + 1;
      const rotate = meta.producerEpoch >= MAX_EPOCH && newProducerId !== NO_PRODUCER_ID;
      const rec = this.record(meta, {
        state, producerEpoch: bumped, nextProducerId: rotate ? newProducerId : NO_PRODUCER_ID,
        clientTransactionVersion: 2, txnLastUpdateTimestamp: now,
        ...(noPartitionAdded ? { txnStartTimestamp: now, partitions: new Set<string>() } : {}),
      });
      return {
        records: [rec],
        response: () => (rotate ? { errorCode: ErrorCode.NONE, producerId: newProducerId, producerEpoch: 0 } : { errorCode: ErrorCode.NONE, producerId: meta.producerId, producerEpoch: bumped }),
      };
    };
    switch (meta.state) {
      case TxnState.Ongoing:
        return prepare(commit ? TxnState.PrepareCommit : TxnState.PrepareAbort, false);
      case TxnState.CompleteCommit:
        if (commit) return isRetry ? current() : fail(ErrorCode.INVALID_TXN_STATE);
        return isRetry ? fail(ErrorCode.INVALID_TXN_STATE) : prepare(TxnState.PrepareAbort, true);
      case TxnState.CompleteAbort:
        if (!commit) return isRetry ? current() : prepare(TxnState.PrepareAbort, true);
        return fail(ErrorCode.INVALID_TXN_STATE);
      case TxnState.PrepareCommit:
        return fail(commit ? ErrorCode.CONCURRENT_TRANSACTIONS : ErrorCode.INVALID_TXN_STATE);
      case TxnState.PrepareAbort:
        return fail(commit ? ErrorCode.INVALID_TXN_STATE : ErrorCode.CONCURRENT_TRANSACTIONS);
      case TxnState.Empty:
        return commit ? fail(ErrorCode.INVALID_TXN_STATE) : prepare(TxnState.PrepareAbort, true);
      default:
        return fail(ErrorCode.INVALID_TXN_STATE);
    }
  }

  /**
   * After the markers: PrepareCommit → CompleteCommit, PrepareAbort → CompleteAbort (partitions
   * cleared). A V2 transaction that recorded a NextProducerId hands over to it here: the new id at
   * epoch 0, the old one kept as PreviousProducerId.
   */
  completeTransaction(id: string, producerId: number, epoch: number): CoordinatorResult<boolean, R> {
    const meta = this.txns.get(id);
    if (!meta || meta.producerId !== producerId || meta.producerEpoch !== epoch) return answer(false);
    if (meta.state !== TxnState.PrepareCommit && meta.state !== TxnState.PrepareAbort) return answer(false);
    const state = meta.state === TxnState.PrepareCommit ? TxnState.CompleteCommit : TxnState.CompleteAbort;
    const rotation: Partial<TxnMetadata> = meta.nextProducerId !== NO_PRODUCER_ID
      ? { producerId: meta.nextProducerId, previousProducerId: meta.producerId, nextProducerId: NO_PRODUCER_ID, producerEpoch: 0 }
      : {};
    const rec = this.record(meta, { state, partitions: new Set(), txnLastUpdateTimestamp: this.ctx.now(), ...rotation });
    return { records: [rec], response: () => true };
  }

  /** Transactions open longer than their timeout are aborted with a bumped epoch (fencing the producer). */
  abortTimedOut(): CoordinatorResult<void, R> {
    const now = this.ctx.now();
    const records: R[] = [];
    for (const meta of this.txns.values()) {
      if (meta.state !== TxnState.Ongoing || meta.txnStartTimestamp < 0 || now < meta.txnStartTimestamp + meta.txnTimeoutMs) continue;
      if (meta.producerEpoch >= MAX_EPOCH) continue;
      this.ctx.logger.info(`aborting transaction ${meta.transactionalId} (producer ${meta.producerId}): open longer than ${meta.txnTimeoutMs} ms`);
      records.push(this.record(meta, { producerEpoch: meta.producerEpoch + 1, state: TxnState.PrepareAbort, txnLastUpdateTimestamp: now }));
    }
    return { records, response: () => undefined };
  }

  /** transactional.id.expiration.ms: ids idle that long and not in a transaction are removed (tombstones). */
  expireIds(): CoordinatorResult<void, R> {
    const now = this.ctx.now();
    const records: R[] = [];
    for (const meta of this.txns.values()) {
      const idle = meta.state === TxnState.Empty || meta.state === TxnState.CompleteCommit || meta.state === TxnState.CompleteAbort;
      if (idle && now - meta.txnLastUpdateTimestamp >= this.settings.transactionalIdExpirationMs) {
        records.push({ transactionalId: meta.transactionalId, value: null });
      }
    }
    return { records, response: () => undefined };
  }

  /**
   * Produce-side verification (behaviours.md R8-R10): is `tp` part of the producer's ongoing
   * transaction? Read-only.
   */
  verify(id: string, producerId: number, epoch: number, tp: string): number {
    const meta = this.txns.get(id);
    if (!meta || meta.producerId !== producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    if (meta.producerEpoch !== epoch) return ErrorCode.INVALID_PRODUCER_EPOCH;
    if (meta.state !== TxnState.Ongoing || !meta.partitions.has(tp)) return ErrorCode.INVALID_TXN_STATE;
    return ErrorCode.NONE;
  }
}
