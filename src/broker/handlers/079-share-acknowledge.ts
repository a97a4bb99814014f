/**
 * ShareAcknowledge (key 79), versions 1-2: a share group member's acknowledgements without a
 * fetch (KafkaShareConsumer.commitSync/commitAsync, close).
 *
 * Behavior: the share session must exist and the epoch be the next one (epoch 0 cannot
 * acknowledge: INVALID_SHARE_SESSION_EPOCH; -1 applies the acknowledgements and closes the
 * session, releasing what the member still holds). Per partition: ACCEPT, RELEASE, REJECT, GAP
 * and (v2) RENEW on records the member holds, all or nothing, else INVALID_RECORD_STATE;
 * NOT_LEADER_OR_FOLLOWER with current_leader and the leader's endpoint; UNKNOWN_TOPIC_ID;
 * READ on the group and on each topic. Each change is durable (the persister) before the answer.
 * Version notes: v2 is_renew_ack (KIP-1222) and acquisition_lock_timeout_ms in the answer.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { ShareAcknowledgeResponse } from '../../protocol/generated/messages/share-acknowledge-response.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';
import { currentLeaderOf, LeaderEndpoints } from '../leader-hints.js';

function failed(errorCode: number, errorMessage: string | null = null): ShareAcknowledgeResponse {
  return { throttleTimeMs: 0, errorCode, errorMessage, acquisitionLockTimeoutMs: 0, responses: [], nodeEndpoints: [] };
}

export const shareAcknowledgeHandler = defineHandler({
  apiKey: 79,
  async handle(ctx, req) {
    const broker = ctx.broker;
    const { groupId, memberId } = req;
    if (groupId === null || groupId === '' || memberId === null || memberId === '') return failed(ErrorCode.INVALID_REQUEST);
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, groupId)) return failed(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    if (req.shareSessionEpoch === 0) return failed(ErrorCode.INVALID_SHARE_SESSION_EPOCH);
    const mgr = broker.sharePartitions;
    const session = mgr.session(groupId, memberId, req.shareSessionEpoch, [], []);
    if (typeof session === 'number') return failed(session);
    let hints: LeaderEndpoints | null = null;
    const responses: ShareAcknowledgeResponse['responses'] = [];
    for (const t of req.topics) {
      const info = broker.metadataCache.topicById(t.topicId);
      const readable = !info || authorize(ctx, AclOperation.READ, ResourceType.TOPIC, info.name);
      const partitions = [];
      for (const p of t.partitions) {
        const errorCode = readable ? await mgr.acknowledge(groupId, memberId, t.topicId, p.partitionIndex, p.acknowledgementBatches) : ErrorCode.TOPIC_AUTHORIZATION_FAILED;
        let currentLeader = { leaderId: -1, leaderEpoch: -1 };
        if (errorCode === ErrorCode.NOT_LEADER_OR_FOLLOWER) {
          currentLeader = currentLeaderOf(broker, t.topicId, p.partitionIndex);
          (hints ??= new LeaderEndpoints(broker, ctx.listenerName)).add(currentLeader.leaderId);
        }
        partitions.push({ partitionIndex: p.partitionIndex, errorCode, errorMessage: null, currentLeader });
      }
      responses.push({ topicId: t.topicId, partitions });
    }
    if (req.shareSessionEpoch === -1) await mgr.closeSession(session);
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, acquisitionLockTimeoutMs: mgr.configOf(groupId).recordLockDurationMs, responses, nodeEndpoints: hints?.list() ?? [] };
  },
  errorResponse(_req, errorCode) {
    return failed(errorCode);
  },
});
