/**
 * IncrementalAlterConfigs (key 44), versions 0-1: per-key operations SET (0), DELETE (1),
 * APPEND (2) and SUBTRACT (3) on the resource's overrides; keys not listed are left alone.
 *
 * Behavior (Kafka 4: ConfigAdminManager.preprocess on the broker, then the controller's
 * ConfigurationControlManager.incrementalAlterConfigResource; shared with AlterConfigs in
 * topic-configs.ts alterConfigResources):
 * - The same resource twice: INVALID_REQUEST "Each resource must appear at most once." for each;
 *   a key twice: INVALID_REQUEST "Error due to duplicate config keys"; a null value for anything
 *   but DELETE: INVALID_REQUEST "Null value not supported for : a, b"; an operation outside 0-3:
 *   UNKNOWN_SERVER_ERROR with no message (Kafka 4.4 fails it in its controller).
 * - TOPIC: APPEND / SUBTRACT only on list configs (INVALID_CONFIG "Can't APPEND to key K because
 *   its type is not LIST."), starting from the override or else the config's default; APPEND adds
 *   the comma-separated values not yet present, SUBTRACT removes them. The resulting override set
 *   is validated (INVALID_CONFIG) before the topic's existence is checked (UNKNOWN_TOPIC_OR_PARTITION
 *   "The topic 'T' does not exist."). DELETE of a key that has no override is a no-op.
 * - BROKER (a node id, or "" for the cluster default): the operations over the resource's stored
 *   dynamic broker configs, then Kafka 4.4's checks of the result (config/dynamic-broker-configs.ts):
 *   an operation outside 0-3 INVALID_REQUEST "Unknown operations type N"; APPEND / SUBTRACT only
 *   on list-typed broker settings (INVALID_CONFIG "Config value append is not allowed for config
 *   key: K", or "Unknown config name: K" for names that are not broker settings); setting a config
 *   that is not dynamic INVALID_REQUEST "Cannot update these configs dynamically: [...]", deleting
 *   one a no-op; bad values INVALID_REQUEST with Kafka's message. A non-empty name must be this
 *   node's id.
 * - GROUP (KIP-848 group configs; the group need not exist): SET / DELETE of group configs, the
 *   whole resulting set validated as Kafka 4.4's GroupConfig.validate does (INVALID_CONFIG "Unknown
 *   group config name: K", "Invalid value V for configuration K: ...", "K must be in the range MIN
 *   to MAX inclusive." against the broker's group.consumer.* / group.share.* / group.streams.*
 *   bounds); APPEND / SUBTRACT INVALID_CONFIG "Can't APPEND to key K because its type is not
 *   LIST."; "" INVALID_REQUEST "Default group resources are not allowed.". Stored in the cluster
 *   metadata (every broker sees them; they survive restarts).
 * - BROKER_LOGGER / CLIENT_METRICS: INVALID_REQUEST "Resource type X is not supported by this
 *   broker" (Kafka serves them: log4j levels, KIP-714). Unknown types: INVALID_REQUEST "Unknown
 *   resource type N".
 * - validate_only: every check, nothing applied. Results in request order.
 * Version notes: v1 flexible.
 */
import { defineHandler } from '../handler.js';
import { AclOperation, AUTHORIZATION_MESSAGES, configResourceDenied } from './auth-helper.js';
import { alterConfigResources } from '../topic-configs.js';

export const incrementalAlterConfigsHandler = defineHandler({
  apiKey: 44,
  async handle(ctx, req) {
    // ACLs: ALTER_CONFIGS on the topic or group, or on the cluster for broker resources.
    const denied = req.resources.map((r) => configResourceDenied(ctx, r.resourceType, r.resourceName, AclOperation.ALTER_CONFIGS));
    const allowed = await alterConfigResources(ctx.broker, req.resources.filter((_r, i) => denied[i] === 0), { validateOnly: req.validateOnly, incremental: true });
    let next = 0;
    const responses = req.resources.map((r, i) => (denied[i] === 0 ? allowed[next++]
      : { errorCode: denied[i], errorMessage: AUTHORIZATION_MESSAGES[denied[i]], resourceType: r.resourceType, resourceName: r.resourceName }));
    return { throttleTimeMs: 0, responses };
  },
  errorResponse(req, errorCode) {
    return {
      throttleTimeMs: 0,
      responses: req.resources.map((r) => ({ errorCode, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName })),
    };
  },
});
