/**
 * Partition retirement (issue 18, beyond Kafka): `samsa topics retire-partitions <topic> --keep N`
 * makes partitions N.. of a topic read-only until they have drained, then deletes them.
 *
 * Where the state lives: the topic config `samsa.partitions.keep` (in the topic record of the
 * cluster metadata, so every broker agrees and it survives restarts, on one node as on etcd; the
 * CLI sets it with IncrementalAlterConfigs). Only the highest partitions can be retired, so that
 * once they are deleted the topic's partitions are 0..N-1 again: clients map a key to
 * `hash % partition count` and index partitions by number, and none of them expects gaps.
 *
 * Why producers and consumers are told different things. Every client picks a partition for a
 * keyless record among the partitions that have a leader in its Metadata (kafkajs's
 * DefaultPartitioner filters `leader >= 0`; Java's BuiltInPartitioner uses
 * Cluster.availablePartitionsForTopic, i.e. leader != null; librdkafka's random and sticky
 * partitioners check rd_kafka_topic_partition_available), and nothing else in Metadata steers
 * them: a partition-level error code makes kafkajs's Metadata parse throw for the whole answer,
 * makes Java refresh metadata again and again (an InvalidMetadataException) while still using the
 * leader, and librdkafka ignores it. Consumers need that same leader to fetch and to resolve
 * offsets. So one answer cannot steer producers and let consumers drain. Samsa answers by who
 * asks (`steersAwayFromRetired`): a connection that has made a consumer request (Fetch,
 * ListOffsets, group requests), or whose client (same address and client id) has on another
 * connection, sees the leader; every other one gets the retired partitions with leader -1 and no
 * error (replicas and ISR listed). Unknown connections are treated as producers because a
 * producer's first Metadata comes before its first Produce, and Java and librdkafka bind records
 * to a partition when they are sent (they never move a refused batch): a producer told about the
 * leader even once would lose the records it put there. A consumer recovers from a partition
 * without a leader by asking again. A producer that still sends to a retired partition (its
 * metadata is older than the retirement) is answered so that it learns:
 * - a batch whose records have no key: NOT_LEADER_OR_FOLLOWER (retriable, with no current-leader
 *   hint), so the client refreshes metadata on a connection that has now produced and, where the
 *   client re-partitions on retry (kafkajs), the records go to another partition;
 * - a batch with a keyed record: INVALID_RECORD, non-retriable, each keyed record in
 *   record_errors and an error_message naming the retirement. Moving a key elsewhere would break
 *   the order of that key's records, so Samsa refuses instead.
 *
 * Deletion (partition-retirement-task.ts): the active controller deletes a retired partition
 * once its leader's log holds no unexpired data (log start = log end after retention) and every
 * group with a committed offset for it has committed at or past that end, highest partition
 * first. When the last one goes, `samsa.partitions.keep` is removed with it.
 */
import { decodeRecordBatch } from '../protocol/records/record.js';
import type { TopicRecord } from './metadata-store.js';

/** The topic config holding the number of partitions kept (partitions from it on are retired). */
export const PARTITIONS_KEEP = 'samsa.partitions.keep';

/**
 * The first retired partition of a topic: its `samsa.partitions.keep` when that is below the
 * partition count, else the partition count (nothing retired).
 */
export function retiredFrom(topic: Pick<TopicRecord, 'partitions' | 'configs'> & { name?: string; isInternal?: boolean }): number {
  const raw = topic.configs[PARTITIONS_KEEP];
  if (raw === undefined) return topic.partitions;
  // Internal topics (the config set by hand with kafka-configs) and views (metadata-only, their
  // partitions are their source's) are never retired.
  if (topic.isInternal || topic.name?.startsWith('__') || topic.configs['samsa.view.source'] !== undefined) return topic.partitions;
  const keep = Number(raw);
  return Number.isInteger(keep) && keep >= 1 && keep < topic.partitions ? keep : topic.partitions;
}

export function isRetired(topic: Pick<TopicRecord, 'partitions' | 'configs'> & { name?: string; isInternal?: boolean }, partition: number): boolean {
  return topic.configs[PARTITIONS_KEEP] !== undefined && partition >= retiredFrom(topic) && partition < topic.partitions;
}

/** Why `--keep` cannot retire partitions of this topic, or null. */
export function retirementProblem(topic: Pick<TopicRecord, 'name' | 'partitions' | 'isInternal'>, keep: number): string | null {
  if (topic.isInternal || topic.name.startsWith('__')) return `${topic.name} is an internal topic; its partitions cannot be retired`;
  if (!Number.isInteger(keep) || keep < 1) return `--keep must be a whole number of at least 1, got ${keep}`;
  if (keep >= topic.partitions) return `${topic.name} has ${topic.partitions} partition(s); --keep ${keep} would retire none`;
  return null;
}

/** What a connection, or a client (address and client id), has asked for so far. */
export interface ClientRole {
  produces: boolean;
  consumes: boolean;
}

export function newClientRole(): ClientRole {
  return { produces: false, consumes: false };
}

const MAX_CLIENTS = 10_000;

/**
 * Roles by client (remote address and client id) on this broker. A connection alone is not
 * enough: librdkafka keeps its bootstrap connection and sends Metadata on it although it produces
 * on another one. Bounded: forgotten clients count as unknown again.
 */
export class ClientRoles {
  private readonly byClient = new Map<string, ClientRole>();

  /** `remoteAddress` is host:port (the port is left out: every connection of a client has its own). */
  of(remoteAddress: string, clientId: string | null): ClientRole {
    const key = clientKey(remoteAddress, clientId);
    let role = this.byClient.get(key);
    if (!role) {
      if (this.byClient.size >= MAX_CLIENTS) this.byClient.clear();
      this.byClient.set(key, (role = newClientRole()));
    }
    return role;
  }

  peek(remoteAddress: string, clientId: string | null): ClientRole | undefined {
    return this.byClient.get(clientKey(remoteAddress, clientId));
  }
}

function clientKey(remoteAddress: string, clientId: string | null): string {
  const colon = remoteAddress.lastIndexOf(':');
  return `${colon > 0 ? remoteAddress.slice(0, colon) : remoteAddress}|${clientId ?? ''}`;
}

/**
 * Notes the role a request implies on its connection and, the first time the connection takes
 * that role, on its client (called for every request: a switch on the key, no allocation). `groupLookup`:
 * a FindCoordinator for a group (a transactional producer looks up its transaction coordinator).
 */
export function noteClientRole(role: ClientRole, apiKey: number, groupLookup: boolean, clients: ClientRoles, remoteAddress: string, clientId: string | null): void {
  switch (apiKey) {
    case 0: // Produce
    case 22: // InitProducerId
      if (!role.produces) clients.of(remoteAddress, clientId).produces = role.produces = true;
      break;
    case 10: // FindCoordinator
      if (groupLookup && !role.consumes) clients.of(remoteAddress, clientId).consumes = role.consumes = true;
      break;
    case 1: // Fetch
    case 2: // ListOffsets
    case 8: // OffsetCommit
    case 9: // OffsetFetch
    case 11: // JoinGroup
    case 15: // DescribeGroups (admin tools watching a group drain)
    case 16: // ListGroups
    case 68: // ConsumerGroupHeartbeat
      if (!role.consumes) clients.of(remoteAddress, clientId).consumes = role.consumes = true;
      break;
  }
}

/**
 * Whether Metadata hides the leader of retired partitions. Never on a connection that has made a
 * consumer request; else on one that has produced, and on any other unless its client (address
 * and client id) has made a consumer request elsewhere. So a new producer is steered from its
 * first Metadata, before it has produced anything; a new consumer may see a retired partition
 * without a leader until its first group request, and clients ask again for partitions without
 * a leader (kafkajs when it resolves offsets or rejoins, Java and librdkafka at once).
 */
export function steersAwayFromRetired(connection: ClientRole | undefined, client: ClientRole | undefined): boolean {
  if (!connection || connection.consumes) return false;
  return connection.produces || client === undefined || !client.consumes;
}

/** The indexes (in the batch) of records that carry a key; [] for a batch that cannot be decoded. */
export function keyedRecords(batch: Buffer): number[] {
  let decoded;
  try {
    decoded = decodeRecordBatch(batch, 0);
  } catch {
    return [];
  }
  if (decoded.isControl) return [];
  const out: number[] = [];
  for (let i = 0; i < decoded.records.length; i++) if (decoded.records[i].key !== null) out.push(i);
  return out;
}

export function retiredMessage(topic: string, partition: number, keep: number, keyed: boolean): string {
  const base = `partition ${topic}-${partition} is retired (samsa.partitions.keep=${keep}) and read-only until it is drained and deleted`;
  return keyed
    ? `${base}; keyed records are refused rather than moved to another partition, which would break the order of their key: produce them to partitions 0-${keep - 1} (the producer's key mapping changes with the partition count)`
    : `${base}; refresh metadata and produce to partitions 0-${keep - 1}`;
}

/** One group's committed offset for a partition (-1: none). */
export interface CommittedOffset {
  groupId: string;
  offset: number;
}

/**
 * Whether a retired partition may be deleted: its leader's log holds nothing (log start = log end,
 * retention removed every record) and every group that committed an offset for it is at or past
 * the end. Groups without a committed offset for the partition have nothing left to read there.
 * Returns the reason it may not, or null.
 */
export function drainProblem(log: { logStartOffset: number; logEndOffset: number }, committed: readonly CommittedOffset[]): string | null {
  if (log.logStartOffset < log.logEndOffset) {
    return `${log.logEndOffset - log.logStartOffset} record offset(s) not yet expired (log start ${log.logStartOffset}, end ${log.logEndOffset})`;
  }
  const behind = committed.filter((c) => c.offset >= 0 && c.offset < log.logEndOffset);
  if (behind.length > 0) return `group(s) ${behind.map((c) => `${c.groupId} at ${c.offset}`).join(', ')} not past the end ${log.logEndOffset}`;
  return null;
}
