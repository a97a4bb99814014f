/**
 * StreamsGroupDescribe (key 89), versions 0-1: streams groups (KIP-1071) as Kafka describes them
 * (the Java admin's describeStreamsGroups, kafka-streams-groups.sh --describe).
 *
 * Behavior: per group its state (Empty, NotReady, Assigning, Reconciling, Stable), group epoch,
 * target assignment epoch, the topology (subtopologies with their source, repartition and
 * changelog topics, internal topics with the partition counts the coordinator configured), and
 * each member's epoch, client, process, user endpoint, client tags, topology epoch, current and
 * target tasks (active, standby, warm-up); task offsets are not kept (empty lists).
 * GROUP_ID_NOT_FOUND for unknown groups ("Group X not found.") and groups of another type
 * ("Group X is not a streams group."); GROUP_AUTHORIZATION_FAILED without DESCRIBE on the group,
 * TOPIC_AUTHORIZATION_FAILED when a topic of the topology is not describable; authorized
 * operations only when asked for, else INT_MIN. UNSUPPORTED_VERSION while streams.version < 1.
 * Version notes: v1 (KIP-1331, KIP-1357) adds IncludeTopologyDescription (answered NOT_STORED,
 * there is no topology description plugin), TopologyDescription (null) and AssignorName ("sticky").
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { DescribedGroup } from '../../protocol/generated/messages/streams-group-describe-response.js';
import { streamsGroupsEnabled } from '../../cluster/features.js';
import { describeGroups } from './group-describe.js';

function failed(groupId: string, errorCode: number, errorMessage: string | null = null): DescribedGroup {
  return {
    errorCode, errorMessage, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, topology: null, members: [],
    authorizedOperations: -2147483648, topologyDescription: null, topologyDescriptionStatus: 0, assignorName: null,
  };
}

export const streamsGroupDescribeHandler = defineHandler({
  apiKey: 89,
  async handle(ctx, req) {
    if (!streamsGroupsEnabled(ctx.broker.metadataCache.features)) return { throttleTimeMs: 0, groups: req.groupIds.map((g) => failed(g, ErrorCode.UNSUPPORTED_VERSION)) };
    const groups = await describeGroups(ctx, req.groupIds, req.includeAuthorizedOperations, {
      describe: (groupId, ops) => ctx.broker.groupCoordinator.streamsGroupDescribe(groupId, ops, req.includeTopologyDescription),
      failed,
      topicsOf: (g) => (g.topology?.subtopologies ?? []).flatMap((s) => [...s.sourceTopics, ...s.repartitionSinkTopics, ...s.repartitionSourceTopics.map((r) => r.name), ...s.stateChangelogTopics.map((c) => c.name)]),
    });
    return { throttleTimeMs: 0, groups };
  },
  errorResponse(req, errorCode) {
    return { throttleTimeMs: 0, groups: req.groupIds.map((g) => failed(g, errorCode)) };
  },
});
