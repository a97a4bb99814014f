/**
 * Where a coordinator shard's records live: one partition of an internal topic
 * (`__consumer_offsets`, later `__transaction_state`). Records are key/value pairs whose bytes
 * the shard's serde defines; a null value is a tombstone.
 *
 * `PartitionCoordinatorLog` writes straight to the PartitionLog (internal topics do not go
 * through the Produce handler); `MemoryCoordinatorLog` keeps records in memory for unit tests.
 */
import { buildRecordBatch, decodeRecordBatches } from '../../protocol/records/record.js';
import type { PartitionLog } from '../../storage/partition-log.js';
import { KafkaApiError } from '../../errors.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';

export interface LogRecord {
  key: Buffer;
  value: Buffer | null;
  /** The record's offset in the log, where the reader knows it (readAll). */
  offset?: number;
}

/** The producer of a transactional coordinator write (TxnOffsetCommit). */
export interface TxnProducer {
  producerId: number;
  producerEpoch: number;
}

export interface CoordinatorLog {
  /**
   * Appends the records as one batch stamped `timestampMs`; resolves once appended, with the
   * offset of the first record where the log knows it. `txn`: a transactional batch of that
   * producer, completed by its COMMIT/ABORT marker.
   */
  append(records: LogRecord[], timestampMs: number, txn?: TxnProducer): Promise<number | void>;
  /**
   * Calls `visit` for every record from the log start, in offset order (with its producer when
   * the batch is transactional), and `onMarker` for every COMMIT/ABORT marker; returns how many
   * records.
   */
  readAll(visit: (record: LogRecord, txn?: TxnProducer) => void, onMarker?: (producerId: number, commit: boolean) => void): Promise<number>;
}

const LOAD_CHUNK_BYTES = 1 << 20;

/** What a coordinator log needs of its partition's replication (src/replication/partition.ts). */
export interface LedPartition {
  readonly isLeader: boolean;
  readonly leaderEpoch: number;
  readonly isr: readonly number[];
  readonly minInsyncReplicas: number;
  /** NONE once every ISR member has everything below `offset`, else the acks=all error. */
  waitForReplication(offset: number, timeoutMs: number): Promise<number>;
}

export class PartitionCoordinatorLog implements CoordinatorLog {
  /**
   * `leaderEpoch`: the epoch the shard was loaded at. `leader`: in a cluster, the partition's
   * current role. A shard whose partition this broker does not lead at that epoch (now) must not
   * write: its log is a follower's copy, or the shard missed another leader's writes. Appends then
   * answer NOT_COORDINATOR. Like Kafka's acks=-1 coordinator writes, an append resolves once the
   * ISR has it (`replicationTimeoutMs`, Kafka's offsets.commit.timeout.ms), failing with
   * NOT_ENOUGH_REPLICAS(_AFTER_APPEND) or REQUEST_TIMED_OUT, which the runtime maps to
   * COORDINATOR_NOT_AVAILABLE.
   */
  constructor(
    private readonly log: PartitionLog,
    private readonly leaderEpoch: number,
    private readonly opts: { flush?: boolean; leader?: () => LedPartition | undefined; replicationTimeoutMs?: number } = {},
  ) {}

  async append(records: LogRecord[], timestampMs: number, txn?: TxnProducer): Promise<number> {
    const p = this.opts.leader?.();
    if (this.opts.leader) {
      if (!p?.isLeader || p.leaderEpoch !== this.leaderEpoch) {
        throw new KafkaApiError(ErrorCode.NOT_COORDINATOR, `${this.log.topic}-${this.log.partition} is not led by this broker at epoch ${this.leaderEpoch}`);
      }
      if (p.isr.length < p.minInsyncReplicas) throw new KafkaApiError(ErrorCode.NOT_ENOUGH_REPLICAS);
    }
    const ts = BigInt(timestampMs);
    const batch = buildRecordBatch({
      records: records.map((r) => ({ key: r.key, value: r.value, timestamp: ts })),
      partitionLeaderEpoch: this.leaderEpoch,
      ...(txn ? { producerId: BigInt(txn.producerId), producerEpoch: txn.producerEpoch, baseSequence: -1, transactional: true } : {}),
    });
    const result = await this.log.appendAsLeader(batch, this.leaderEpoch, txn ? { origin: 'coordinator' } : undefined);
    const end = result.lastOffset + 1;
    if (this.opts.flush) await this.log.flushUpTo(end);
    if (p && this.log.highWatermark < end) {
      const code = await p.waitForReplication(end, this.opts.replicationTimeoutMs ?? 5000);
      if (code !== ErrorCode.NONE) throw new KafkaApiError(code);
    }
    return result.baseOffset;
  }

  async readAll(visit: (record: LogRecord, txn?: TxnProducer) => void, onMarker?: (producerId: number, commit: boolean) => void): Promise<number> {
    let offset = this.log.logStartOffset;
    const end = this.log.logEndOffset;
    let count = 0;
    while (offset < end) {
      const { records } = await this.log.read(offset, LOAD_CHUNK_BYTES, { minOneMessage: true, maxOffset: end });
      if (records.length === 0) break;
      let next = offset;
      for (const chunk of records) {
        for (const batch of decodeRecordBatches(chunk)) {
          next = Number(batch.baseOffset) + batch.lastOffsetDelta + 1;
          if (batch.isControl) {
            // A COMMIT (type 1) or ABORT (0) marker: key = version int16, type int16.
            const key = batch.records[0]?.key;
            if (onMarker && key && key.length >= 4) onMarker(Number(batch.producerId), key.readInt16BE(2) === 1);
            continue;
          }
          const txn = batch.isTransactional ? { producerId: Number(batch.producerId), producerEpoch: batch.producerEpoch } : undefined;
          for (const r of batch.records) {
            if (r.key === null) continue;
            visit({ key: r.key, value: r.value, offset: Number(r.offset) }, txn);
            count++;
          }
        }
      }
      if (next <= offset) break;
      offset = next;
    }
    return count;
  }
}

/** Records kept in an array; `failNextAppend` lets tests exercise write failures. */
export class MemoryCoordinatorLog implements CoordinatorLog {
  readonly records: (LogRecord & { timestampMs: number })[] = [];
  failNextAppend: Error | null = null;

  async append(records: LogRecord[], timestampMs: number, _txn?: TxnProducer): Promise<number> {
    if (this.failNextAppend) {
      const err = this.failNextAppend;
      this.failNextAppend = null;
      throw err;
    }
    const base = this.logStartOffset + this.records.length;
    for (const r of records) this.records.push({ key: Buffer.from(r.key), value: r.value && Buffer.from(r.value), timestampMs });
    return base;
  }

  async readAll(visit: (record: LogRecord) => void): Promise<number> {
    this.records.forEach((r, i) => visit({ key: r.key, value: r.value, offset: this.logStartOffset + i }));
    return this.records.length;
  }

  /** Offset of records[0] (moved by deleteRecordsBefore). */
  logStartOffset = 0;

  /** Drops the records below `offset` (DeleteRecords on a memory log). */
  deleteRecordsBefore(offset: number): void {
    const n = Math.max(0, Math.min(this.records.length, offset - this.logStartOffset));
    this.records.splice(0, n);
    this.logStartOffset += n;
  }
}
