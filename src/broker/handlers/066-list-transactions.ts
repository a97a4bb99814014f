/**
 * ListTransactions (key 66), versions 0-1: every transactional id, filtered by state names and
 * producer ids, and (v1) by a minimum time open (duration_filter, -1 = none). Unknown state
 * names are echoed in unknown_state_filters.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';
import { TXN_STATE_NAMES } from '../../coordinator/txn/txn-shard.js';

export const listTransactionsHandler = defineHandler({
  apiKey: 66,
  async handle(ctx, req) {
    const known = new Set<string>(TXN_STATE_NAMES);
    const unknownStateFilters = req.stateFilters.filter((s) => !known.has(s));
    const duration = ctx.apiVersion >= 1 ? Number(req.durationFilter) : -1;
    const transactionStates = await ctx.broker.txnCoordinator.list(req.stateFilters.filter((s) => known.has(s)), req.producerIdFilters, duration);
    let filtered = req.stateFilters.length > 0 && unknownStateFilters.length === req.stateFilters.length ? [] : transactionStates;
    // ACLs: only the transactional ids the principal may describe.
    if (ctx.broker.authorizer != null) filtered = filtered.filter((s) => authorize(ctx, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, s.transactionalId));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, unknownStateFilters, transactionStates: filtered };
  },
  errorResponse(_req, errorCode) {
    return { throttleTimeMs: 0, errorCode, unknownStateFilters: [], transactionStates: [] };
  },
});
