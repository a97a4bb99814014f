/**
 * The due time of a record of a schedule topic, and the produce-time check of its
 * `samsa-deliver-at` header.
 *
 * `samsa-deliver-at`: epoch milliseconds as decimal digits (ASCII, at most 16, no sign or
 * spaces). Without the header a record is due at its timestamp plus the topic's
 * `samsa.schedule.delay.ms`. The produce check (Kafka's record-level validation style:
 * INVALID_RECORD, the record's index in record_errors, nothing of the batch stored) means the
 * scheduler never meets a malformed value in the log; should it still (a topic that became a
 * schedule topic later), it falls back to the timestamp rule.
 */
import { decodeRecordBatch } from '../protocol/records/record.js';

export const DELIVER_AT_HEADER = 'samsa-deliver-at';
export const SCHEDULED_FROM_HEADER = 'samsa-scheduled-from';
export const SCHEDULE_TARGET = 'samsa.schedule.target';
export const SCHEDULE_DELAY_MS = 'samsa.schedule.delay.ms';
export const SCHEDULE_TICK_MS = 'samsa.schedule.tick.ms';

const MAX_DIGITS = 16;

/** The header value as epoch ms, or -1 when it is not a decimal number. */
export function parseDeliverAt(value: Buffer | null): number {
  if (value === null || value.length === 0 || value.length > MAX_DIGITS) return -1;
  let n = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i] - 0x30;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

/** Due time of a record: its samsa-deliver-at header (the last one) if valid, else timestamp + delayMs. */
export function dueTimeOf(headers: readonly { key: string; value: Buffer | null }[], timestampMs: number, delayMs: number): number {
  for (let i = headers.length - 1; i >= 0; i--) {
    if (headers[i].key === DELIVER_AT_HEADER) {
      const at = parseDeliverAt(headers[i].value);
      if (at >= 0) return at;
      break;
    }
  }
  return timestampMs + delayMs;
}

/**
 * Produce check for a schedule topic's batch: the index and message of the first record whose
 * samsa-deliver-at header is malformed, or null. A batch that cannot be decoded is left to the
 * log's own validation (CORRUPT_MESSAGE and friends).
 */
export function checkDeliverAtHeaders(batch: Buffer): { batchIndex: number; message: string } | null {
  let decoded;
  try {
    decoded = decodeRecordBatch(batch, 0);
  } catch {
    return null;
  }
  if (decoded.isControl) return null;
  for (let i = 0; i < decoded.records.length; i++) {
    for (const h of decoded.records[i].headers) {
      if (h.key === DELIVER_AT_HEADER && parseDeliverAt(h.value) < 0) {
        const shown = h.value === null ? 'null' : JSON.stringify(h.value.subarray(0, 40).toString('utf8'));
        return { batchIndex: i, message: `${DELIVER_AT_HEADER} must be epoch milliseconds in decimal digits, got ${shown}` };
      }
    }
  }
  return null;
}
