/**
 * The KIP-848 consumer-group records of `__consumer_offsets`, in Kafka's format (key = int16
 * version + struct, value = int16 version + struct, null value = tombstone). The key version
 * tells the record type:
 *
 * | key version | key → value |
 * |---|---|
 * | 3 | ConsumerGroupMetadataKey (group) → ConsumerGroupMetadataValue (group epoch) |
 * | 4 | ConsumerGroupPartitionMetadataKey (group) → ...Value (subscribed topics: id, name, partitions) |
 * | 5 | ConsumerGroupMemberMetadataKey (group, member) → ...Value (subscription, client, rack, timeouts) |
 * | 6 | ConsumerGroupTargetAssignmentMetadataKey (group) → ...Value (target assignment epoch) |
 * | 7 | ConsumerGroupTargetAssignmentMemberKey (group, member) → ...Value (member's target) |
 * | 8 | ConsumerGroupCurrentMemberAssignmentKey (group, member) → ...Value (epochs, state, owned partitions) |
 *
 * Values are written at version 0 (flexible): fields Kafka 4.x added as tagged fields (such as the
 * group metadata hash) are skipped when read, as Kafka skips unknown tags.
 */
import { Reader } from '../../protocol/reader.js';
import { readRecordValue } from './record-value.js';
import { Writer } from '../../protocol/writer.js';
import * as mk from '../../protocol/generated/messages/consumer-group-metadata-key.js';
import * as mv from '../../protocol/generated/messages/consumer-group-metadata-value.js';
import * as pk from '../../protocol/generated/messages/consumer-group-partition-metadata-key.js';
import * as pv from '../../protocol/generated/messages/consumer-group-partition-metadata-value.js';
import * as memk from '../../protocol/generated/messages/consumer-group-member-metadata-key.js';
import * as memv from '../../protocol/generated/messages/consumer-group-member-metadata-value.js';
import * as tmk from '../../protocol/generated/messages/consumer-group-target-assignment-metadata-key.js';
import * as tmv from '../../protocol/generated/messages/consumer-group-target-assignment-metadata-value.js';
import * as tak from '../../protocol/generated/messages/consumer-group-target-assignment-member-key.js';
import * as tav from '../../protocol/generated/messages/consumer-group-target-assignment-member-value.js';
import * as cak from '../../protocol/generated/messages/consumer-group-current-member-assignment-key.js';
import * as cav from '../../protocol/generated/messages/consumer-group-current-member-assignment-value.js';
import type { LogRecord } from '../runtime/coordinator-log.js';

export type ConsumerGroupMetadataValue = mv.ConsumerGroupMetadataValue;
export type ConsumerGroupPartitionMetadataValue = pv.ConsumerGroupPartitionMetadataValue;
export type ConsumerGroupMemberMetadataValue = memv.ConsumerGroupMemberMetadataValue;
export type ConsumerGroupTargetAssignmentMetadataValue = tmv.ConsumerGroupTargetAssignmentMetadataValue;
export type ConsumerGroupTargetAssignmentMemberValue = tav.ConsumerGroupTargetAssignmentMemberValue;
export type ConsumerGroupCurrentMemberAssignmentValue = cav.ConsumerGroupCurrentMemberAssignmentValue;

export type ConsumerGroupRecord =
  | { type: 'cg-metadata'; groupId: string; value: ConsumerGroupMetadataValue | null }
  | { type: 'cg-partition-metadata'; groupId: string; value: ConsumerGroupPartitionMetadataValue | null }
  | { type: 'cg-member'; groupId: string; memberId: string; value: ConsumerGroupMemberMetadataValue | null }
  | { type: 'cg-target-metadata'; groupId: string; value: ConsumerGroupTargetAssignmentMetadataValue | null }
  | { type: 'cg-target-member'; groupId: string; memberId: string; value: ConsumerGroupTargetAssignmentMemberValue | null }
  | { type: 'cg-current'; groupId: string; memberId: string; value: ConsumerGroupCurrentMemberAssignmentValue | null };

export const CONSUMER_GROUP_RECORD_TYPES = new Set(['cg-metadata', 'cg-partition-metadata', 'cg-member', 'cg-target-metadata', 'cg-target-member', 'cg-current']);

export function isConsumerGroupRecord(r: { type: string }): r is ConsumerGroupRecord {
  return CONSUMER_GROUP_RECORD_TYPES.has(r.type);
}

function versioned(version: number, write: (w: Writer) => void): Buffer {
  const w = new Writer(64);
  w.int16(version);
  write(w);
  return w.toBuffer();
}

function value<T>(v: T | null, write: (w: Writer, version: number, m: T) => void): Buffer | null {
  return v === null ? null : versioned(0, (w) => write(w, 0, v));
}

export function serializeConsumerGroupRecord(r: ConsumerGroupRecord): LogRecord {
  switch (r.type) {
    case 'cg-metadata':
      return { key: versioned(3, (w) => mk.writeConsumerGroupMetadataKey(w, 3, { groupId: r.groupId })), value: value(r.value, mv.writeConsumerGroupMetadataValue) };
    case 'cg-partition-metadata':
      return { key: versioned(4, (w) => pk.writeConsumerGroupPartitionMetadataKey(w, 4, { groupId: r.groupId })), value: value(r.value, pv.writeConsumerGroupPartitionMetadataValue) };
    case 'cg-member':
      return { key: versioned(5, (w) => memk.writeConsumerGroupMemberMetadataKey(w, 5, { groupId: r.groupId, memberId: r.memberId })), value: value(r.value, memv.writeConsumerGroupMemberMetadataValue) };
    case 'cg-target-metadata':
      return { key: versioned(6, (w) => tmk.writeConsumerGroupTargetAssignmentMetadataKey(w, 6, { groupId: r.groupId })), value: value(r.value, tmv.writeConsumerGroupTargetAssignmentMetadataValue) };
    case 'cg-target-member':
      return { key: versioned(7, (w) => tak.writeConsumerGroupTargetAssignmentMemberKey(w, 7, { groupId: r.groupId, memberId: r.memberId })), value: value(r.value, tav.writeConsumerGroupTargetAssignmentMemberValue) };
    case 'cg-current':
      return { key: versioned(8, (w) => cak.writeConsumerGroupCurrentMemberAssignmentKey(w, 8, { groupId: r.groupId, memberId: r.memberId })), value: value(r.value, cav.writeConsumerGroupCurrentMemberAssignmentValue) };
  }
}


/** The record of a key version 3-8, or null for other key versions. */
export function deserializeConsumerGroupRecord(keyVersion: number, kr: Reader, lr: LogRecord): ConsumerGroupRecord | null {
  switch (keyVersion) {
    case 3: return { type: 'cg-metadata', groupId: mk.readConsumerGroupMetadataKey(kr, 3).groupId, value: readRecordValue(lr.value, mv.readConsumerGroupMetadataValue) };
    case 4: return { type: 'cg-partition-metadata', groupId: pk.readConsumerGroupPartitionMetadataKey(kr, 4).groupId, value: readRecordValue(lr.value, pv.readConsumerGroupPartitionMetadataValue) };
    case 5: {
      const k = memk.readConsumerGroupMemberMetadataKey(kr, 5);
      return { type: 'cg-member', groupId: k.groupId, memberId: k.memberId, value: readRecordValue(lr.value, memv.readConsumerGroupMemberMetadataValue) };
    }
    case 6: return { type: 'cg-target-metadata', groupId: tmk.readConsumerGroupTargetAssignmentMetadataKey(kr, 6).groupId, value: readRecordValue(lr.value, tmv.readConsumerGroupTargetAssignmentMetadataValue) };
    case 7: {
      const k = tak.readConsumerGroupTargetAssignmentMemberKey(kr, 7);
      return { type: 'cg-target-member', groupId: k.groupId, memberId: k.memberId, value: readRecordValue(lr.value, tav.readConsumerGroupTargetAssignmentMemberValue) };
    }
    case 8: {
      const k = cak.readConsumerGroupCurrentMemberAssignmentKey(kr, 8);
      return { type: 'cg-current', groupId: k.groupId, memberId: k.memberId, value: readRecordValue(lr.value, cav.readConsumerGroupCurrentMemberAssignmentValue) };
    }
    default: return null;
  }
}
