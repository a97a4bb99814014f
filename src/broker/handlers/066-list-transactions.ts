/**
 * ListTransactions (key 66), versions 0-2: every transactional id, filtered by state names and
 * producer ids, (v1) by a minimum time open (duration_filter, -1 = none) and (v2, KIP-1152) by a
 * regular expression the whole id must match (null or "" = none; one that does not compile is
 * INVALID_REGULAR_EXPRESSION). Unknown state names are echoed in unknown_state_filters.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';
import { TXN_STATE_NAMES } from '../../coordinator/txn/txn-shard.js';

export const listTransactionsHandler = defineHandler({
  apiKey: 66,
  async handle(ctx, req) {
    let pattern: RegExp | null = null;
    if (ctx.apiVersion >= 2 && req.transactionalIdPattern) {
      try {
        pattern = new RegExp(`^(?:${req.transactionalIdPattern})$`, 'u');
      } catch {
        return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_REGULAR_EXPRESSION, unknownStateFilters: [], transactionStates: [] };
      }
    }
    const known = new Set<string>(TXN_STATE_NAMES);
    const unknownStateFilters = req.stateFilters.filter((s) => !known.has(s));
    const duration = ctx.apiVersion >= 1 ? Number(req.durationFilter) : -1;
    const transactionStates = await ctx.broker.txnCoordinator.list(req.stateFilters.filter((s) => known.has(s)), req.producerIdFilters, duration);
    let filtered = req.stateFilters.length > 0 && unknownStateFilters.length === req.stateFilters.length ? [] : transactionStates;
    if (pattern !== null) filtered = filtered.filter((s) => pattern.test(s.transactionalId));
    // ACLs: only the transactional ids the principal may describe.
    if (ctx.broker.authorizer != null) filtered = filtered.filter((s) => authorize(ctx, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, s.transactionalId));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, unknownStateFilters, transactionStates: filtered };
  },
  errorResponse(_req, errorCode) {
    return { throttleTimeMs: 0, errorCode, unknownStateFilters: [], transactionStates: [] };
  },
});
