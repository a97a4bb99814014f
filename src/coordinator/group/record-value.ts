/**
 * The value of a group coordinator record (Kafka's CoordinatorRecordSerde): a version (int16)
 * then the message, read here at version 0; a null value is a tombstone (null).
 */
import { Reader } from '../../protocol/reader.js';

export function readRecordValue<T>(buf: Buffer | null, read: (r: Reader, v: number) => T): T | null {
  if (buf === null) return null;
  const r = new Reader(buf);
  r.int16();
  return read(r, 0);
}
