/**
 * ReadShareGroupStateSummary (key 87), versions 0-1: start offset, leader and state epochs of
 * share-partitions (DescribeShareGroupOffsets); -1 start offset for an unknown one.
 * Version notes: v1 adds delivery_complete_count (KIP-1226).
 *
 * Behavior (Kafka 4.4's KafkaApis and ShareCoordinatorService): CLUSTER_ACTION on the cluster is
 * required (CLUSTER_AUTHORIZATION_FAILED for every partition otherwise); each share-partition is
 * answered by the share coordinator shard of its `__share_group_state` partition, NOT_COORDINATOR
 * when another broker leads that partition (coordinator/share-state/share-coordinator.ts).
 */
import { defineHandler } from '../handler.js';
import { AclOperation } from '../../protocol/acl.js';
import { requireCluster } from './auth-helper.js';
import { errorMessageOf } from '../../coordinator/share-state/share-coordinator.js';

export const readShareGroupStateSummaryHandler = defineHandler({
  apiKey: 87,
  handle(ctx, req) {
    requireCluster(ctx, AclOperation.CLUSTER_ACTION);
    return ctx.broker.shareCoordinator.readStateSummary(req);
  },
  errorResponse(req, errorCode) {
    const errorMessage = errorMessageOf(errorCode);
    return { results: req.topics.map((t) => ({ topicId: t.topicId, partitions: t.partitions.map((p) => ({ partition: p.partition, errorCode, errorMessage, stateEpoch: 0, leaderEpoch: 0, startOffset: 0n, deliveryCompleteCount: 0 })) })) };
  },
});
