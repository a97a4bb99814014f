/**
 * Fetched record batches as REST Proxy v2 consumer records: `{topic, key, value, partition,
 * offset}` with keys and values base64 (binary format), parsed from their JSON text (json
 * format), or read with their schema (avro, jsonschema: v2-schema-records.ts), taken from a partition's position on, within a read's byte budget. The budget follows
 * Confluent's KafkaConsumerReadTask: a record's rough size is its key and value bytes; a read
 * stops before the record that would reach max_bytes, and once more than fetch.min.bytes have
 * been taken (fetch.min.bytes -1: never, the read waits its whole timeout).
 */
import { decodeRecordBatch } from '../../protocol/records/record.js';
import { RestProxyError } from './rest-common.js';
import { V2Error } from './v2-common.js';

export interface RestRecord {
  topic: string;
  key: unknown;
  value: unknown;
  partition: number;
  offset: number;
}

export interface ReadBudget {
  bytes: number;
  readonly maxBytes: number;
  /** -1 (or below): no minimum. */
  readonly minBytes: number;
  exceededMax: boolean;
  exceededMin: boolean;
}

export function newBudget(maxBytes: number, minBytes: number): ReadBudget {
  return { bytes: 0, maxBytes, minBytes: minBytes < 0 ? Infinity : minBytes, exceededMax: false, exceededMin: false };
}

/** A record the json format cannot parse: the read ends before it (as the Java deserializer's error does). */
export class DeserializeError extends RestProxyError {
  constructor(topic: string, partition: number, offset: bigint, what: 'key' | 'value') {
    super(500, V2Error.KAFKA_ERROR, `Kafka error: Error deserializing ${what} for partition ${topic}-${partition} at offset ${offset}. If needed, please seek past the record to continue consumption.`);
  }
}

/** Bytes as the client gets them (null: the binary format, base64), or a promise of them; throws when unreadable. */
export type Deserialize = ((buf: Buffer) => unknown) | null;

/** The json format: the bytes' JSON text parsed (Jackson's readValue). */
export const jsonDeserialize = (buf: Buffer): unknown => JSON.parse(buf.toString('utf8'));

async function convert(buf: Buffer | null, deserialize: Deserialize, topic: string, partition: number, offset: bigint, what: 'key' | 'value'): Promise<unknown> {
  if (buf === null) return null;
  if (deserialize === null) return buf.toString('base64');
  try {
    return await deserialize(buf);
  } catch {
    throw new DeserializeError(topic, partition, offset, what);
  }
}

/**
 * Takes the records of one partition's fetched data (whole batches; a partial last batch is left
 * for the next fetch) from `position` on into `out`, within the budget. Control batches are
 * skipped (read_uncommitted, as Confluent's consumers). Returns the partition's new position; a
 * DeserializeError leaves the position at the bad record.
 */
export async function takeRecords(data: Buffer, topic: string, partition: number, position: bigint, deserialize: Deserialize, budget: ReadBudget, out: RestRecord[]): Promise<{ position: bigint; error: DeserializeError | null }> {
  let next = position;
  let pos = 0;
  while (pos + 12 <= data.length && !budget.exceededMax) {
    const size = 12 + data.readInt32BE(pos + 8);
    if (size < 61 || pos + size > data.length) break;
    const batch = decodeRecordBatch(data, pos);
    pos += size;
    const last = batch.baseOffset + BigInt(batch.lastOffsetDelta);
    if (last < next) continue;
    if (!batch.isControl) {
      for (const r of batch.records) {
        if (r.offset < next) continue;
        const size = (r.key?.length ?? 0) + (r.value?.length ?? 0);
        if (budget.bytes + size >= budget.maxBytes) {
          budget.exceededMax = true;
          return { position: next, error: null };
        }
        let key: unknown;
        let value: unknown;
        try {
          key = await convert(r.key, deserialize, topic, partition, r.offset, 'key');
          value = await convert(r.value, deserialize, topic, partition, r.offset, 'value');
        } catch (err) {
          if (err instanceof DeserializeError) return { position: next, error: err };
          throw err;
        }
        out.push({ topic, key, value, partition, offset: Number(r.offset) });
        budget.bytes += size;
        if (budget.bytes > budget.minBytes) budget.exceededMin = true;
        next = r.offset + 1n;
      }
    }
    if (last + 1n > next) next = last + 1n;
  }
  return { position: next, error: null };
}
