/**
 * The records of `__share_group_state`, byte for byte as Kafka 4.4's share coordinator writes them
 * (ShareCoordinatorRecordHelpers, CoordinatorRecordType):
 *
 * - key   = int16 record type + key struct: 0 ShareSnapshotKey, 1 ShareUpdateKey, both
 *           { group_id string, topic_id uuid, partition int32 } (not flexible);
 * - value = int16 version (0) + ShareSnapshotValue / ShareUpdateValue (flexible, with the tagged
 *           DeliveryCompleteCount, tag 0, default -1, of KIP-1226);
 * - a ShareSnapshot key with a null value is the tombstone of that share-partition.
 *
 * Records of other types (a newer Kafka's) are skipped on load, as Kafka skips unknown versions.
 */
import { Reader } from '../../protocol/reader.js';
import { Writer } from '../../protocol/writer.js';
import { readShareSnapshotKey, writeShareSnapshotKey } from '../../protocol/generated/messages/share-snapshot-key.js';
import { readShareSnapshotValue, writeShareSnapshotValue, type ShareSnapshotValue } from '../../protocol/generated/messages/share-snapshot-value.js';
import { writeShareUpdateKey } from '../../protocol/generated/messages/share-update-key.js';
import { readShareUpdateValue, writeShareUpdateValue, type ShareUpdateValue } from '../../protocol/generated/messages/share-update-value.js';
import type { LogRecord } from '../runtime/coordinator-log.js';
import type { RecordSerde } from '../runtime/runtime.js';

export type { ShareSnapshotValue, ShareUpdateValue };

/** CoordinatorRecordType ids of the share coordinator. */
export const SHARE_SNAPSHOT = 0;
export const SHARE_UPDATE = 1;
const VALUE_VERSION = 0;

export interface SharePartitionRecordKey {
  groupId: string;
  topicId: string;
  partition: number;
}

export type ShareCoordinatorRecord =
  | { type: 'snapshot'; key: SharePartitionRecordKey; value: ShareSnapshotValue }
  | { type: 'update'; key: SharePartitionRecordKey; value: ShareUpdateValue }
  | { type: 'tombstone'; key: SharePartitionRecordKey };

function keyBytes(type: number, key: SharePartitionRecordKey): Buffer {
  const w = new Writer(32 + key.groupId.length * 3);
  w.int16(type);
  // ShareSnapshotKey and ShareUpdateKey have the same fields (version 0, not flexible).
  if (type === SHARE_SNAPSHOT) writeShareSnapshotKey(w, 0, key);
  else writeShareUpdateKey(w, 0, key);
  return w.toBuffer();
}

export const shareRecordSerde: RecordSerde<ShareCoordinatorRecord> = {
  serialize(r: ShareCoordinatorRecord): LogRecord {
    if (r.type === 'tombstone') return { key: keyBytes(SHARE_SNAPSHOT, r.key), value: null };
    const w = new Writer(64 + 20 * r.value.stateBatches.length);
    w.int16(VALUE_VERSION);
    if (r.type === 'snapshot') writeShareSnapshotValue(w, VALUE_VERSION, r.value);
    else writeShareUpdateValue(w, VALUE_VERSION, r.value);
    return { key: keyBytes(r.type === 'snapshot' ? SHARE_SNAPSHOT : SHARE_UPDATE, r.key), value: w.toBuffer() };
  },
  deserialize(lr: LogRecord): ShareCoordinatorRecord | null {
    const kr = new Reader(lr.key);
    const type = kr.int16();
    if (type !== SHARE_SNAPSHOT && type !== SHARE_UPDATE) return null;
    const k = readShareSnapshotKey(kr, 0);
    const key = { groupId: k.groupId, topicId: k.topicId, partition: k.partition };
    if (lr.value === null) return type === SHARE_SNAPSHOT ? { type: 'tombstone', key } : null;
    const vr = new Reader(lr.value);
    if (vr.int16() !== VALUE_VERSION) return null;
    return type === SHARE_SNAPSHOT
      ? { type: 'snapshot', key, value: readShareSnapshotValue(vr, VALUE_VERSION) }
      : { type: 'update', key, value: readShareUpdateValue(vr, VALUE_VERSION) };
  },
};
