/**
 * StreamsGroupTopologyDescriptionUpdate (key 93), version 0 (KIP-1331): a streams group member
 * pushes its topology description for a topology description plugin to store.
 *
 * Behavior: Samsa has no topology description plugin (Kafka's
 * group.streams.topology.description.plugin.class, unset by default), so it answers as Kafka 4.4
 * answers without one: UNSUPPORTED_VERSION "The broker has no streams group topology description
 * plugin configured.", whatever the group and member (and heartbeats never ask for a push:
 * TopologyDescriptionRequired is false). GROUP_AUTHORIZATION_FAILED without READ on the group.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';

export const NO_PLUGIN_MESSAGE = 'The broker has no streams group topology description plugin configured.';

export const streamsGroupTopologyDescriptionUpdateHandler = defineHandler({
  apiKey: 93,
  async handle(ctx, req) {
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, req.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: null };
    return { throttleTimeMs: 0, errorCode: ErrorCode.UNSUPPORTED_VERSION, errorMessage: NO_PLUGIN_MESSAGE };
  },
  errorResponse(_req, errorCode) {
    return { throttleTimeMs: 0, errorCode, errorMessage: null };
  },
});
