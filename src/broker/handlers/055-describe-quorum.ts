/**
 * DescribeQuorum (key 55), versions 0-2: what `kafka-metadata-quorum.sh --bootstrap-server ...
 * describe --status / --replication` and Admin.describeMetadataQuorum ask a broker, which Kafka
 * forwards to its controller quorum (KafkaRaftClient.handleDescribeQuorumRequest answers).
 *
 * Samsa's metadata is not a Raft log: it lives in etcd (or one node's file), every broker applies
 * it from a watch, and the active controller is the broker holding the etcd controller claim. The
 * quorum is described as a combined-mode KRaft cluster (every node broker and controller) would be:
 * - leader: the active controller; leader epoch: its claim's controllerEpoch (the metadata
 *   revision that created the claim);
 * - voters: every live broker (each stands in the controller election); no observers;
 * - a replica's log end offset: the metadata revision it has applied (the FinalizedFeaturesEpoch
 *   of its ApiVersions answer, which this broker asks each live broker for); high watermark: the
 *   leader's. lastFetchTimestamp is when it answered, lastCaughtUpTimestamp the same when it had
 *   reached the high watermark; a broker that does not answer has -1 for all three, as Kafka
 *   shows a voter it has not heard from.
 * - v2 nodes: each voter's endpoint on the listener the request came in on (Samsa has no
 *   controller listener); directory ids are zero, as Kafka's for a voter without one.
 * The quorum that actually orders metadata writes, etcd's members, is not shown (docs/gaps.md).
 *
 * As Kafka: DESCRIBE on the cluster (else CLUSTER_AUTHORIZATION_FAILED for the whole request);
 * anything but exactly `__cluster_metadata` partition 0 answers UNKNOWN_TOPIC_OR_PARTITION for
 * every partition named; no active controller answers NOT_LEADER_OR_FOLLOWER.
 * Version notes: v1 adds the two timestamps; v2 directory ids, error messages and nodes (KIP-853).
 */
import { defineHandler } from '../handler.js';
import { AclOperation, requireCluster } from './auth-helper.js';
import { aliveBrokers } from './cluster-view.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { ZERO_UUID } from '../../protocol/reader.js';
import type { DescribeQuorumRequest } from '../../protocol/generated/messages/describe-quorum-request.js';
import type { DescribeQuorumResponse, ReplicaState } from '../../protocol/generated/messages/describe-quorum-response.js';
import type { RequestContext } from '../request-context.js';

const METADATA_TOPIC = '__cluster_metadata';
const NO_SUCH_PARTITION = 'This server does not host this topic-partition.';
/** How long a live broker has to tell its metadata position. */
const POSITION_TIMEOUT_MS = 3000;

/** KafkaRaftClient's hasValidTopicPartition: exactly one topic, the metadata topic, partition 0. */
function isMetadataPartition(req: DescribeQuorumRequest): boolean {
  return req.topics.length === 1 && req.topics[0].topicName === METADATA_TOPIC
    && req.topics[0].partitions.length === 1 && req.topics[0].partitions[0].partitionIndex === 0;
}

/** DescribeQuorumRequest.getPartitionLevelErrorResponse: every named partition with `code`. */
function partitionErrors(req: DescribeQuorumRequest, code: number): DescribeQuorumResponse {
  return {
    errorCode: ErrorCode.NONE, errorMessage: '', nodes: [],
    topics: req.topics.map((t) => ({
      topicName: t.topicName,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code, errorMessage: NO_SUCH_PARTITION, leaderId: 0, leaderEpoch: 0, highWatermark: 0n, currentVoters: [], observers: [] })),
    })),
  };
}

function topLevelError(errorCode: number): DescribeQuorumResponse {
  return { errorCode, errorMessage: null, topics: [], nodes: [] };
}

/** The metadata revision `nodeId` has applied, or null when it does not answer in time. */
async function positionOf(ctx: RequestContext, nodeId: number): Promise<bigint | null> {
  const broker = ctx.broker;
  if (nodeId === broker.nodeId) return BigInt(broker.metadataCache.revision);
  const client = broker.brokerClients.get(nodeId, 'describe-quorum');
  if (!client) return null;
  try {
    const r = await client.send(18, 3, { clientSoftwareName: 'samsa', clientSoftwareVersion: '1', clusterId: null, nodeId: -1 }, POSITION_TIMEOUT_MS);
    return r.errorCode === ErrorCode.NONE ? r.finalizedFeaturesEpoch : null;
  } catch {
    return null;
  }
}

export const describeQuorumHandler = defineHandler({
  apiKey: 55,
  async handle(ctx, req) {
    requireCluster(ctx, AclOperation.DESCRIBE);
    if (!isMetadataPartition(req)) return partitionErrors(req, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const controller = ctx.broker.metadataCache.controller;
    if (controller === null) return topLevelError(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    const voters = aliveBrokers(ctx.broker, ctx.listenerName);
    const positions = await Promise.all(voters.map((v) => positionOf(ctx, v.nodeId)));
    const now = BigInt(ctx.broker.clock.now());
    const leaderAt = voters.findIndex((v) => v.nodeId === controller.nodeId);
    const known = positions.filter((p): p is bigint => p !== null);
    // The leader's position; should it not answer, the furthest any voter has applied.
    const highWatermark = (leaderAt >= 0 ? positions[leaderAt] : null) ?? known.reduce((a, b) => (b > a ? b : a), -1n);
    const currentVoters: ReplicaState[] = voters.map((v, i) => {
      const p = positions[i];
      if (p === null) return { replicaId: v.nodeId, replicaDirectoryId: ZERO_UUID, logEndOffset: -1n, lastFetchTimestamp: -1n, lastCaughtUpTimestamp: -1n };
      return { replicaId: v.nodeId, replicaDirectoryId: ZERO_UUID, logEndOffset: p, lastFetchTimestamp: now, lastCaughtUpTimestamp: p >= highWatermark ? now : -1n };
    });
    return {
      errorCode: ErrorCode.NONE, errorMessage: '',
      topics: [{
        topicName: METADATA_TOPIC,
        partitions: [{
          partitionIndex: 0, errorCode: ErrorCode.NONE, errorMessage: '',
          leaderId: controller.nodeId, leaderEpoch: Math.min(controller.controllerEpoch, 0x7fffffff), highWatermark,
          currentVoters, observers: [],
        }],
      }],
      nodes: voters.map((v) => ({ nodeId: v.nodeId, listeners: [{ name: ctx.listenerName, host: v.host, port: v.port }] })),
    };
  },
  // DescribeQuorumRequest.getErrorResponse: the top-level code only.
  errorResponse(_req, errorCode) {
    return topLevelError(errorCode);
  },
});
