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
}

export interface CoordinatorLog {
  /** Appends the records as one batch stamped `timestampMs`; resolves once appended. */
  append(records: LogRecord[], timestampMs: number): Promise<void>;
  /** Calls `visit` for every record from the log start, in offset order; returns how many. */
  readAll(visit: (record: LogRecord) => void): Promise<number>;
}

const LOAD_CHUNK_BYTES = 1 << 20;

export class PartitionCoordinatorLog implements CoordinatorLog {
  /**
   * `leader`: in a cluster, the partition's current role; a shard whose partition this broker
   * does not lead (now) must not write (its log is a follower's copy), so appends answer
   * NOT_COORDINATOR, and the leader epoch stamped is the current one.
   */
  constructor(
    private readonly log: PartitionLog,
    private readonly leaderEpoch: number,
    private readonly opts: { flush?: boolean; leader?: () => { isLeader: boolean; leaderEpoch: number } | undefined } = {},
  ) {}

  async append(records: LogRecord[], timestampMs: number): Promise<void> {
    let epoch = this.leaderEpoch;
    if (this.opts.leader) {
      const p = this.opts.leader();
      if (!p?.isLeader) throw new KafkaApiError(ErrorCode.NOT_COORDINATOR, `${this.log.topic}-${this.log.partition} is not led by this broker`);
      epoch = p.leaderEpoch;
    }
    const ts = BigInt(timestampMs);
    const batch = buildRecordBatch({
      records: records.map((r) => ({ key: r.key, value: r.value, timestamp: ts })),
      partitionLeaderEpoch: epoch,
    });
    const result = await this.log.appendAsLeader(batch, epoch);
    if (this.opts.flush) await this.log.flushUpTo(result.lastOffset + 1);
  }

  async readAll(visit: (record: LogRecord) => void): Promise<number> {
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
          if (batch.isControl) continue;
          for (const r of batch.records) {
            if (r.key === null) continue;
            visit({ key: r.key, value: r.value });
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

  async append(records: LogRecord[], timestampMs: number): Promise<void> {
    if (this.failNextAppend) {
      const err = this.failNextAppend;
      this.failNextAppend = null;
      throw err;
    }
    for (const r of records) this.records.push({ key: Buffer.from(r.key), value: r.value && Buffer.from(r.value), timestampMs });
  }

  async readAll(visit: (record: LogRecord) => void): Promise<number> {
    for (const r of this.records) visit({ key: r.key, value: r.value });
    return this.records.length;
  }
}
