/**
 * DescribeGroups (key 15), versions 0-6.
 *
 * Behavior (behaviours.md G1-G2): an unknown group is NONE with state "Dead" and no members;
 * a Stable group shows its protocol name and each member's metadata and assignment, other
 * states show members without their metadata (but with the assignment they hold). group_id ""
 * is a group like any other (as in Kafka 4.4).
 * Version notes: v1 throttle time; v3 authorized operations (READ, DELETE, DESCRIBE,
 * DESCRIBE_CONFIGS, ALTER_CONFIGS without ACLs; INT_MIN when not asked for); v4
 * group_instance_id; v5 flexible; v6 (KIP-1043) error_message, and an unknown group or a KIP-848
 * consumer group answers GROUP_ID_NOT_FOUND ("Group X not found." / "Group X is not a classic
 * group.") instead of the "Dead" placeholder.
 */
import { KafkaApiError } from '../../errors.js';
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { GROUP_AUTHORIZED_OPERATIONS } from '../../coordinator/group/group-metadata-manager.js';
import { AclOperation, authorize, authorizedOperations, ResourceType } from './auth-helper.js';
import type { DescribedGroup } from '../../protocol/generated/messages/describe-groups-response.js';

function failed(groupId: string, errorCode: number, errorMessage: string | null = null): DescribedGroup {
  return { errorCode, errorMessage, groupId, groupState: '', protocolType: '', protocolData: '', members: [], authorizedOperations: -2147483648 };
}

export const describeGroupsHandler = defineHandler({
  apiKey: 15,
  async handle(ctx, req) {
    const coordinator = ctx.broker.groupCoordinator;
    const groups = await Promise.all(req.groups.map(async (groupId) => {
      // ACLs: DESCRIBE on the group; authorized operations are the principal's.
      if (!authorize(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, groupId)) return failed(groupId, ErrorCode.GROUP_AUTHORIZATION_FAILED);
      try {
        const g = await coordinator.describeGroup(groupId, req.includeAuthorizedOperations);
        if (ctx.apiVersion >= 6 && g.groupState === 'Dead' && g.errorCode === ErrorCode.NONE) {
          // v6 (KIP-1043): no "Dead" placeholder; unknown groups and KIP-848 / KIP-1071 groups are errors.
          const consumer = await coordinator.isConsumerGroup(groupId) || await coordinator.isStreamsGroup(groupId);
          return { ...failed(groupId, ErrorCode.GROUP_ID_NOT_FOUND, consumer ? `Group ${groupId} is not a classic group.` : `Group ${groupId} not found.`), groupState: 'Dead' };
        }
        if (req.includeAuthorizedOperations && ctx.broker.authorizer != null) {
          g.authorizedOperations = authorizedOperations(ctx, ResourceType.GROUP, groupId, GROUP_AUTHORIZED_OPERATIONS);
        }
        return g;
      } catch (err) {
        if (!(err instanceof KafkaApiError)) throw err;
        return failed(groupId, err.errorCode);
      }
    }));
    return { throttleTimeMs: 0, groups };
  },
  errorResponse(req, errorCode) {
    return { throttleTimeMs: 0, groups: req.groups.map((g) => failed(g, errorCode)) };
  },
});
