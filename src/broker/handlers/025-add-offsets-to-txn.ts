/**
 * AddOffsetsToTxn (key 25), versions 0-4: adds the `__consumer_offsets` partition of group_id to
 * the transaction, with AddPartitionsToTxn's checks and errors (behaviours.md AO1); wrong epoch is
 * PRODUCER_FENCED (v0-1: INVALID_PRODUCER_EPOCH).
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';

export const addOffsetsToTxnHandler = defineHandler({
  apiKey: 25,
  async handle(ctx, req) {
    // ACLs: WRITE on the transactional id, READ on the group.
    if (!authorize(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactionalId)) return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED };
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, req.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
    const fenced = ctx.apiVersion >= 2 ? ErrorCode.PRODUCER_FENCED : ErrorCode.INVALID_PRODUCER_EPOCH;
    const errorCode = await ctx.broker.txnCoordinator.addOffsets(req.transactionalId, Number(req.producerId), req.producerEpoch, req.groupId, fenced);
    return { throttleTimeMs: 0, errorCode };
  },
  errorResponse(_req, errorCode) {
    return { throttleTimeMs: 0, errorCode };
  },
});
