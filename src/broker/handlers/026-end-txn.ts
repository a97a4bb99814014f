/**
 * EndTxn (key 26), versions 0-5.
 *
 * Behavior (behaviours.md E1-E8): Ongoing → PrepareCommit/PrepareAbort is written and NONE
 * answered at once; the COMMIT/ABORT markers go to every partition afterwards, then
 * CompleteCommit/CompleteAbort. Empty: INVALID_TXN_STATE; a retried commit/abort of a completed
 * transaction: NONE; the opposite decision: INVALID_TXN_STATE; while markers are pending: the same
 * decision CONCURRENT_TRANSACTIONS, the opposite INVALID_TXN_STATE; wrong epoch PRODUCER_FENCED
 * (v0-1: INVALID_PRODUCER_EPOCH); unknown id / producer id: INVALID_PRODUCER_ID_MAPPING.
 *
 * v5 is transactions V2 (KIP-890 part 2): as Kafka's TransactionVersion.transactionVersionForEndTxn,
 * the request version alone makes the client a transaction-version-2 client, whatever level the
 * cluster finalized. The coordinator bumps the epoch in the PrepareCommit/PrepareAbort record (the
 * markers carry it) and the answer names the producer id and epoch to go on with; an abort with no
 * partition added is accepted (the producer cannot know whether its Produce added one). All of it
 * runs as queued operations of the transactional id's coordinator shard.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';

export const endTxnHandler = defineHandler({
  apiKey: 26,
  async handle(ctx, req) {
    if (!authorize(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactionalId)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, producerId: -1n, producerEpoch: -1 };
    }
    const fenced = ctx.apiVersion >= 2 ? ErrorCode.PRODUCER_FENCED : ErrorCode.INVALID_PRODUCER_EPOCH;
    const tv2 = ctx.apiVersion >= 5;
    const r = await ctx.broker.txnCoordinator.endTxn(req.transactionalId, Number(req.producerId), req.producerEpoch, req.committed, fenced, tv2);
    return { throttleTimeMs: 0, errorCode: r.errorCode, producerId: BigInt(r.producerId), producerEpoch: r.producerEpoch };
  },
  errorResponse(_req, errorCode) {
    return { throttleTimeMs: 0, errorCode, producerId: -1n, producerEpoch: -1 };
  },
});
