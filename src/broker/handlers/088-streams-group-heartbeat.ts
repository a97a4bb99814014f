/**
 * StreamsGroupHeartbeat (key 88), versions 0-1: the Kafka Streams rebalance protocol (KIP-1071,
 * the Java Streams client 4.x with group.protocol=streams).
 *
 * Behavior: member epoch 0 joins with the application's topology, a positive epoch heartbeats
 * (with the tasks the member owns when they changed), -1 leaves, -2 is a static member leaving
 * for a while. The coordinator (coordinator/group/streams-group-manager.ts) validates and stores
 * the topology, resolves it against the topics, assigns active and standby tasks and moves them
 * one owner at a time; the answer carries the member epoch, the heartbeat interval
 * (streams.heartbeat.interval.ms), the tasks when they changed, the statuses (STALE_TOPOLOGY,
 * MISSING_SOURCE_TOPICS, INCORRECTLY_PARTITIONED_TOPICS, MISSING_INTERNAL_TOPICS,
 * SHUTDOWN_APPLICATION, ASSIGNMENT_DELAYED, and from v1 MISSING_CLIENT_TAGS) and the partitions by
 * user endpoint (interactive queries). No warm-up tasks are given, as by Kafka 4.4. Missing internal topics (repartition, changelog) are created here after the answer is
 * computed, as Kafka's KafkaApis does, with the topology's partition counts, replication factor
 * and configs; the next heartbeats see them.
 * Errors: UNSUPPORTED_VERSION while streams.version < 1 is finalized; GROUP_AUTHORIZATION_FAILED
 * without READ on the group; TOPIC_AUTHORIZATION_FAILED when a topic of the topology is not
 * describable; creating internal topics needs CREATE on the cluster or the topic (else the
 * MISSING_INTERNAL_TOPICS status says so); the coordinator's INVALID_REQUEST, GROUP_ID_NOT_FOUND,
 * UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH, UNRELEASED_INSTANCE_ID, FENCED_INSTANCE_ID,
 * STREAMS_INVALID_TOPOLOGY, GROUP_MAX_SIZE_REACHED (group.streams.max.size) with Kafka's messages.
 * Version notes: v1 (KIP-1331) adds AcceptableRecoveryLag (int64) and TopologyDescriptionRequired
 * (always false: no topology description plugin) in the response; v0 has AcceptableRecoveryLagLegacy.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { StreamsGroupHeartbeatResponse } from '../../protocol/generated/messages/streams-group-heartbeat-response.js';
import { streamsGroupsEnabled } from '../../cluster/features.js';
import { StreamsStatus } from '../../coordinator/group/streams-topology.js';
import { AclOperation, authorize, authorizeCluster, ResourceType } from './auth-helper.js';
import { clientHost } from './011-join-group.js';
import type { RequestContext } from '../request-context.js';
import type { InternalTopicToCreate } from '../../coordinator/group/streams-topology.js';

function failed(errorCode: number, errorMessage: string | null = null): StreamsGroupHeartbeatResponse {
  return {
    throttleTimeMs: 0, errorCode, errorMessage, memberId: '', memberEpoch: 0, heartbeatIntervalMs: 0, acceptableRecoveryLagLegacy: 0,
    taskOffsetIntervalMs: 0, acceptableRecoveryLag: -1n, status: [], activeTasks: null, standbyTasks: null, warmupTasks: null,
    topologyDescriptionRequired: false, endpointInformationEpoch: 0, partitionsByUserEndpoint: null,
  };
}

/** Internal topics being created by this broker (a heartbeat does not start a second creation of one). */
const creating = new WeakMap<object, Set<string>>();

function createInternalTopics(ctx: RequestContext, topics: InternalTopicToCreate[]): void {
  const broker = ctx.broker;
  let inFlight = creating.get(broker);
  if (!inFlight) creating.set(broker, (inFlight = new Set()));
  for (const t of topics) {
    if (inFlight.has(t.name)) continue;
    inFlight.add(t.name);
    broker.createTopic({ name: t.name, numPartitions: t.numPartitions, replicationFactor: t.replicationFactor, configs: t.configs })
      .catch((err: Error) => broker.logger.info(`streams internal topic ${t.name} not created: ${err.message}`))
      .finally(() => inFlight!.delete(t.name));
  }
}

export const streamsGroupHeartbeatHandler = defineHandler({
  apiKey: 88,
  async handle(ctx, req) {
    if (!streamsGroupsEnabled(ctx.broker.metadataCache.features)) return failed(ErrorCode.UNSUPPORTED_VERSION);
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, req.groupId)) return failed(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    if (req.topology !== null) {
      const required = new Set(req.topology.subtopologies.flatMap((s) => [...s.sourceTopics, ...s.repartitionSinkTopics, ...s.repartitionSourceTopics.map((r) => r.name), ...s.stateChangelogTopics.map((c) => c.name)]));
      const denied = [...required].filter((t) => !authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, t)).sort();
      if (denied.length > 0) return failed(ErrorCode.TOPIC_AUTHORIZATION_FAILED, `Unauthorized topics: ${denied.join(', ')}`);
    }
    const { response, internalTopicsToCreate } = await ctx.broker.groupCoordinator.streamsGroupHeartbeat(
      { apiVersion: ctx.apiVersion, clientId: ctx.clientId ?? '', clientHost: clientHost(ctx.remoteAddress) }, req);
    if (internalTopicsToCreate.length > 0) {
      const clusterCreate = authorizeCluster(ctx, AclOperation.CREATE);
      const allowed = internalTopicsToCreate.filter((t) => clusterCreate || authorize(ctx, AclOperation.CREATE, ResourceType.TOPIC, t.name));
      const refused = internalTopicsToCreate.filter((t) => !allowed.includes(t)).map((t) => t.name);
      createInternalTopics(ctx, allowed);
      if (refused.length > 0) {
        const status = response.status?.find((s) => s.statusCode === StreamsStatus.MISSING_INTERNAL_TOPICS);
        if (status) status.statusDetail += `; Unauthorized to CREATE on topics ${refused.join(', ')}.`;
      }
    }
    return response;
  },
  errorResponse(_req, errorCode) {
    return failed(errorCode);
  },
});
