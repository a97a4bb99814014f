/**
 * The streams-group records of `__consumer_offsets` (KIP-1071), in Kafka 4.4's format (key =
 * int16 record type + struct, value = int16 version + struct, null value = tombstone):
 *
 * | type | key → value |
 * |---|---|
 * | 17 | StreamsGroupMetadataKey (group) → ...Value (group epoch, metadata hash, validated topology epoch) |
 * | 19 | StreamsGroupMemberMetadataKey (group, member) → ...Value (client, process, endpoint, tags, topology epoch) |
 * | 20 | StreamsGroupTargetAssignmentMetadataKey (group) → ...Value (target assignment epoch) |
 * | 21 | StreamsGroupTargetAssignmentMemberKey (group, member) → ...Value (target tasks) |
 * | 22 | StreamsGroupCurrentMemberAssignmentKey (group, member) → ...Value (epochs, state, tasks, pending revocation) |
 * | 23 | StreamsGroupTopologyKey (group) → ...Value (the topology) |
 *
 * (Type 18, the partition metadata of Kafka 4.0, is no longer written by 4.4 and is skipped.)
 * Values are written at version 0; tagged fields Samsa does not use keep their defaults.
 */
import { Reader } from '../../protocol/reader.js';
import { readRecordValue } from './record-value.js';
import { Writer } from '../../protocol/writer.js';
import * as mk from '../../protocol/generated/messages/streams-group-metadata-key.js';
import * as mv from '../../protocol/generated/messages/streams-group-metadata-value.js';
import * as memk from '../../protocol/generated/messages/streams-group-member-metadata-key.js';
import * as memv from '../../protocol/generated/messages/streams-group-member-metadata-value.js';
import * as tmk from '../../protocol/generated/messages/streams-group-target-assignment-metadata-key.js';
import * as tmv from '../../protocol/generated/messages/streams-group-target-assignment-metadata-value.js';
import * as tak from '../../protocol/generated/messages/streams-group-target-assignment-member-key.js';
import * as tav from '../../protocol/generated/messages/streams-group-target-assignment-member-value.js';
import * as cak from '../../protocol/generated/messages/streams-group-current-member-assignment-key.js';
import * as cav from '../../protocol/generated/messages/streams-group-current-member-assignment-value.js';
import * as tpk from '../../protocol/generated/messages/streams-group-topology-key.js';
import * as tpv from '../../protocol/generated/messages/streams-group-topology-value.js';
import type { LogRecord } from '../runtime/coordinator-log.js';

export type StreamsGroupMetadataValue = mv.StreamsGroupMetadataValue;
export type StreamsGroupMemberMetadataValue = memv.StreamsGroupMemberMetadataValue;
export type StreamsGroupTargetAssignmentMemberValue = tav.StreamsGroupTargetAssignmentMemberValue;
export type StreamsGroupCurrentMemberAssignmentValue = cav.StreamsGroupCurrentMemberAssignmentValue;
export type StreamsGroupTopologyValue = tpv.StreamsGroupTopologyValue;

export type StreamsGroupRecord =
  | { type: 'st-metadata'; groupId: string; value: StreamsGroupMetadataValue | null }
  | { type: 'st-member'; groupId: string; memberId: string; value: StreamsGroupMemberMetadataValue | null }
  | { type: 'st-target-metadata'; groupId: string; value: tmv.StreamsGroupTargetAssignmentMetadataValue | null }
  | { type: 'st-target-member'; groupId: string; memberId: string; value: StreamsGroupTargetAssignmentMemberValue | null }
  | { type: 'st-current'; groupId: string; memberId: string; value: StreamsGroupCurrentMemberAssignmentValue | null }
  | { type: 'st-topology'; groupId: string; value: StreamsGroupTopologyValue | null };

const TYPES = new Set(['st-metadata', 'st-member', 'st-target-metadata', 'st-target-member', 'st-current', 'st-topology']);

export function isStreamsGroupRecord(r: { type: string }): r is StreamsGroupRecord {
  return TYPES.has(r.type);
}

/** Record types (key versions) of streams groups, 18 included so that it is recognised and skipped. */
export function isStreamsGroupKeyVersion(v: number): boolean {
  return v >= 17 && v <= 23;
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

export function serializeStreamsGroupRecord(r: StreamsGroupRecord): LogRecord {
  const g = r.groupId;
  switch (r.type) {
    case 'st-metadata':
      return { key: versioned(17, (w) => mk.writeStreamsGroupMetadataKey(w, 17, { groupId: g })), value: value(r.value, mv.writeStreamsGroupMetadataValue) };
    case 'st-member':
      return { key: versioned(19, (w) => memk.writeStreamsGroupMemberMetadataKey(w, 19, { groupId: g, memberId: r.memberId })), value: value(r.value, memv.writeStreamsGroupMemberMetadataValue) };
    case 'st-target-metadata':
      return { key: versioned(20, (w) => tmk.writeStreamsGroupTargetAssignmentMetadataKey(w, 20, { groupId: g })), value: value(r.value, tmv.writeStreamsGroupTargetAssignmentMetadataValue) };
    case 'st-target-member':
      return { key: versioned(21, (w) => tak.writeStreamsGroupTargetAssignmentMemberKey(w, 21, { groupId: g, memberId: r.memberId })), value: value(r.value, tav.writeStreamsGroupTargetAssignmentMemberValue) };
    case 'st-current':
      return { key: versioned(22, (w) => cak.writeStreamsGroupCurrentMemberAssignmentKey(w, 22, { groupId: g, memberId: r.memberId })), value: value(r.value, cav.writeStreamsGroupCurrentMemberAssignmentValue) };
    case 'st-topology':
      return { key: versioned(23, (w) => tpk.writeStreamsGroupTopologyKey(w, 23, { groupId: g })), value: value(r.value, tpv.writeStreamsGroupTopologyValue) };
  }
}


/** The record of a key version 17-23 (null for 18, which Kafka 4.4 no longer uses). */
export function deserializeStreamsGroupRecord(keyVersion: number, kr: Reader, lr: LogRecord): StreamsGroupRecord | null {
  switch (keyVersion) {
    case 17: return { type: 'st-metadata', groupId: mk.readStreamsGroupMetadataKey(kr, 17).groupId, value: readRecordValue(lr.value, mv.readStreamsGroupMetadataValue) };
    case 19: {
      const k = memk.readStreamsGroupMemberMetadataKey(kr, 19);
      return { type: 'st-member', groupId: k.groupId, memberId: k.memberId, value: readRecordValue(lr.value, memv.readStreamsGroupMemberMetadataValue) };
    }
    case 20: return { type: 'st-target-metadata', groupId: tmk.readStreamsGroupTargetAssignmentMetadataKey(kr, 20).groupId, value: readRecordValue(lr.value, tmv.readStreamsGroupTargetAssignmentMetadataValue) };
    case 21: {
      const k = tak.readStreamsGroupTargetAssignmentMemberKey(kr, 21);
      return { type: 'st-target-member', groupId: k.groupId, memberId: k.memberId, value: readRecordValue(lr.value, tav.readStreamsGroupTargetAssignmentMemberValue) };
    }
    case 22: {
      const k = cak.readStreamsGroupCurrentMemberAssignmentKey(kr, 22);
      return { type: 'st-current', groupId: k.groupId, memberId: k.memberId, value: readRecordValue(lr.value, cav.readStreamsGroupCurrentMemberAssignmentValue) };
    }
    case 23: return { type: 'st-topology', groupId: tpk.readStreamsGroupTopologyKey(kr, 23).groupId, value: readRecordValue(lr.value, tpv.readStreamsGroupTopologyValue) };
    default: return null;
  }
}
