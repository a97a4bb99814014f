/**
 * DescribeConfigs (key 32), versions 1-4.
 *
 * Behavior (Kafka's ConfigHelper.describeConfigs):
 * - TOPIC (2): an illegal name answers INVALID_TOPIC_EXCEPTION with Topic.validate's message
 *   ("Topic name is invalid: ...", Kafka 4 wording); an
 *   unknown topic UNKNOWN_TOPIC_OR_PARTITION with no message and no configs. Otherwise every topic
 *   config (src/config.ts resolveTopicConfig): overrides are DYNAMIC_TOPIC_CONFIG (1), values
 *   inherited from a broker setting set in the static config STATIC_BROKER_CONFIG (4), the rest
 *   DEFAULT_CONFIG (5); read_only false.
 * - BROKER (4) (config/dynamic-broker-view.ts describeBrokerResource): name = this node's id
 *   gives every broker setting plus every dynamic config stored for it or the cluster (listener
 *   configs, unknown names, the throttle rates), each with its source — DYNAMIC_BROKER_CONFIG,
 *   DYNAMIC_DEFAULT_BROKER_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG — and Kafka's synonyms;
 *   read_only false exactly for the configs Kafka 4.4 marks dynamic; passwords and configs of
 *   unknown type sensitive with a null value. Name "" gives the cluster-wide dynamic defaults
 *   that are set (a new cluster has min.insync.replicas there, as Kafka 4.4 formats one). A
 *   name that is not an integer: INVALID_REQUEST "Broker id must be an integer, but it is: X";
 *   another id: INVALID_REQUEST "Unexpected broker id, expected N or empty string, but received X".
 * - GROUP (32): every group config of Kafka 4.4 (coordinator/group/group-configs.ts
 *   describeGroupConfigs) whether the group exists or not: overrides DYNAMIC_GROUP_CONFIG (8), the
 *   rest the broker setting they default to (its source) or their own default (DEFAULT_CONFIG);
 *   internal ones only where set. Name "": INVALID_REQUEST "Group name must not be empty".
 * - Other resource types (BROKER_LOGGER, CLIENT_METRICS, unknown): INVALID_REQUEST
 *   "Unsupported resource type: NAME" (Kafka serves the first two; Samsa has neither).
 * - configuration_keys: null or empty = all; unknown names are silently left out.
 * - Synonyms only with include_synonyms (v1+), highest priority first; documentation only with
 *   include_documentation (v3+), else null. Entries are sorted by name.
 * - Per-resource error messages fall back to the error's default text, as Kafka's
 *   messageWithFallback does; a described resource and the unknown-topic answer carry "" (what
 *   Kafka 4.4 sends there).
 * Version notes: v1 include_synonyms, config_source, synonyms (v0 is_default not served);
 * v2 same as v1; v3 include_documentation, config_type, documentation; v4 flexible.
 */
import { KafkaApiError } from '../../errors.js';
import { AclOperation, AUTHORIZATION_MESSAGES, configResourceDenied } from './auth-helper.js';
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { DescribeConfigsResourceResult, DescribeConfigsResult } from '../../protocol/generated/messages/describe-configs-response.js';
import type { DescribeConfigsResource } from '../../protocol/generated/messages/describe-configs-request.js';
import type { BrokerServices } from '../broker-services.js';
import { resolveTopicConfig, type ConfigEntry } from '../../config.js';
import { describeBrokerResource } from '../../config/dynamic-broker-view.js';
import { ResourceType, apiErrorMessage, parseJavaInt, resourceTypeName } from '../topic-configs.js';
import { topicNameProblem } from '../../cluster/topic-names.js';

/** Kafka's Errors.message() for the codes this handler can answer with a thrown error. */
const DEFAULT_MESSAGES: Record<number, string> = {
  [ErrorCode.INVALID_REQUEST]: 'This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details.',
  [ErrorCode.UNKNOWN_SERVER_ERROR]: 'The server experienced an unexpected error when processing the request.',
};

function configsOf(broker: BrokerServices, resource: DescribeConfigsResource): ConfigEntry[] | null {
  switch (resource.resourceType) {
    case ResourceType.TOPIC: {
      const problem = topicNameProblem(resource.resourceName);
      if (problem) throw new KafkaApiError(ErrorCode.INVALID_TOPIC_EXCEPTION, problem);
      const info = broker.metadataCache.topic(resource.resourceName);
      if (!info) return null;
      return resolveTopicConfig(broker.rawConfig, info.configs).entries;
    }
    case ResourceType.BROKER: {
      if (resource.resourceName === '') return describeBrokerResource(broker.rawConfig, false);
      const id = parseJavaInt(resource.resourceName);
      if (id === null) throw new KafkaApiError(ErrorCode.INVALID_REQUEST, `Broker id must be an integer, but it is: ${resource.resourceName}`);
      if (id !== broker.nodeId) {
        throw new KafkaApiError(ErrorCode.INVALID_REQUEST, `Unexpected broker id, expected ${broker.nodeId} or empty string, but received ${resource.resourceName}`);
      }
      return describeBrokerResource(broker.rawConfig, true);
    }
    case ResourceType.GROUP:
      if (resource.resourceName === '') throw new KafkaApiError(ErrorCode.INVALID_REQUEST, 'Group name must not be empty');
      return broker.groupConfigs.describe(resource.resourceName);
    default:
      throw new KafkaApiError(ErrorCode.INVALID_REQUEST, `Unsupported resource type: ${resourceTypeName(resource.resourceType)}`);
  }
}

function errorResult(resource: DescribeConfigsResource, errorCode: number, errorMessage: string | null): DescribeConfigsResult {
  return { errorCode, errorMessage, resourceType: resource.resourceType, resourceName: resource.resourceName, configs: [] };
}

export const describeConfigsHandler = defineHandler({
  apiKey: 32,
  handle(ctx, req) {
    const v = ctx.apiVersion;
    const withSynonyms = req.includeSynonyms;
    const withDocs = v >= 3 && req.includeDocumentation;
    const results = req.resources.map((resource): DescribeConfigsResult => {
      let entries: ConfigEntry[] | null;
      // ACLs: DESCRIBE_CONFIGS on the topic or group, or on the cluster for broker resources.
      const denied = configResourceDenied(ctx, resource.resourceType, resource.resourceName, AclOperation.DESCRIBE_CONFIGS);
      if (denied !== 0) return errorResult(resource, denied, AUTHORIZATION_MESSAGES[denied]);
      try {
        entries = configsOf(ctx.broker, resource);
      } catch (err) {
        if (err instanceof KafkaApiError) {
          const own = apiErrorMessage(err);
          return errorResult(resource, err.errorCode, own ?? DEFAULT_MESSAGES[err.errorCode] ?? null);
        }
        ctx.broker.logger.error(`DescribeConfigs: ${resourceTypeName(resource.resourceType)} ${resource.resourceName} failed`, err);
        return errorResult(resource, ErrorCode.UNKNOWN_SERVER_ERROR, DEFAULT_MESSAGES[ErrorCode.UNKNOWN_SERVER_ERROR]!);
      }
      if (entries === null) return errorResult(resource, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, '');
      const keys = resource.configurationKeys;
      const wanted = keys === null || keys.length === 0 ? null : new Set(keys);
      const configs: DescribeConfigsResourceResult[] = [];
      for (const e of entries) {
        if (wanted && !wanted.has(e.name)) continue;
        configs.push({
          name: e.name,
          value: e.value,
          readOnly: e.readOnly,
          configSource: e.configSource,
          isSensitive: e.isSensitive,
          synonyms: withSynonyms ? e.synonyms.map((s) => ({ name: s.name, value: s.value, source: s.source })) : [],
          configType: e.configType,
          documentation: withDocs ? e.documentation : null,
        });
      }
      return { errorCode: ErrorCode.NONE, errorMessage: '', resourceType: resource.resourceType, resourceName: resource.resourceName, configs };
    });
    return { throttleTimeMs: 0, results };
  },
  errorResponse(req, errorCode) {
    return { throttleTimeMs: 0, results: req.resources.map((r) => errorResult(r, errorCode, null)) };
  },
});
