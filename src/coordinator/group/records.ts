/**
 * The records of `__consumer_offsets`, in Kafka's own format: key = int16 version + struct,
 * value = int16 version + struct (null value = tombstone).
 *
 * - key version 0/1: OffsetCommitKey (group, topic, partition) → OffsetCommitValue
 * - key version 2: GroupMetadataKey (group) → GroupMetadataValue
 * - key versions 3-8: KIP-848 consumer groups (consumer-group-records.ts)
 * - record types 10-15: share groups (share-group-records.ts)
 * - record types 17-23: streams groups (streams-group-records.ts)
 * - other types (regular expressions): not ours, skipped on load.
 *
 * Versions written are the ones Kafka 3.x writes: OffsetCommitKey v1, OffsetCommitValue v3 (v1
 * when an explicit expire timestamp is set, the only version that carries it), GroupMetadataKey
 * v2, GroupMetadataValue v3.
 */
import { Reader } from '../../protocol/reader.js';
import { Writer } from '../../protocol/writer.js';
import { readGroupMetadataKey, writeGroupMetadataKey } from '../../protocol/generated/messages/group-metadata-key.js';
import { readGroupMetadataValue, writeGroupMetadataValue, type GroupMetadataValue } from '../../protocol/generated/messages/group-metadata-value.js';
import { readOffsetCommitKey, writeOffsetCommitKey } from '../../protocol/generated/messages/offset-commit-key.js';
import { readOffsetCommitValue, writeOffsetCommitValue, type OffsetCommitValue } from '../../protocol/generated/messages/offset-commit-value.js';
import type { LogRecord, } from '../runtime/coordinator-log.js';
import type { RecordSerde } from '../runtime/runtime.js';
import { deserializeConsumerGroupRecord, serializeConsumerGroupRecord, type ConsumerGroupRecord } from './consumer-group-records.js';
import { deserializeShareGroupRecord, isShareGroupRecord, serializeShareGroupRecord, type ShareGroupRecord } from './share-group-records.js';
import { deserializeStreamsGroupRecord, isStreamsGroupKeyVersion, isStreamsGroupRecord, serializeStreamsGroupRecord, type StreamsGroupRecord } from './streams-group-records.js';

export type { GroupMetadataValue, OffsetCommitValue };

export interface GroupMetadataRecord {
  type: 'group';
  groupId: string;
  value: GroupMetadataValue | null;
}

export interface OffsetCommitRecord {
  type: 'offset';
  groupId: string;
  topic: string;
  partition: number;
  value: OffsetCommitValue | null;
}

export type GroupCoordinatorRecord = GroupMetadataRecord | OffsetCommitRecord | ConsumerGroupRecord | ShareGroupRecord | StreamsGroupRecord;

const OFFSET_COMMIT_KEY_VERSION = 1;
const GROUP_METADATA_KEY_VERSION = 2;
const GROUP_METADATA_VALUE_VERSION = 3;
const OFFSET_COMMIT_VALUE_VERSION = 3;
const OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRY = 1;

function versioned(version: number, write: (w: Writer) => void): Buffer {
  const w = new Writer(64);
  w.int16(version);
  write(w);
  return w.toBuffer();
}

export const groupRecordSerde: RecordSerde<GroupCoordinatorRecord> = {
  serialize(r: GroupCoordinatorRecord): LogRecord {
    if (isShareGroupRecord(r)) return serializeShareGroupRecord(r);
    if (isStreamsGroupRecord(r)) return serializeStreamsGroupRecord(r);
    if (r.type !== 'group' && r.type !== 'offset') return serializeConsumerGroupRecord(r);
    if (r.type === 'group') {
      const v = r.value;
      return {
        key: versioned(GROUP_METADATA_KEY_VERSION, (w) => writeGroupMetadataKey(w, GROUP_METADATA_KEY_VERSION, { group: r.groupId })),
        value: v === null ? null : versioned(GROUP_METADATA_VALUE_VERSION, (w) => writeGroupMetadataValue(w, GROUP_METADATA_VALUE_VERSION, v)),
      };
    }
    const v = r.value;
    const valueVersion = v !== null && v.expireTimestamp !== -1n ? OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRY : OFFSET_COMMIT_VALUE_VERSION;
    return {
      key: versioned(OFFSET_COMMIT_KEY_VERSION, (w) => writeOffsetCommitKey(w, OFFSET_COMMIT_KEY_VERSION, { group: r.groupId, topic: r.topic, partition: r.partition })),
      value: v === null ? null : versioned(valueVersion, (w) => writeOffsetCommitValue(w, valueVersion, v)),
    };
  },

  deserialize(lr: LogRecord): GroupCoordinatorRecord | null {
    const kr = new Reader(lr.key);
    const keyVersion = kr.int16();
    if (keyVersion === 0 || keyVersion === 1) {
      const key = readOffsetCommitKey(kr, keyVersion);
      let value: OffsetCommitValue | null = null;
      if (lr.value !== null) {
        const vr = new Reader(lr.value);
        const vv = vr.int16();
        value = readOffsetCommitValue(vr, Math.min(vv, 4));
      }
      return { type: 'offset', groupId: key.group, topic: key.topic, partition: key.partition, value };
    }
    if (keyVersion === 2) {
      const key = readGroupMetadataKey(kr, keyVersion);
      let value: GroupMetadataValue | null = null;
      if (lr.value !== null) {
        const vr = new Reader(lr.value);
        const vv = vr.int16();
        value = readGroupMetadataValue(vr, Math.min(vv, 4));
      }
      return { type: 'group', groupId: key.group, value };
    }
    if (keyVersion >= 10 && keyVersion <= 15) return deserializeShareGroupRecord(keyVersion, kr, lr);
    if (isStreamsGroupKeyVersion(keyVersion)) return deserializeStreamsGroupRecord(keyVersion, kr, lr);
    return deserializeConsumerGroupRecord(keyVersion, kr, lr);
  },
};
