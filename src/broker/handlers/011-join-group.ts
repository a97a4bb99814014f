/**
 * JoinGroup (key 11), versions 0-9 (Kafka 4.4 serves v0-1 again, KAFKA-19444; so does Samsa).
 *
 * Behavior (behaviours.md J1-J17; the protocol itself is in coordinator/group):
 * - group_id "": INVALID_GROUP_ID; session timeout outside group.min/max.session.timeout.ms:
 *   INVALID_SESSION_TIMEOUT (member id echoed, generation -1).
 * - v4+ dynamic member without id: MEMBER_ID_REQUIRED with the id to rejoin with.
 * - The answer is held until the rebalance's join phase completes; the connection answers
 *   nothing else meanwhile (requests are handled in order), as in Kafka.
 * Version notes: v1 rebalance_timeout_ms (v0: the session timeout); v5 group_instance_id; v6
 * flexible; v7 protocol_type in the answer and a nullable protocol_name; v8 reason; v9
 * skip_assignment (a restarted static leader keeps the current assignment).
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { JoinGroupResponse } from '../../protocol/generated/messages/join-group-response.js';
import { errorJoinResponse } from '../../coordinator/group/classic-group.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';

/** Kafka's clientHost: "/" + the client's IP address. */
export function clientHost(remoteAddress: string): string {
  const i = remoteAddress.lastIndexOf(':');
  return `/${i > 0 ? remoteAddress.slice(0, i) : remoteAddress}`;
}

function forVersion(res: JoinGroupResponse, v: number): JoinGroupResponse {
  return v >= 7 ? res : { ...res, protocolName: res.protocolName ?? '' };
}

export const joinGroupHandler = defineHandler({
  apiKey: 11,
  async handle(ctx, req) {
    const v = ctx.apiVersion;
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, req.groupId)) return forVersion(errorJoinResponse(ErrorCode.GROUP_AUTHORIZATION_FAILED, req.memberId), v);
    if (req.groupId === '') return forVersion(errorJoinResponse(ErrorCode.INVALID_GROUP_ID, req.memberId), v);
    const request = v === 0 ? { ...req, rebalanceTimeoutMs: req.sessionTimeoutMs } : req;
    const res = await ctx.broker.groupCoordinator.joinGroup(
      { apiVersion: v, clientId: ctx.clientId ?? '', clientHost: clientHost(ctx.remoteAddress) },
      request,
    );
    return forVersion(res, v);
  },
  errorResponse(req, errorCode, ctx) {
    return forVersion(errorJoinResponse(errorCode, req.memberId), ctx.apiVersion);
  },
});
