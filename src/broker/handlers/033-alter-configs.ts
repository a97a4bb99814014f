/**
 * AlterConfigs (key 33), versions 0-2 — the legacy form: the listed configs REPLACE the
 * resource's whole override set (overrides not listed are removed).
 *
 * Behavior (Kafka 4: ConfigAdminManager.preprocess on the broker, then the controller's
 * ControllerConfigurationValidator / ConfigurationControlManager.legacyAlterConfigResource; the
 * rules are implemented once in topic-configs.ts alterConfigResources):
 * - The same resource twice: INVALID_REQUEST "Each resource must appear at most once." for each
 *   (the broker's check; behaviours.md C9 quotes the controller's "Duplicate resource.", which a
 *   client talking to a broker never sees). A config twice: INVALID_REQUEST "Error due to
 *   duplicate config keys"; a null value: INVALID_REQUEST "Null value not supported for : a, b".
 * - TOPIC: "" → INVALID_REQUEST "Default topic resources are not allowed."; illegal name →
 *   INVALID_TOPIC_EXCEPTION; unknown config name / bad value → INVALID_CONFIG (checked before
 *   existence, so it wins over UNKNOWN_TOPIC_OR_PARTITION "The topic 'T' does not exist.").
 * - BROKER (a node id, or "" for the cluster default): the entries replace that resource's dynamic
 *   broker configs (an empty list removes them), checked as Kafka 4.4 checks them
 *   (config/dynamic-broker-configs.ts): INVALID_REQUEST "Cannot update these configs dynamically:
 *   [...]" for configs Kafka does not mark dynamic, per-listener and per-broker rules, bad values
 *   with Kafka's messages. A non-empty name must be this node's id ("Node id must be an integer,
 *   but it is: X" / "Unexpected broker id, expected N, but received X").
 * - GROUP: the listed configs replace the group's whole override set, validated as in
 *   IncrementalAlterConfigs (Kafka 4.4 accepts legacy AlterConfigs on groups too).
 * - Other types: INVALID_REQUEST ("Unknown resource type N", or "Resource type X is not supported
 *   by this broker" for CLIENT_METRICS).
 * - validate_only: every check, nothing applied. Results in request order.
 * Version notes: v1 same as v0; v2 flexible.
 */
import { defineHandler } from '../handler.js';
import { AclOperation, AUTHORIZATION_MESSAGES, configResourceDenied } from './auth-helper.js';
import { alterConfigResources, OpType } from '../topic-configs.js';

export const alterConfigsHandler = defineHandler({
  apiKey: 33,
  async handle(ctx, req) {
    // ACLs: ALTER_CONFIGS on the topic or group, or on the cluster for broker resources.
    const denied = req.resources.map((r) => configResourceDenied(ctx, r.resourceType, r.resourceName, AclOperation.ALTER_CONFIGS));
    const allowed = await alterConfigResources(
      ctx.broker,
      req.resources.filter((_r, i) => denied[i] === 0).map((r) => ({
        resourceType: r.resourceType,
        resourceName: r.resourceName,
        configs: r.configs.map((c) => ({ name: c.name, value: c.value, configOperation: OpType.SET })),
      })),
      { validateOnly: req.validateOnly, incremental: false },
    );
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
