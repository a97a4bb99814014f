/**
 * Metadata (key 3), versions 0-12.
 *
 * Behavior (Kafka's KafkaApis.handleTopicMetadataRequest):
 * - topics null (v1+) or empty list at v0: every topic, internal ones flagged is_internal; never
 *   auto-creates. topics [] (v1+): brokers and cluster only.
 * - A missing topic with auto-creation allowed (auto.create.topics.enable and, from v4, the
 *   request flag): created with num.partitions / default.replication.factor. Kafka answers
 *   UNKNOWN_TOPIC_OR_PARTITION while its controller creates the topic in the background; a single
 *   node creates it at once and answers with the new topic (clients would only retry).
 * - Illegal name: INVALID_TOPIC_EXCEPTION; missing without auto-creation: UNKNOWN_TOPIC_OR_PARTITION.
 * - v10+ topic ids; v12 lookup by id whenever any id is non-zero, names then ignored (unknown id:
 *   UNKNOWN_TOPIC_ID with a null name, listed first); v10-11 with a topic id or null name:
 *   INVALID_REQUEST.
 * - A name listed twice is answered once (Kafka collects the names in a set); an error entry
 *   for an internal topic's name (e.g. `__consumer_offsets` before it exists) is is_internal.
 * - A whole-request failure (INVALID_REQUEST) is answered as Kafka's getErrorResponse does: no
 *   brokers, null cluster id, controller -1, every topic with the code (a null name as "").
 * - brokers, leaders, leader epochs, replicas, ISR and offline replicas come from the metadata
 *   cache (every live broker; a partition whose leader is not alive: LEADER_NOT_AVAILABLE, leader
 *   -1); controller_id is the active controller (a broker in Samsa), -1 while there is none.
 * - Retired partitions (cluster/partition-retirement.ts): listed to everyone; to producers (a
 *   connection, or a client by address and client id, that has produced and never consumed) with
 *   leader -1 and no error, so their partitioners leave them while consumers still find the leader
 *   and drain them.
 * - Authorized operations (v8+), when asked for: everything Kafka allows without an authorizer
 *   (topic 3576, cluster 8096); -2147483648 when not asked for.
 * - ACLs: DESCRIBE on a topic, else it is left out of "all topics" and answered
 *   TOPIC_AUTHORIZATION_FAILED when named (by id: a null name), is_internal false; auto-creation
 *   needs CREATE on the cluster or the topic, else TOPIC_AUTHORIZATION_FAILED; authorized
 *   operations are the principal's, and only on the topics answered (not on unknown ids, not on
 *   the unauthorized).
 * Version notes: v1 controller/is_internal/rack; v2 cluster id; v3 throttle; v4 auto-create
 * flag; v5 offline replicas; v7 leader epoch; v8-10 authorized operations; v9 flexible; v10
 * topic ids; v11 drops cluster authorized operations.
 */
import { KafkaApiError } from '../../errors.js';
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { MetadataResponsePartition, MetadataResponseTopic } from '../../protocol/generated/messages/metadata-response.js';
import type { BrokerServices } from '../broker-services.js';
import type { TopicRecord } from '../../cluster/metadata-store.js';
import { INTERNAL_TOPICS, topicNameProblem } from '../../cluster/topic-names.js';
import { aliveBrokers, CLUSTER_OPERATIONS } from './cluster-view.js';
import { TOPIC_OPERATIONS } from './075-describe-topic-partitions.js';
import { AclOperation, authorize, authorizeCluster, authorizedOperations, ResourceType } from './auth-helper.js';
import { PARTITIONS_KEEP, retiredFrom, steersAwayFromRetired } from '../../cluster/partition-retirement.js';
import { ZERO_UUID } from '../../protocol/reader.js';

const NO_OPERATIONS = -2147483648;

function topicError(name: string | null, errorCode: number, topicId = ZERO_UUID, ops = NO_OPERATIONS): MetadataResponseTopic {
  return { errorCode, name, topicId, isInternal: name !== null && INTERNAL_TOPICS.has(name), partitions: [], topicAuthorizedOperations: ops };
}

/**
 * A topic's partitions from the metadata cache (Kafka's KRaftMetadataCache.partitionMetadata):
 * leader, leader epoch, replicas, ISR, and offline replicas (those whose broker is not alive).
 * A leader that is not alive gives LEADER_NOT_AVAILABLE and leader -1; one alive without an
 * endpoint on this listener, LISTENER_NOT_FOUND.
 */
export function describePartitions(broker: BrokerServices, topicId: string, listenerName: string, hideRetiredOf?: TopicRecord): MetadataResponsePartition[] {
  const retiredAt = hideRetiredOf && hideRetiredOf.configs[PARTITIONS_KEEP] !== undefined ? retiredFrom(hideRetiredOf) : Infinity;
  // Per broker, asked once per topic rather than once per partition (a topic's partitions share
  // a few brokers): whether it is alive, and whether it has an endpoint on this listener.
  const alive = new Map<number, boolean>();
  const isAlive = (id: number) => {
    let v = alive.get(id);
    if (v === undefined) alive.set(id, (v = broker.isRegisteredBroker(id)));
    return v;
  };
  const reachable = new Map<number, boolean>();
  const hasEndpoint = (id: number) => {
    let v = reachable.get(id);
    if (v === undefined) reachable.set(id, (v = broker.brokerEndpoint(id, listenerName) !== null));
    return v;
  };
  return broker.metadataCache.partitionsOf(topicId).map((p) => {
    const offline = p.replicas.filter((id) => !isAlive(id));
    let errorCode: number = ErrorCode.NONE;
    let leaderId = p.leader;
    if (leaderId < 0 || !isAlive(leaderId)) {
      errorCode = ErrorCode.LEADER_NOT_AVAILABLE;
      leaderId = -1;
    } else if (!hasEndpoint(leaderId)) {
      errorCode = ErrorCode.LISTENER_NOT_FOUND;
      leaderId = -1;
    } else if (p.partition >= retiredAt) {
      // A retired partition, to a producer: no leader, so its partitioner picks another one.
      leaderId = -1;
    }
    return {
      errorCode, partitionIndex: p.partition, leaderId, leaderEpoch: p.leaderEpoch,
      replicaNodes: [...p.replicas], isrNodes: [...p.isr], offlineReplicas: offline,
    };
  });
}

export const metadataHandler = defineHandler({
  apiKey: 3,
  async handle(ctx, req) {
    const broker = ctx.broker;
    const v = ctx.apiVersion;
    const steer = steersAwayFromRetired(ctx.clientRole, ctx.clientRole && broker.clientRoles.peek(ctx.remoteAddress, ctx.clientId));
    const topicOps = v >= 8 && req.includeTopicAuthorizedOperations ? TOPIC_OPERATIONS : NO_OPERATIONS;
    const opsOf = (name: string) => (topicOps === NO_OPERATIONS ? topicOps : authorizedOperations(ctx, ResourceType.TOPIC, name, topicOps));
    const describe = (t: TopicRecord): MetadataResponseTopic => ({
      errorCode: ErrorCode.NONE, name: t.name, topicId: t.topicId, isInternal: t.isInternal || INTERNAL_TOPICS.has(t.name),
      partitions: describePartitions(broker, t.topicId, ctx.listenerName, steer ? t : undefined),
      topicAuthorizedOperations: opsOf(t.name),
    });
    const describable = (name: string) => authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, name);
    // Not describable: Kafka discloses nothing of the topic, not even is_internal.
    const denied = (name: string | null, topicId = ZERO_UUID) => ({ ...topicError(name, ErrorCode.TOPIC_AUTHORIZATION_FAILED, topicId), isInternal: false });
    let topics: MetadataResponseTopic[];
    const all = req.topics === null || (v === 0 && req.topics.length === 0);
    if (all) {
      // Topics the principal may not describe are left out.
      topics = [...broker.metadataCache.topics.values()].filter((t) => describable(t.name)).map(describe);
    } else {
      const allowAuto = broker.config.autoCreateTopicsEnable && (v < 4 || req.allowAutoTopicCreation);
      topics = [];
      const seen = new Set<string>();
      // v12: when any topic id is set the request is by id (names ignored, zero ids skipped), as
      // Kafka's handler; the Java admin client sends {topicId, name: ""}. Unknown ids come first.
      const ids = v >= 12 ? [...new Set(req.topics!.map((t) => t.topicId).filter((id) => id !== ZERO_UUID))] : [];
      if (ids.length > 0) {
        const known: MetadataResponseTopic[] = [];
        for (const id of ids) {
          const byId = broker.metadataCache.topicById(id);
          if (byId) known.push(describable(byId.name) ? describe(byId) : denied(null, id));
          else topics.push(topicError(null, ErrorCode.UNKNOWN_TOPIC_ID, id));
        }
        topics.push(...known);
      }
      for (const rt of ids.length > 0 ? [] : req.topics!) {
        if (v >= 10 && v <= 11 && (rt.name === null || rt.topicId !== ZERO_UUID)) {
          throw new KafkaApiError(ErrorCode.INVALID_REQUEST, 'topic ids are not supported in Metadata v10-11 requests');
        }
        if (rt.name === null) {
          const byId = broker.metadataCache.topicById(rt.topicId);
          topics.push(!byId ? topicError(null, ErrorCode.UNKNOWN_TOPIC_ID, rt.topicId) : describable(byId.name) ? describe(byId) : denied(null, rt.topicId));
          continue;
        }
        if (seen.has(rt.name)) continue;
        seen.add(rt.name);
        if (!describable(rt.name)) {
          topics.push(denied(rt.name));
          continue;
        }
        const existing = broker.metadataCache.topic(rt.name);
        if (existing) {
          topics.push(describe(existing));
          continue;
        }
        // Auto-creation needs CREATE on the cluster or the topic.
        if (allowAuto && broker.authorizer != null && !authorizeCluster(ctx, AclOperation.CREATE) && !authorize(ctx, AclOperation.CREATE, ResourceType.TOPIC, rt.name)) {
          topics.push(topicError(rt.name, ErrorCode.TOPIC_AUTHORIZATION_FAILED));
          continue;
        }
        if (topicNameProblem(rt.name)) {
          topics.push(topicError(rt.name, ErrorCode.INVALID_TOPIC_EXCEPTION, ZERO_UUID, opsOf(rt.name)));
          continue;
        }
        if (!allowAuto || INTERNAL_TOPICS.has(rt.name)) {
          topics.push(topicError(rt.name, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ZERO_UUID, opsOf(rt.name)));
          continue;
        }
        try {
          topics.push(describe(await broker.autoCreateTopic(rt.name)));
        } catch (err) {
          topics.push(topicError(rt.name, err instanceof KafkaApiError ? err.errorCode : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ZERO_UUID, opsOf(rt.name)));
        }
      }
    }
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      brokers: aliveBrokers(broker, ctx.listenerName),
      clusterId: broker.metadataCache.clusterId ?? '',
      controllerId: broker.metadataCache.controller?.nodeId ?? -1,
      topics,
      clusterAuthorizedOperations: v >= 8 && v <= 10 && req.includeClusterAuthorizedOperations
        ? (authorizeCluster(ctx, AclOperation.DESCRIBE) ? authorizedOperations(ctx, ResourceType.CLUSTER, 'kafka-cluster', CLUSTER_OPERATIONS) : 0) : NO_OPERATIONS,
    };
  },
  errorResponse(req, errorCode) {
    return {
      throttleTimeMs: 0,
      errorCode, // v13+ (KIP-1102)
      brokers: [],
      clusterId: null,
      controllerId: -1,
      topics: (req.topics ?? []).map((t) => ({ ...topicError(t.name ?? '', errorCode, t.topicId), isInternal: false })),
      clusterAuthorizedOperations: NO_OPERATIONS,
    };
  },
});
