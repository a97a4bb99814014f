/**
 * InitProducerId (key 22), versions 0-5.
 *
 * Behavior (Kafka's TransactionCoordinator.handleInitProducerId, behaviours.md IP1-IP9):
 * - transactional_id null: a fresh producer id (blocks never reused across restarts), epoch 0.
 * - transactional_id "": INVALID_REQUEST.
 * - transaction_timeout_ms <= 0 or > transaction.max.timeout.ms: INVALID_TRANSACTION_TIMEOUT.
 * - new id: new producer id, epoch 0; known id: epoch + 1 (a new producer id once the epoch is
 *   exhausted); an Ongoing transaction is aborted with a bumped epoch and CONCURRENT_TRANSACTIONS
 *   answered; PrepareCommit/PrepareAbort: CONCURRENT_TRANSACTIONS.
 * - v3+ (KIP-360) producer_id/epoch supplied: must match the current (or, for a retry, the
 *   previous) epoch, else PRODUCER_FENCED (v4+) / INVALID_PRODUCER_EPOCH (v3); only one of them
 *   -1: INVALID_REQUEST.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { AclOperation, authorize, authorizeByResourceType, authorizeCluster, ResourceType } from './auth-helper.js';

export const initProducerIdHandler = defineHandler({
  apiKey: 22,
  async handle(ctx, req) {
    const fail = (errorCode: number) => ({ throttleTimeMs: 0, errorCode, producerId: -1n, producerEpoch: -1, ongoingTxnProducerId: -1n, ongoingTxnProducerEpoch: -1 });
    // ACLs: WRITE on the transactional id; without one, IDEMPOTENT_WRITE on the cluster or WRITE on some topic.
    if (ctx.broker.authorizer != null) {
      if (req.transactionalId !== null) {
        if (!authorize(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactionalId)) return fail(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
      } else if (!authorizeCluster(ctx, AclOperation.IDEMPOTENT_WRITE) && !authorizeByResourceType(ctx, AclOperation.WRITE, ResourceType.TOPIC)) {
        return fail(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
      }
    }
    const pid = Number(req.producerId);
    const epoch = req.producerEpoch;
    if ((pid === -1) !== (epoch === -1)) return fail(ErrorCode.INVALID_REQUEST);
    const expected = pid >= 0 && epoch >= 0 ? { producerId: pid, epoch } : null;
    const fenced = ctx.apiVersion >= 4 ? ErrorCode.PRODUCER_FENCED : ErrorCode.INVALID_PRODUCER_EPOCH;
    const r = await ctx.broker.txnCoordinator.initProducerId(req.transactionalId, req.transactionTimeoutMs, expected, fenced);
    return { throttleTimeMs: 0, errorCode: r.errorCode, producerId: BigInt(r.producerId), producerEpoch: r.producerEpoch, ongoingTxnProducerId: -1n, ongoingTxnProducerEpoch: -1 };
  },
  errorResponse(_req, errorCode) {
    return { throttleTimeMs: 0, errorCode, producerId: -1n, producerEpoch: -1, ongoingTxnProducerId: -1n, ongoingTxnProducerEpoch: -1 };
  },
});
