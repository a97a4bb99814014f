/**
 * DescribeTransactions (key 65), version 0: state, timeout, start time, producer id/epoch and
 * partitions of each transactional id; an unknown id: TRANSACTIONAL_ID_NOT_FOUND.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';

export const describeTransactionsHandler = defineHandler({
  apiKey: 65,
  async handle(ctx, req) {
    const states = await ctx.broker.txnCoordinator.describe(req.transactionalIds);
    // ACLs: DESCRIBE on each transactional id; topics the principal may not describe are left out.
    if (ctx.broker.authorizer != null) {
      for (const s of states) {
        if (!authorize(ctx, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, s.transactionalId)) {
          Object.assign(s, { errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, transactionState: '', transactionTimeoutMs: 0, transactionStartTimeMs: -1n, producerId: -1n, producerEpoch: -1, topics: [] });
        } else {
          s.topics = s.topics.filter((t) => authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, t.topic));
        }
      }
    }
    return { throttleTimeMs: 0, transactionStates: states };
  },
  errorResponse(req, errorCode) {
    return {
      throttleTimeMs: 0,
      transactionStates: req.transactionalIds.map((transactionalId) => ({
        errorCode, transactionalId, transactionState: '', transactionTimeoutMs: 0, transactionStartTimeMs: -1n, producerId: -1n, producerEpoch: -1, topics: [],
      })),
    };
  },
});
