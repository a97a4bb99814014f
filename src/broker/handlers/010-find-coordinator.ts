/**
 * FindCoordinator (key 10), versions 0-6.
 *
 * Behavior:
 * - The coordinator of a key is the leader of its partition of __consumer_offsets /
 *   __transaction_state (Kafka's partitionFor), with its advertised endpoint for the listener the
 *   request came in on; COORDINATOR_NOT_AVAILABLE while that partition has no live leader. Before
 *   the topic exists this broker answers (its coordinator creates the topic on first use). A
 *   single node therefore always names itself.
 * - key_type 0 (group) and 1 (transaction) are served, and from v6 key type 2 (share): the key
 *   "groupId:topicId:partition" names a share-partition whose share coordinator leads its
 *   __share_group_state partition (Kafka 4.4: CLUSTER_ACTION required, a whole-request
 *   CLUSTER_AUTHORIZATION_FAILED otherwise; a key SharePartitionKey cannot parse answers
 *   INVALID_REQUEST). Below v6 key type 2 answers INVALID_REQUEST with an empty message; any other
 *   type INVALID_REQUEST with the error's default text (v0-3 top-level, v4+ per key). An empty
 *   group or transactional key is not rejected (as in Kafka).
 * - Messages as Kafka 4.4 sends them: a v1-3 answer carries the error's message ("NONE" for
 *   success, Errors.message()), a v4+ key "" (the field's default).
 * Version notes: v1 adds key_type and throttle time; v3 flexible; v4+ (KIP-699) batches keys in
 * `coordinatorKeys` and answers per key in `coordinators`.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { BrokerServices } from '../broker-services.js';
import { partitionForGroup } from '../../coordinator/group/group-coordinator.js';
import { partitionForTxnId, TRANSACTION_STATE_TOPIC } from '../../coordinator/txn/txn-coordinator.js';
import { AclOperation, authorize, requireCluster, ResourceType } from './auth-helper.js';
import { errorMessageOf, partitionForShareKey, SHARE_GROUP_STATE_TOPIC } from '../../coordinator/share-state/share-coordinator.js';

const OFFSETS_TOPIC = '__consumer_offsets';

const GROUP = 0;
const TRANSACTION = 1;
const SHARE = 2;
const INVALID_REQUEST_MESSAGE = 'This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details.';

/**
 * The coordinator of a key: the leader of its partition of the internal topic (Kafka's
 * partitionFor), null while that partition has no live leader. Before the topic exists this
 * broker answers (its coordinator creates the topic on first use, then the leader takes over).
 */
function coordinatorNode(broker: BrokerServices, keyType: number, key: string, listenerName: string): { nodeId: number; host: string; port: number } | null {
  const topic = broker.metadataCache.topic(keyType === GROUP ? OFFSETS_TOPIC : keyType === TRANSACTION ? TRANSACTION_STATE_TOPIC : SHARE_GROUP_STATE_TOPIC);
  if (!topic) return { nodeId: broker.nodeId, ...broker.endpointFor(listenerName) };
  const p = keyType === GROUP ? partitionForGroup(key, topic.partitions) : keyType === TRANSACTION ? partitionForTxnId(key, topic.partitions) : partitionForShareKey(key, topic.partitions);
  const leader = broker.partitionState(topic.topicId, p)?.leader ?? -1;
  const e = leader >= 0 && broker.isRegisteredBroker(leader) ? broker.brokerEndpoint(leader, listenerName) : null;
  return e ? { nodeId: leader, host: e.host, port: e.port } : null;
}

/**
 * Kafka's SharePartitionKey.getInstance(String) + asCoordinatorKey: "group:topicId:partition"
 * (the group may contain ':'), re-formatted; null when it does not parse.
 */
export function canonicalShareKey(key: string): string | null {
  const parts = key.split(':');
  // Java's split drops trailing empty strings.
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length < 3) return null;
  const groupId = parts.slice(0, -2).join(':');
  if (groupId.trim() === '') return null;
  const id = parts[parts.length - 2];
  const bytes = id.length <= 24 && /^[A-Za-z0-9_-]*={0,2}$/.test(id) ? Buffer.from(id, 'base64url') : Buffer.alloc(0);
  if (bytes.length !== 16) return null;
  const p = parts[parts.length - 1];
  if (!/^[+-]?\d+$/.test(p) || Number(p) > 2147483647 || Number(p) < -2147483648) return null;
  return `${groupId}:${bytes.toString('base64url')}:${Number(p)}`;
}

export const findCoordinatorHandler = defineHandler({
  apiKey: 10,
  handle(ctx, req) {
    const batched = ctx.apiVersion >= 4;
    const answer = (key: string) => {
      if (req.keyType === SHARE && ctx.apiVersion >= 6) {
        requireCluster(ctx, AclOperation.CLUSTER_ACTION);
        const shareKey = canonicalShareKey(key);
        if (shareKey === null) return { key, nodeId: -1, host: '', port: -1, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: '' };
        const node = coordinatorNode(ctx.broker, SHARE, shareKey, ctx.listenerName);
        if (!node) return { key, nodeId: -1, host: '', port: -1, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: '' };
        return { key, nodeId: node.nodeId, host: node.host, port: node.port, errorCode: ErrorCode.NONE, errorMessage: '' };
      }
      if (req.keyType !== GROUP && req.keyType !== TRANSACTION) {
        return { key, nodeId: -1, host: '', port: -1, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: req.keyType === SHARE ? '' : INVALID_REQUEST_MESSAGE };
      }
      // ACLs: DESCRIBE on the group or transactional id.
      if (ctx.broker.authorizer != null) {
        const group = req.keyType === GROUP;
        if (!authorize(ctx, AclOperation.DESCRIBE, group ? ResourceType.GROUP : ResourceType.TRANSACTIONAL_ID, key)) {
          const errorCode = group ? ErrorCode.GROUP_AUTHORIZATION_FAILED : ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
          return { key, nodeId: -1, host: '', port: -1, errorCode, errorMessage: batched ? '' : (group ? 'Group authorization failed.' : 'Transactional Id authorization failed.') };
        }
      }
      const node = coordinatorNode(ctx.broker, req.keyType, key, ctx.listenerName);
      // v0-3 errors go out as Kafka's FindCoordinatorResponse.prepareOldResponse: with the error's message.
      if (!node) return { key, nodeId: -1, host: '', port: -1, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: batched ? '' : errorMessageOf(ErrorCode.COORDINATOR_NOT_AVAILABLE) };
      return { key, nodeId: node.nodeId, host: node.host, port: node.port, errorCode: ErrorCode.NONE, errorMessage: batched ? '' : 'NONE' };
    };
    if (batched) {
      return { throttleTimeMs: 0, errorCode: 0, errorMessage: '', nodeId: 0, host: '', port: 0, coordinators: req.coordinatorKeys.map(answer) };
    }
    const a = answer(req.key);
    return { throttleTimeMs: 0, errorCode: a.errorCode, errorMessage: a.errorMessage, nodeId: a.nodeId, host: a.host, port: a.port, coordinators: [] };
  },
  errorResponse(req, errorCode) {
    return {
      throttleTimeMs: 0, errorCode, errorMessage: null, nodeId: -1, host: '', port: -1,
      // Kafka's prepareErrorResponse: the error's message per key (known here for CLUSTER_AUTHORIZATION_FAILED of key type 2).
      coordinators: req.coordinatorKeys.map((key) => ({ key, nodeId: -1, host: '', port: -1, errorCode, errorMessage: errorMessageOf(errorCode) })),
    };
  },
});
