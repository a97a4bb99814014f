import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RecordValidationError, validateRecords, type ValidationConfig } from '../../src/storage/log-validator.js';
import { KafkaApiError } from '../../src/errors.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { buildRecordBatch } from '../../src/protocol/records/record.js';
import { writeCrc } from '../../src/protocol/records/record-batch.js';
import { batch } from './helpers.js';

const cfg: ValidationConfig = { maxMessageBytes: 1048588, segmentBytes: 1073741824, messageTimestampType: 'CreateTime' };

function code(fn: () => unknown): number {
  try {
    fn();
  } catch (err) {
    assert.instance(err, KafkaApiError);
    return (err as KafkaApiError).errorCode;
  }
  return ErrorCode.NONE;
}

test('a valid concatenation reports its complete bytes, batches and offsets', () => {
  const a = batch(2);
  const b = batch(5);
  assert.equal(validateRecords(Buffer.concat([a, b]), cfg), { validBytes: a.length + b.length, batchCount: 2, offsetCount: 7 });
});

test('a trailing partial batch is left out (Kafka trims it); no complete batch is INVALID_RECORD', () => {
  const a = batch(2);
  const b = batch(3);
  assert.is(validateRecords(Buffer.concat([a, b.subarray(0, 30)]), cfg).validBytes, a.length);
  assert.is(code(() => validateRecords(a.subarray(0, a.length - 1), cfg)), ErrorCode.INVALID_RECORD);
  assert.is(code(() => validateRecords(Buffer.alloc(0), cfg)), ErrorCode.INVALID_RECORD);
});

test('CRC mismatch is CORRUPT_MESSAGE', () => {
  const b = batch(2);
  b[70] ^= 4;
  assert.is(code(() => validateRecords(b, cfg)), ErrorCode.CORRUPT_MESSAGE);
});

test('oversized batch is MESSAGE_TOO_LARGE, checked before the CRC', () => {
  const b = batch(10, { valueBytes: 100 });
  b[b.length - 1] ^= 1;
  assert.is(code(() => validateRecords(b, { ...cfg, maxMessageBytes: b.length - 1 })), ErrorCode.MESSAGE_TOO_LARGE);
  assert.is(code(() => validateRecords(batch(1), { ...cfg, maxMessageBytes: batch(1).length })), ErrorCode.NONE, 'the limit is inclusive');
});

test('magic 0/1 is INVALID_RECORD; magic 3 or negative and a length below 14 are CORRUPT_MESSAGE', () => {
  for (const [m, expected] of [[0, ErrorCode.INVALID_RECORD], [1, ErrorCode.INVALID_RECORD], [3, ErrorCode.CORRUPT_MESSAGE], [-1, ErrorCode.CORRUPT_MESSAGE]] as const) {
    const b = batch(1);
    b.writeInt8(m, 16);
    assert.is(code(() => validateRecords(b, cfg)), expected, `magic ${m}`);
  }
  const short = batch(1);
  short.writeInt32BE(13, 8);
  assert.is(code(() => validateRecords(short, cfg)), ErrorCode.CORRUPT_MESSAGE);
});

test('lastOffsetDelta inconsistent with the record count, or a zero count, is INVALID_RECORD', () => {
  const b = batch(3);
  b.writeInt32BE(5, 23);
  writeCrc(b, 0);
  assert.is(code(() => validateRecords(b, cfg)), ErrorCode.INVALID_RECORD);
  const z = batch(1);
  z.writeInt32BE(-1, 23);
  z.writeInt32BE(0, 57);
  writeCrc(z, 0);
  assert.is(code(() => validateRecords(z, cfg)), ErrorCode.INVALID_RECORD);
});

test('client batches: non-zero base offset, control bit, idempotent without sequence are INVALID_RECORD', () => {
  assert.is(code(() => validateRecords(buildRecordBatch({ baseOffset: 5n, records: [{ key: null, value: null }] }), cfg)), ErrorCode.INVALID_RECORD);
  assert.is(code(() => validateRecords(buildRecordBatch({ baseOffset: 5n, records: [{ key: null, value: null }] }), cfg, 'coordinator')), ErrorCode.NONE);
  const control = buildRecordBatch({ control: true, records: [{ key: Buffer.alloc(4), value: Buffer.alloc(6) }] });
  assert.is(code(() => validateRecords(control, cfg)), ErrorCode.INVALID_RECORD);
  assert.is(code(() => validateRecords(control, cfg, 'coordinator')), ErrorCode.NONE);
  assert.is(code(() => validateRecords(buildRecordBatch({ producerId: 7n, baseSequence: -1, records: [{ key: null, value: null }] }), cfg)), ErrorCode.INVALID_RECORD);
});

test('producer-set LogAppendTime on a LogAppendTime topic is INVALID_TIMESTAMP; unknown codec is UNSUPPORTED_COMPRESSION_TYPE', () => {
  const lat = buildRecordBatch({ timestampType: 'logAppend', records: [{ key: null, value: null }] });
  assert.is(code(() => validateRecords(lat, { ...cfg, messageTimestampType: 'LogAppendTime' })), ErrorCode.INVALID_TIMESTAMP);
  assert.is(code(() => validateRecords(lat, cfg)), ErrorCode.NONE);
  const c = batch(1);
  c.writeInt16BE(5, 21);
  writeCrc(c, 0);
  assert.is(code(() => validateRecords(c, cfg)), ErrorCode.UNSUPPORTED_COMPRESSION_TYPE);
});

test('an append larger than segment.bytes is RECORD_LIST_TOO_LARGE', () => {
  const b = batch(3);
  assert.is(code(() => validateRecords(b, { ...cfg, segmentBytes: b.length - 1 })), ErrorCode.RECORD_LIST_TOO_LARGE);
});

// ---- record level (behaviours.md P17, P17b, P18), as a real Kafka 4.4 answers in the probes --

const NOW = 1_700_000_000_000;
const at = { nowMs: NOW, topicPartition: 't-0' };

function recordErrors(fn: () => unknown): [number, number[]] {
  try {
    fn();
  } catch (err) {
    assert.instance(err, RecordValidationError);
    const e = err as RecordValidationError;
    return [e.errorCode, e.recordErrors.map((r) => r.batchIndex)];
  }
  return [ErrorCode.NONE, []];
}

test('CreateTime: records beyond message.timestamp.after.max.ms are INVALID_TIMESTAMP, each listed (P17)', () => {
  const bounded = { ...cfg, messageTimestampAfterMaxMs: 3_600_000, messageTimestampBeforeMaxMs: Number.MAX_SAFE_INTEGER };
  const b = buildRecordBatch({ records: [0, 2, 0].map((h) => ({ key: null, value: Buffer.from('v'), timestamp: BigInt(NOW + h * 3_600_000) })) });
  assert.equal(recordErrors(() => validateRecords(b, bounded, 'client', at)), [ErrorCode.INVALID_TIMESTAMP, [1]]);
  // compressed batches are checked the same way
  const z = buildRecordBatch({ compression: 'gzip', records: [2, 2].map((h) => ({ key: null, value: Buffer.from('v'), timestamp: BigInt(NOW + h * 3_600_000) })) });
  assert.equal(recordErrors(() => validateRecords(z, bounded, 'client', at)), [ErrorCode.INVALID_TIMESTAMP, [0, 1]]);
  // within the bound, far in the past (before.max.ms unlimited), or not checked at all
  assert.equal(recordErrors(() => validateRecords(batch(3, { timestamp: NOW - 10 * 365 * 86_400_000 }), bounded, 'client', at)), [ErrorCode.NONE, []]);
  assert.equal(recordErrors(() => validateRecords(b, cfg, 'client', at)), [ErrorCode.NONE, []]);
  // a past bound when configured
  assert.equal(recordErrors(() => validateRecords(batch(2, { timestamp: NOW - 7_200_000 }), { ...bounded, messageTimestampBeforeMaxMs: 3_600_000 }, 'client', at)), [ErrorCode.INVALID_TIMESTAMP, [0, 1]]);
  // coordinator appends are not checked
  assert.equal(recordErrors(() => validateRecords(b, bounded, 'coordinator', at)), [ErrorCode.NONE, []]);
});

test('compacted topic: records without a key are INVALID_RECORD, each listed, with Kafka\'s summary (P18)', () => {
  const compact = { ...cfg, cleanupPolicy: 'compact,delete' };
  const b = buildRecordBatch({ records: [Buffer.from('k'), null, null].map((key) => ({ key, value: Buffer.from('v'), timestamp: BigInt(NOW) })) });
  try {
    validateRecords(b, compact, 'client', at);
    assert.unreachable('keyless records accepted');
  } catch (err) {
    const e = err as RecordValidationError;
    assert.instance(e, RecordValidationError);
    assert.is(e.errorCode, ErrorCode.INVALID_RECORD);
    assert.equal(e.recordErrors.map((r) => r.batchIndex), [1, 2]);
    assert.match(e.message, /^One or more records have been rejected due to 2 record errors in total/);
  }
  assert.equal(recordErrors(() => validateRecords(batch(2, { keys: true, compression: 'lz4' }), compact, 'client', at)), [ErrorCode.NONE, []]);
  assert.equal(recordErrors(() => validateRecords(batch(2), { ...cfg, cleanupPolicy: 'delete' }, 'client', at)), [ErrorCode.NONE, []]);
});

test('the LogAppendTime bit: every record INVALID_TIMESTAMP on a LogAppendTime topic, accepted on CreateTime (P17b)', () => {
  const lat = buildRecordBatch({ timestampType: 'logAppend', records: [0, 1].map(() => ({ key: null, value: Buffer.from('v'), timestamp: BigInt(NOW) })) });
  assert.equal(recordErrors(() => validateRecords(lat, { ...cfg, messageTimestampType: 'LogAppendTime' }, 'client', at)), [ErrorCode.INVALID_TIMESTAMP, [0, 1]]);
  assert.equal(recordErrors(() => validateRecords(lat, { ...cfg, messageTimestampAfterMaxMs: 3_600_000 }, 'client', at)), [ErrorCode.NONE, []]);
});

test.run();
