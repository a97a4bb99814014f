/**
 * The share-group records of `__consumer_offsets` (KIP-932), in Kafka 4.4's format: key = int16
 * record type + key struct, value = int16 version (0) + value struct, null value = tombstone.
 *
 * | type | key → value |
 * |---|---|
 * | 10 | ShareGroupMemberMetadataKey (group, member) → subscription, client, rack |
 * | 11 | ShareGroupMetadataKey (group) → group epoch, subscribed topics' metadata hash |
 * | 12 | ShareGroupTargetAssignmentMetadataKey (group) → target assignment epoch |
 * | 13 | ShareGroupTargetAssignmentMemberKey (group, member) → member's target partitions |
 * | 14 | ShareGroupCurrentMemberAssignmentKey (group, member) → member epoch, assigned partitions |
 * | 15 | ShareGroupStatePartitionMetadataKey (group) → share-partitions whose state is initialised |
 */
import { Reader } from '../../protocol/reader.js';
import { readRecordValue } from './record-value.js';
import { Writer } from '../../protocol/writer.js';
import * as memk from '../../protocol/generated/messages/share-group-member-metadata-key.js';
import * as memv from '../../protocol/generated/messages/share-group-member-metadata-value.js';
import * as mk from '../../protocol/generated/messages/share-group-metadata-key.js';
import * as mv from '../../protocol/generated/messages/share-group-metadata-value.js';
import * as tmk from '../../protocol/generated/messages/share-group-target-assignment-metadata-key.js';
import * as tmv from '../../protocol/generated/messages/share-group-target-assignment-metadata-value.js';
import * as tak from '../../protocol/generated/messages/share-group-target-assignment-member-key.js';
import * as tav from '../../protocol/generated/messages/share-group-target-assignment-member-value.js';
import * as cak from '../../protocol/generated/messages/share-group-current-member-assignment-key.js';
import * as cav from '../../protocol/generated/messages/share-group-current-member-assignment-value.js';
import * as spk from '../../protocol/generated/messages/share-group-state-partition-metadata-key.js';
import * as spv from '../../protocol/generated/messages/share-group-state-partition-metadata-value.js';
import type { LogRecord } from '../runtime/coordinator-log.js';

export type ShareGroupRecord =
  | { type: 'sg-member'; groupId: string; memberId: string; value: memv.ShareGroupMemberMetadataValue | null }
  | { type: 'sg-metadata'; groupId: string; value: mv.ShareGroupMetadataValue | null }
  | { type: 'sg-target-metadata'; groupId: string; value: tmv.ShareGroupTargetAssignmentMetadataValue | null }
  | { type: 'sg-target-member'; groupId: string; memberId: string; value: tav.ShareGroupTargetAssignmentMemberValue | null }
  | { type: 'sg-current'; groupId: string; memberId: string; value: cav.ShareGroupCurrentMemberAssignmentValue | null }
  | { type: 'sg-state-partitions'; groupId: string; value: spv.ShareGroupStatePartitionMetadataValue | null };

const TYPES = new Set(['sg-member', 'sg-metadata', 'sg-target-metadata', 'sg-target-member', 'sg-current', 'sg-state-partitions']);

export function isShareGroupRecord(r: { type: string }): r is ShareGroupRecord {
  return TYPES.has(r.type);
}

function key(type: number, write: (w: Writer) => void): Buffer {
  const w = new Writer(64);
  w.int16(type);
  write(w);
  return w.toBuffer();
}

function value<T>(v: T | null, write: (w: Writer, version: number, m: T) => void): Buffer | null {
  if (v === null) return null;
  const w = new Writer(64);
  w.int16(0);
  write(w, 0, v);
  return w.toBuffer();
}

export function serializeShareGroupRecord(r: ShareGroupRecord): LogRecord {
  switch (r.type) {
    case 'sg-member':
      return { key: key(10, (w) => memk.writeShareGroupMemberMetadataKey(w, 10, { groupId: r.groupId, memberId: r.memberId })), value: value(r.value, memv.writeShareGroupMemberMetadataValue) };
    case 'sg-metadata':
      return { key: key(11, (w) => mk.writeShareGroupMetadataKey(w, 11, { groupId: r.groupId })), value: value(r.value, mv.writeShareGroupMetadataValue) };
    case 'sg-target-metadata':
      return { key: key(12, (w) => tmk.writeShareGroupTargetAssignmentMetadataKey(w, 12, { groupId: r.groupId })), value: value(r.value, tmv.writeShareGroupTargetAssignmentMetadataValue) };
    case 'sg-target-member':
      return { key: key(13, (w) => tak.writeShareGroupTargetAssignmentMemberKey(w, 13, { groupId: r.groupId, memberId: r.memberId })), value: value(r.value, tav.writeShareGroupTargetAssignmentMemberValue) };
    case 'sg-current':
      return { key: key(14, (w) => cak.writeShareGroupCurrentMemberAssignmentKey(w, 14, { groupId: r.groupId, memberId: r.memberId })), value: value(r.value, cav.writeShareGroupCurrentMemberAssignmentValue) };
    case 'sg-state-partitions':
      return { key: key(15, (w) => spk.writeShareGroupStatePartitionMetadataKey(w, 15, { groupId: r.groupId })), value: value(r.value, spv.writeShareGroupStatePartitionMetadataValue) };
  }
}


/** The record of a key type 10-15, or null for other types. */
export function deserializeShareGroupRecord(type: number, kr: Reader, lr: LogRecord): ShareGroupRecord | null {
  switch (type) {
    case 10: {
      const k = memk.readShareGroupMemberMetadataKey(kr, 10);
      return { type: 'sg-member', groupId: k.groupId, memberId: k.memberId, value: readRecordValue(lr.value, memv.readShareGroupMemberMetadataValue) };
    }
    case 11: return { type: 'sg-metadata', groupId: mk.readShareGroupMetadataKey(kr, 11).groupId, value: readRecordValue(lr.value, mv.readShareGroupMetadataValue) };
    case 12: return { type: 'sg-target-metadata', groupId: tmk.readShareGroupTargetAssignmentMetadataKey(kr, 12).groupId, value: readRecordValue(lr.value, tmv.readShareGroupTargetAssignmentMetadataValue) };
    case 13: {
      const k = tak.readShareGroupTargetAssignmentMemberKey(kr, 13);
      return { type: 'sg-target-member', groupId: k.groupId, memberId: k.memberId, value: readRecordValue(lr.value, tav.readShareGroupTargetAssignmentMemberValue) };
    }
    case 14: {
      const k = cak.readShareGroupCurrentMemberAssignmentKey(kr, 14);
      return { type: 'sg-current', groupId: k.groupId, memberId: k.memberId, value: readRecordValue(lr.value, cav.readShareGroupCurrentMemberAssignmentValue) };
    }
    case 15: return { type: 'sg-state-partitions', groupId: spk.readShareGroupStatePartitionMetadataKey(kr, 15).groupId, value: readRecordValue(lr.value, spv.readShareGroupStatePartitionMetadataValue) };
    default: return null;
  }
}
