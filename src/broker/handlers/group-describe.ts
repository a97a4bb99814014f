/**
 * What ConsumerGroupDescribe (69) and ShareGroupDescribe (77) share: per group DESCRIBE on the
 * group (GROUP_AUTHORIZATION_FAILED), the authorized operations only when asked for (every
 * GROUP operation without an authorizer), the coordinator's answer, and Kafka's check that every
 * topic of an assignment is describable (TOPIC_AUTHORIZATION_FAILED); a coordinator error
 * becomes the group's error code.
 */
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { GROUP_AUTHORIZED_OPERATIONS } from '../../coordinator/group/group-metadata-manager.js';
import { KafkaApiError } from '../../errors.js';
import { AclOperation, authorize, authorizedOperations, ResourceType } from './auth-helper.js';
import type { RequestContext } from '../request-context.js';

export interface GroupDescriber<G> {
  describe(groupId: string, authorizedOperations: number | null): Promise<G>;
  failed(groupId: string, errorCode: number, errorMessage?: string | null): G;
  /** The topic names the described group's assignments name. */
  topicsOf(g: G): string[];
}

export function describeGroups<G>(ctx: RequestContext, groupIds: string[], includeAuthorizedOperations: boolean, d: GroupDescriber<G>): Promise<G[]> {
  return Promise.all(groupIds.map(async (groupId) => {
    if (!authorize(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, groupId)) return d.failed(groupId, ErrorCode.GROUP_AUTHORIZATION_FAILED);
    const ops = !includeAuthorizedOperations ? null
      : ctx.broker.authorizer != null ? authorizedOperations(ctx, ResourceType.GROUP, groupId, GROUP_AUTHORIZED_OPERATIONS) : GROUP_AUTHORIZED_OPERATIONS;
    try {
      const g = await d.describe(groupId, ops);
      if (d.topicsOf(g).some((t) => !authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, t))) {
        return d.failed(groupId, ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'The group has described topic(s) that the client is not authorized to describe.');
      }
      return g;
    } catch (err) {
      if (!(err instanceof KafkaApiError)) throw err;
      return d.failed(groupId, err.errorCode);
    }
  }));
}
