/**
 * The records of `__transaction_state`, in Kafka's format (internal/transaction-coordinator/):
 * key = int16 version (0) + TransactionLogKey { transactionalId };
 * value = int16 version + TransactionLogValue (null = tombstone: the transactional id expired).
 * Samsa writes value version 0 for transaction protocol v1 clients and version 1 (flexible, with the
 * PrevProducerId / NextProducerId / ClientTransactionVersion tagged fields) once a transaction is
 * V2 (clientTransactionVersion 2), and reads both.
 */
import { Reader } from '../../protocol/reader.js';
import { Writer } from '../../protocol/writer.js';
import { readTransactionLogKey, writeTransactionLogKey } from '../../protocol/generated/messages/transaction-log-key.js';
import { readTransactionLogValue, writeTransactionLogValue, type TransactionLogValue } from '../../protocol/generated/messages/transaction-log-value.js';
import type { LogRecord } from '../runtime/coordinator-log.js';
import type { RecordSerde } from '../runtime/runtime.js';

export type { TransactionLogValue };

export interface TxnLogRecord {
  transactionalId: string;
  value: TransactionLogValue | null;
}

const KEY_VERSION = 0;
/** Value version 1 carries the tagged fields a V2 transaction needs. */
const valueVersion = (v: TransactionLogValue): number => (v.clientTransactionVersion >= 2 ? 1 : 0);

export const txnRecordSerde: RecordSerde<TxnLogRecord> = {
  serialize(r: TxnLogRecord): LogRecord {
    const k = new Writer(32 + r.transactionalId.length * 3);
    k.int16(KEY_VERSION);
    writeTransactionLogKey(k, KEY_VERSION, { transactionalId: r.transactionalId });
    let value: Buffer | null = null;
    if (r.value) {
      const w = new Writer(128);
      const version = valueVersion(r.value);
      w.int16(version);
      writeTransactionLogValue(w, version, r.value);
      value = w.toBuffer();
    }
    return { key: k.toBuffer(), value };
  },
  deserialize(lr: LogRecord): TxnLogRecord | null {
    const kr = new Reader(lr.key);
    const kv = kr.int16();
    if (kv !== KEY_VERSION) return null;
    const key = readTransactionLogKey(kr, kv);
    if (lr.value === null) return { transactionalId: key.transactionalId, value: null };
    const vr = new Reader(lr.value);
    const vv = vr.int16();
    if (vv < 0 || vv > 1) return null;
    return { transactionalId: key.transactionalId, value: readTransactionLogValue(vr, vv) };
  },
};
