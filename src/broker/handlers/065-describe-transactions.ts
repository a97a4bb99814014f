/**
 * DescribeTransactions (key 65), version 0: state, timeout, start time, producer id/epoch and
 * partitions of each transactional id; an unknown id: TRANSACTIONAL_ID_NOT_FOUND.
 */
import { defineHandler } from '../handler.js';

export const describeTransactionsHandler = defineHandler({
  apiKey: 65,
  async handle(ctx, req) {
    const states = await ctx.broker.txnCoordinator.describe(req.transactionalIds);
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
