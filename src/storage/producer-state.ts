/**
 * Per-partition producer state (Kafka `ProducerStateManager`, `ProducerStateEntry`,
 * `ProducerAppendInfo`): for every producer id that wrote to the partition, its epoch, the last
 * five batches it appended (sequence range and offsets, for duplicate detection), the coordinator
 * epoch of its last transaction marker, and the first offset of its open transaction, if any.
 *
 * Rules (behaviours.md I1–I10, Kafka's ProducerAppendInfo):
 * - epoch lower than stored → INVALID_PRODUCER_EPOCH;
 * - epoch higher than stored: the first sequence must be 0 (unless nothing was ever stored),
 *   else OUT_OF_ORDER_SEQUENCE_NUMBER; the batch list is reset for the new epoch;
 * - same epoch: first sequence = last sequence + 1 (wrapping at 2^31-1 → 0), else
 *   OUT_OF_ORDER_SEQUENCE_NUMBER; an exact retry of one of the last 5 batches is a duplicate
 *   (answered with the original offsets, nothing written; see `findDuplicate`);
 * - a non-transactional batch while the producer has an open transaction → INVALID_TXN_STATE;
 * - a transactional batch opens a transaction at its base offset; a COMMIT/ABORT control batch
 *   closes it (an aborted one becomes an `AbortedTxn` for the .txnindex).
 * The last stable offset is the first offset of the oldest open transaction (or the high watermark).
 *
 * Updates are staged (`prepare`) before the write and applied (`commit`) after it succeeds, so a
 * failed write leaves no trace. Loading from the log (`replayBatch`) applies batches without checks.
 *
 * Snapshots: `<offset>.snapshot` holds the state after every batch below `offset`, in Kafka's
 * format (version 1): int16 version, uint32 CRC-32C of the rest, then an int32-counted array of
 * entries {int64 producerId, int16 epoch, int32 lastSequence, int64 lastOffset, int32 offsetDelta,
 * int64 timestamp, int32 coordinatorEpoch, int64 currentTxnFirstOffset}. Like Kafka's, a snapshot
 * keeps only the last batch of each producer.
 *
 * Difference from Kafka: the idle time for `producer.id.expiration.ms` is measured from the
 * broker's clock at the producer's last append, not from the batch's (client-set) timestamp.
 */
import { KafkaApiError } from '../errors.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { crc32c } from '../protocol/records/crc32c.js';
import {
  readInt64AsNumber,
  writeInt64FromNumber,
  batchSize,
  lastOffsetDelta,
  maxTimestamp as batchMaxTimestamp,
  baseOffset as batchBaseOffset,
  baseSequence as batchBaseSequence,
  isControl as batchIsControl,
  isTransactional as batchIsTransactional,
  producerEpoch as batchProducerEpoch,
  producerId as batchProducerId,
} from '../protocol/records/record-batch.js';
import { decodeRecordBatch } from '../protocol/records/record.js';

export const NUM_BATCHES_TO_RETAIN = 5;
export const NO_PRODUCER_EPOCH = -1;
export const NO_SEQUENCE = -1;
const INT32_MAX = 0x7fffffff;

export interface BatchMetadata {
  firstSeq: number;
  lastSeq: number;
  firstOffset: number;
  lastOffset: number;
  /** Max timestamp of the batch (returned as log_append_time for duplicates, behaviours.md I2). */
  timestamp: number;
}

export interface ProducerStateEntry {
  producerId: number;
  producerEpoch: number;
  /** Oldest first, at most NUM_BATCHES_TO_RETAIN. */
  batches: BatchMetadata[];
  coordinatorEpoch: number;
  /** Broker time of the last append (expiry). */
  lastTimestamp: number;
  /** First offset of the open transaction, -1 when none. */
  currentTxnFirstOffset: number;
}

/** What a partition needs to know about one batch (read from its header). */
export interface BatchInfo {
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  /** Records in the batch minus one. */
  lastOffsetDelta: number;
  firstOffset: number;
  lastOffset: number;
  maxTimestamp: number;
  isTransactional: boolean;
  isControl: boolean;
  /** Control batches: 0 abort, 1 commit (others are ignored). */
  controlType?: number;
  coordinatorEpoch?: number;
}

export interface CompletedTxn {
  producerId: number;
  firstOffset: number;
  lastOffset: number;
  isAborted: boolean;
}

/** An entry of the .txnindex (Kafka `AbortedTxn`). */
export interface AbortedTxn {
  producerId: number;
  firstOffset: number;
  lastOffset: number;
  lastStableOffset: number;
}

export interface StagedAppend {
  entries: Map<number, ProducerStateEntry>;
  completed: CompletedTxn[];
  /** The markers of this append (a verification in place for the producer ends with its marker). */
  marked: { producerId: number; epoch: number }[] | null;
}

/**
 * Kafka's VerificationGuard: the token of one produce-side verification (KIP-890 part 1). It is
 * made before the coordinator is asked whether the partition is in the producer's transaction and
 * stays the producer's until a marker (or the transaction's first batch) is written here; a batch
 * that starts a transaction is appended only with the guard still in place, so a COMMIT/ABORT
 * that lands while the coordinator was being asked turns the batch away (INVALID_TXN_STATE)
 * instead of opening a transaction nobody will end.
 */
export interface VerificationGuard {
  readonly producerId: number;
  /** The epoch of the batch being verified (the highest, when several are). */
  epoch: number;
  /** Transactions V2 (the implicit add): the marker of the previous transaction carries this epoch. */
  supportsEpochBump: boolean;
}

/** Kafka `DefaultRecordBatch.incrementSequence`. */
export function incrementSequence(sequence: number, increment: number): number {
  if (sequence > INT32_MAX - increment) return increment - (INT32_MAX - sequence) - 1;
  return sequence + increment;
}

function inSequence(lastSeq: number, nextSeq: number): boolean {
  return nextSeq === lastSeq + 1 || (nextSeq === 0 && lastSeq === INT32_MAX);
}

function cloneEntry(e: ProducerStateEntry): ProducerStateEntry {
  return { ...e, batches: e.batches.slice() };
}

function emptyEntry(producerId: number): ProducerStateEntry {
  return { producerId, producerEpoch: NO_PRODUCER_EPOCH, batches: [], coordinatorEpoch: -1, lastTimestamp: -1, currentTxnFirstOffset: -1 };
}

function lastSeqOf(e: ProducerStateEntry): number {
  return e.batches.length > 0 ? e.batches[e.batches.length - 1].lastSeq : NO_SEQUENCE;
}

function lastOffsetOf(e: ProducerStateEntry): number {
  return e.batches.length > 0 ? e.batches[e.batches.length - 1].lastOffset : -1;
}

function err(code: number, message: string): KafkaApiError {
  return new KafkaApiError(code, message);
}

/** What a partition without producer state reads (shared, never written). */
const NO_PRODUCERS: ReadonlyMap<number, ProducerStateEntry> = new Map();
const NO_TXNS: ReadonlyMap<number, number> = new Map();

export class ProducerStateManager {
  /** Made by the first producer written: most partitions of a big broker never see one. */
  private producerMap: Map<number, ProducerStateEntry> | null = null;
  /** producerId → first offset of its open transaction (made by the first one). */
  private ongoingMap: Map<number, number> | null = null;
  /** producerId → the verification in progress (made by the first one). */
  private verifying: Map<number, VerificationGuard> | null = null;

  constructor(readonly topicPartition: string) {}

  private get producers(): ReadonlyMap<number, ProducerStateEntry> {
    return this.producerMap ?? NO_PRODUCERS;
  }

  private get ongoing(): ReadonlyMap<number, number> {
    return this.ongoingMap ?? NO_TXNS;
  }

  private setProducer(pid: number, e: ProducerStateEntry): void {
    (this.producerMap ??= new Map()).set(pid, e);
    if (e.currentTxnFirstOffset >= 0) (this.ongoingMap ??= new Map()).set(pid, e.currentTxnFirstOffset);
    else this.ongoingMap?.delete(pid);
  }

  get size(): number {
    return this.producers.size;
  }

  get(producerId: number): ProducerStateEntry | undefined {
    return this.producers.get(producerId);
  }

  /** Every producer, for DescribeProducers. */
  activeProducers(): ProducerStateEntry[] {
    return [...this.producers.values()];
  }

  /** First offset of the oldest open transaction; null when none (Kafka `firstUnstableOffset`). */
  firstUnstableOffset(): number | null {
    let min: number | null = null;
    for (const o of this.ongoing.values()) if (min === null || o < min) min = o;
    return min;
  }

  hasOngoingTxns(): boolean {
    return this.ongoing.size > 0;
  }

  /** Kafka `hasOngoingTransaction`: the producer has a transaction open here, at `epoch`. */
  hasOngoingTransaction(producerId: number, epoch: number): boolean {
    const e = this.producers.get(producerId);
    return e !== undefined && e.currentTxnFirstOffset >= 0 && e.producerEpoch === epoch;
  }

  /**
   * The guard of a verification about to start for `producerId`'s batch at `epoch` (Kafka
   * `maybeCreateVerificationStateEntry`): the one in place (raised to a higher epoch), or a new one.
   * `supportsEpochBump`: a transactions V2 add.
   */
  startVerification(producerId: number, epoch: number, supportsEpochBump: boolean): VerificationGuard {
    const map = (this.verifying ??= new Map());
    let g = map.get(producerId);
    if (!g) map.set(producerId, (g = { producerId, epoch, supportsEpochBump }));
    else if (epoch > g.epoch) Object.assign(g, { epoch, supportsEpochBump });
    return g;
  }

  /**
   * A transactional batch of `producerId` at `epoch` that would open a transaction here needs
   * `guard` still in place (no marker since its verification started): INVALID_TXN_STATE otherwise.
   */
  checkVerified(producerId: number, epoch: number, guard: VerificationGuard | null): void {
    if (this.hasOngoingTransaction(producerId, epoch) || (guard !== null && this.verifying?.get(producerId) === guard)) return;
    throw err(ErrorCode.INVALID_TXN_STATE, `Record was not part of an ongoing transaction (producer ${producerId} in ${this.topicPartition})`);
  }

  /** Verifications in progress (tests, metrics). */
  get verificationsInProgress(): number {
    return this.verifying?.size ?? 0;
  }

  /**
   * Kafka `findDuplicateBatch`: the stored batch that `b` repeats (same producer, epoch and
   * sequence range), or null.
   */
  findDuplicate(b: Pick<BatchInfo, 'producerId' | 'producerEpoch' | 'baseSequence' | 'lastOffsetDelta'>): BatchMetadata | null {
    if (b.producerId < 0) return null;
    const e = this.producers.get(b.producerId);
    if (!e || e.producerEpoch !== b.producerEpoch) return null;
    const lastSeq = incrementSequence(b.baseSequence, b.lastOffsetDelta);
    for (const m of e.batches) if (m.firstSeq === b.baseSequence && m.lastSeq === lastSeq) return m;
    return null;
  }

  /**
   * Checks `batches` (offsets already assigned) against the state and returns the staged
   * updates; throws KafkaApiError with Kafka's code when a batch must be rejected. Nothing changes
   * until `commit`. `validate` is false when loading from the log. `checkSequence` (default:
   * `validate`) is false for the coordinators' own transactional writes (TxnOffsetCommit records,
   * without sequence numbers), as Kafka checks sequences of client appends only.
   * `markerTransactionVersion`: the transaction version of the markers among `batches`
   * (WriteTxnMarkers v2); a version 2 marker bumped the epoch, so it must be above the producer's.
   */
  prepare(batches: readonly BatchInfo[], nowMs: number, validate: boolean, checkSequence = validate, markerTransactionVersion = 0): StagedAppend {
    const entries = new Map<number, ProducerStateEntry>();
    const completed: CompletedTxn[] = [];
    let marked: { producerId: number; epoch: number }[] | null = null;
    for (const b of batches) {
      if (b.producerId < 0) continue;
      const current = entries.get(b.producerId) ?? this.producers.get(b.producerId);
      const next = current ? cloneEntry(current) : emptyEntry(b.producerId);
      if (b.isControl) {
        const done = this.applyMarker(next, b, nowMs, validate, markerTransactionVersion);
        if (done) completed.push(done);
        (marked ??= []).push({ producerId: b.producerId, epoch: b.producerEpoch });
      } else {
        this.applyData(next, current, b, nowMs, validate, checkSequence);
      }
      entries.set(b.producerId, next);
    }
    return { entries, completed, marked };
  }

  private applyData(next: ProducerStateEntry, current: ProducerStateEntry | undefined, b: BatchInfo, nowMs: number, validate: boolean, checkSequence: boolean): void {
    const lastSeq = incrementSequence(b.baseSequence, b.lastOffsetDelta);
    if (validate) {
      if (b.producerEpoch < next.producerEpoch) {
        throw err(ErrorCode.INVALID_PRODUCER_EPOCH,
          `Epoch of producer ${b.producerId} at offset ${b.firstOffset} in ${this.topicPartition} is ${b.producerEpoch}, which is smaller than the last seen epoch ${next.producerEpoch}`);
      }
      if (checkSequence && b.producerEpoch !== next.producerEpoch) {
        if (b.baseSequence !== 0 && next.producerEpoch !== NO_PRODUCER_EPOCH) {
          throw err(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
            `Invalid sequence number for new epoch of producer ${b.producerId} in ${this.topicPartition}: ${b.producerEpoch} (request epoch), ${b.baseSequence} (seq. number), ${next.producerEpoch} (current producer epoch)`);
        }
      } else if (checkSequence) {
        const currentLastSeq = lastSeqOf(next);
        const known = current !== undefined && current.producerEpoch !== NO_PRODUCER_EPOCH;
        if (known && !inSequence(currentLastSeq, b.baseSequence)) {
          throw err(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
            `Out of order sequence number for producer ${b.producerId} in ${this.topicPartition}: ${b.baseSequence} (incoming seq. number), ${currentLastSeq} (current end sequence number)`);
        }
      }
      if (next.currentTxnFirstOffset >= 0 && !b.isTransactional) {
        throw err(ErrorCode.INVALID_TXN_STATE, `Expected transactional write from producer ${b.producerId} in ${this.topicPartition}, found a non-transactional one`);
      }
    }
    if (b.producerEpoch !== next.producerEpoch) {
      next.producerEpoch = b.producerEpoch;
      next.batches = [];
    }
    next.batches.push({ firstSeq: b.baseSequence, lastSeq, firstOffset: b.firstOffset, lastOffset: b.lastOffset, timestamp: b.maxTimestamp });
    if (next.batches.length > NUM_BATCHES_TO_RETAIN) next.batches.shift();
    next.lastTimestamp = nowMs;
    if (b.isTransactional && next.currentTxnFirstOffset < 0) next.currentTxnFirstOffset = b.firstOffset;
  }

  private applyMarker(next: ProducerStateEntry, b: BatchInfo, nowMs: number, validate: boolean, transactionVersion: number): CompletedTxn | null {
    const coordinatorEpoch = b.coordinatorEpoch ?? -1;
    if (validate) {
      // Kafka's checkProducerEpoch: a V2 marker carries the bumped epoch, so one at or below the
      // producer's is a late retry of an earlier end; a V1 marker may carry the producer's epoch.
      if (transactionVersion >= 2 ? b.producerEpoch <= next.producerEpoch : b.producerEpoch < next.producerEpoch) {
        throw err(ErrorCode.INVALID_PRODUCER_EPOCH, `Transaction marker of producer ${b.producerId} in ${this.topicPartition} has epoch ${b.producerEpoch}, ${transactionVersion >= 2 ? 'not above' : 'below'} the current ${next.producerEpoch} (TV${transactionVersion})`);
      }
      if (coordinatorEpoch < next.coordinatorEpoch) {
        throw err(ErrorCode.TRANSACTION_COORDINATOR_FENCED, `Transaction marker of producer ${b.producerId} has coordinator epoch ${coordinatorEpoch}, below ${next.coordinatorEpoch}`);
      }
    }
    if (b.producerEpoch !== next.producerEpoch) {
      next.producerEpoch = b.producerEpoch;
      next.batches = [];
    }
    next.coordinatorEpoch = coordinatorEpoch;
    next.lastTimestamp = nowMs;
    if (next.currentTxnFirstOffset < 0) return null;
    const done: CompletedTxn = { producerId: b.producerId, firstOffset: next.currentTxnFirstOffset, lastOffset: b.firstOffset, isAborted: b.controlType === 0 };
    next.currentTxnFirstOffset = -1;
    return done;
  }

  /**
   * Applies staged updates after the write succeeded. Returns the aborted transactions to add to
   * the .txnindex, each with the last stable offset right after it completed.
   */
  commit(staged: StagedAppend): AbortedTxn[] {
    for (const [pid, e] of staged.entries) {
      this.setProducer(pid, e);
      // The transaction is open here now: later batches need no verification (Kafka clears the entry).
      if (e.currentTxnFirstOffset >= 0) this.verifying?.delete(pid);
    }
    // A marker ends the verification in place, unless it is the previous V2 transaction's marker,
    // whose bumped epoch is the one the next transaction already verifies at (Kafka keeps it then).
    if (staged.marked) {
      for (const m of staged.marked) {
        const g = this.verifying?.get(m.producerId);
        if (g && !(g.supportsEpochBump && g.epoch === m.epoch)) this.verifying!.delete(m.producerId);
      }
    }
    const aborted: AbortedTxn[] = [];
    for (const c of staged.completed) {
      if (!c.isAborted) continue;
      const fuo = this.firstUnstableOffset();
      aborted.push({ producerId: c.producerId, firstOffset: c.firstOffset, lastOffset: c.lastOffset, lastStableOffset: fuo ?? c.lastOffset + 1 });
    }
    return aborted;
  }

  /** Loading: applies one batch without checks; returns the aborted transaction it completes, if any. */
  replayBatch(b: BatchInfo, nowMs: number): AbortedTxn | null {
    const staged = this.prepare([b], nowMs, false);
    return this.commit(staged)[0] ?? null;
  }

  /**
   * Forgets producers idle for `expirationMs` without an open transaction (producer.id.expiration.ms).
   * Returns how many were removed.
   */
  removeExpiredProducers(nowMs: number, expirationMs: number): number {
    let n = 0;
    for (const [pid, e] of this.producers) {
      if (e.currentTxnFirstOffset < 0 && nowMs - e.lastTimestamp >= expirationMs) {
        this.producerMap?.delete(pid);
        n++;
      }
    }
    return n;
  }

  /**
   * The log start moved to `logStartOffset`: producers whose last write lies below it are
   * forgotten (their data is gone, behaviours.md I10), as are open transactions below it.
   */
  truncateHead(logStartOffset: number): void {
    for (const [pid, e] of this.producers) {
      const last = lastOffsetOf(e);
      if (e.currentTxnFirstOffset < 0 && last >= 0 && last < logStartOffset) this.producerMap?.delete(pid);
    }
  }

  clear(): void {
    this.producerMap = null;
    this.ongoingMap = null;
  }

  // -------------------------------------------------------------------------------------------
  // Snapshots (Kafka's producer snapshot format, version 1)

  serialize(): Buffer {
    const entries = [...this.producers.values()];
    const ENTRY = 46;
    const buf = Buffer.alloc(2 + 4 + 4 + entries.length * ENTRY);
    buf.writeInt16BE(1, 0);
    buf.writeInt32BE(entries.length, 6);
    let pos = 10;
    for (const e of entries) {
      const last = e.batches[e.batches.length - 1];
      writeInt64FromNumber(buf, pos, e.producerId);
      buf.writeInt16BE(e.producerEpoch, pos + 8);
      buf.writeInt32BE(last ? last.lastSeq : NO_SEQUENCE, pos + 10);
      writeInt64FromNumber(buf, pos + 14, last ? last.lastOffset : -1);
      buf.writeInt32BE(last ? last.lastOffset - last.firstOffset : 0, pos + 22);
      writeInt64FromNumber(buf, pos + 26, e.lastTimestamp);
      buf.writeInt32BE(e.coordinatorEpoch, pos + 34);
      writeInt64FromNumber(buf, pos + 38, e.currentTxnFirstOffset);
      pos += ENTRY;
    }
    buf.writeUInt32BE(crc32c(buf, 6, buf.length), 2);
    return buf;
  }

  /** Replaces the state with a snapshot's; throws on a corrupt or unknown-version file. */
  loadSnapshot(buf: Buffer): void {
    if (buf.length < 10) throw new Error('producer snapshot too short');
    const version = buf.readInt16BE(0);
    if (version !== 1) throw new Error(`unknown producer snapshot version ${version}`);
    if (buf.readUInt32BE(2) !== crc32c(buf, 6, buf.length)) throw new Error('producer snapshot CRC mismatch');
    const n = buf.readInt32BE(6);
    if (n < 0 || 10 + n * 46 !== buf.length) throw new Error('producer snapshot size mismatch');
    this.clear();
    let pos = 10;
    for (let i = 0; i < n; i++) {
      const producerId = readInt64AsNumber(buf, pos);
      const producerEpoch = buf.readInt16BE(pos + 8);
      const lastSeq = buf.readInt32BE(pos + 10);
      const lastOffset = readInt64AsNumber(buf, pos + 14);
      const offsetDelta = buf.readInt32BE(pos + 22);
      const timestamp = readInt64AsNumber(buf, pos + 26);
      const coordinatorEpoch = buf.readInt32BE(pos + 34);
      const currentTxnFirstOffset = readInt64AsNumber(buf, pos + 38);
      const batches: BatchMetadata[] = lastOffset >= 0
        ? [{ firstSeq: Math.max(0, lastSeq - offsetDelta), lastSeq, firstOffset: lastOffset - offsetDelta, lastOffset, timestamp }]
        : [];
      this.setProducer(producerId, { producerId, producerEpoch, batches, coordinatorEpoch, lastTimestamp: timestamp, currentTxnFirstOffset });
      pos += 46;
    }
  }
}

/**
 * Kafka analyzeAndValidateProducerState for a client's append (the first batch of `buf`): the
 * stored batch a retry repeats (answered, not written), else null; a batch that would open a
 * transaction needs its `verification` still in place (INVALID_TXN_STATE otherwise). Called from
 * the log's serial queue, which also applies markers.
 */
export function duplicateOrUnverified(producers: ProducerStateManager, buf: Buffer, verification: VerificationGuard | null | undefined): BatchMetadata | null {
  const pid = batchProducerId(buf, 0);
  if (pid < 0) return null;
  const epoch = batchProducerEpoch(buf, 0);
  const dup = producers.findDuplicate({ producerId: pid, producerEpoch: epoch, baseSequence: batchBaseSequence(buf, 0), lastOffsetDelta: lastOffsetDelta(buf, 0) });
  if (dup) return dup;
  if (verification !== undefined && batchIsTransactional(buf, 0) && !batchIsControl(buf, 0)) producers.checkVerified(pid, epoch, verification);
  return null;
}

/** The producer-state views of the batches of buf[0, end) that carry a producer id. */
export function producerBatchInfos(buf: Buffer, end: number): BatchInfo[] {
  const infos: BatchInfo[] = [];
  for (let pos = 0; pos < end; pos += batchSize(buf, pos)) if (batchProducerId(buf, pos) >= 0) infos.push(batchInfoAt(buf, pos));
  return infos;
}

/** The producer-state view of the batch at pos (control batches are decoded for their type). */
export function batchInfoAt(buf: Buffer, pos: number): BatchInfo {
  const base = batchBaseOffset(buf, pos);
  const delta = lastOffsetDelta(buf, pos);
  const info: BatchInfo = {
    producerId: batchProducerId(buf, pos),
    producerEpoch: batchProducerEpoch(buf, pos),
    baseSequence: batchBaseSequence(buf, pos),
    lastOffsetDelta: delta,
    firstOffset: base,
    lastOffset: base + delta,
    maxTimestamp: batchMaxTimestamp(buf, pos),
    isTransactional: batchIsTransactional(buf, pos),
    isControl: batchIsControl(buf, pos),
  };
  if (info.isControl) {
    try {
      const rec = decodeRecordBatch(buf.subarray(pos, pos + batchSize(buf, pos))).records[0];
      if (rec?.key && rec.key.length >= 4) info.controlType = rec.key.readInt16BE(2);
      if (rec?.value && rec.value.length >= 6) info.coordinatorEpoch = rec.value.readInt32BE(2);
    } catch {
      info.controlType = -1;
    }
  }
  return info;
}
