/**
 * ListConfigResources (key 74, KIP-1142), versions 0-1; v0 is Kafka 4.0's ListClientMetricsResources.
 *
 * Behavior (Kafka 4.4's KafkaApis.handleListConfigResources):
 * - ACLs: DESCRIBE_CONFIGS on the cluster, else CLUSTER_AUTHORIZATION_FAILED and no resources.
 * - Supported types: v0 CLIENT_METRICS (16) only (the request has no types); v1 TOPIC (2),
 *   BROKER (4), BROKER_LOGGER (8), CLIENT_METRICS (16), GROUP (32). An empty list means every
 *   supported type; any requested type outside them answers UNSUPPORTED_VERSION with no resources.
 * - What is listed, in Kafka's order (by type, not by the order of the request): the groups that
 *   have group configs (GroupConfigManager), client-metrics resources (none: Samsa does not serve
 *   KIP-714), BROKER_LOGGER and then BROKER as the live brokers' ids, then every topic (internal
 *   ones included). Within a type Kafka's order is its hash maps'; Samsa sorts names.
 * Version notes: v0 flexible, the response names only (resource type implied: CLIENT_METRICS);
 * v1 adds ResourceTypes to the request and ResourceType to each listed resource.
 */
import { AclOperation, authorizeCluster } from './auth-helper.js';
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { ConfigResource } from '../../protocol/generated/messages/list-config-resources-response.js';
import { ResourceType } from '../topic-configs.js';
import { aliveBrokers } from './cluster-view.js';

const { TOPIC, BROKER, BROKER_LOGGER, CLIENT_METRICS, GROUP } = ResourceType;

/** The resource types a version can list (Kafka's ListConfigResourcesRequest.supportedResourceTypes). */
export function supportedResourceTypes(version: number): number[] {
  return version === 0 ? [CLIENT_METRICS] : [TOPIC, BROKER, BROKER_LOGGER, CLIENT_METRICS, GROUP];
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export const listConfigResourcesHandler = defineHandler({
  apiKey: 74,
  handle(ctx, req) {
    // ACLs: DESCRIBE_CONFIGS on the cluster (Kafka's handleListConfigResources).
    if (!authorizeCluster(ctx, AclOperation.DESCRIBE_CONFIGS)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, configResources: [] };
    }
    const supported = supportedResourceTypes(ctx.apiVersion);
    const requested = ctx.apiVersion >= 1 && req.resourceTypes.length > 0 ? req.resourceTypes : supported;
    if (requested.some((t) => !supported.includes(t))) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.UNSUPPORTED_VERSION, configResources: [] };
    }
    const wanted = new Set(requested);
    const broker = ctx.broker;
    const out: ConfigResource[] = [];
    const add = (resourceType: number, names: Iterable<string>) => {
      for (const resourceName of names) out.push({ resourceName, resourceType });
    };
    if (wanted.has(GROUP)) {
      add(GROUP, [...broker.metadataCache.groupConfigs].filter(([, c]) => Object.keys(c).length > 0).map(([g]) => g).sort(byName));
    }
    // CLIENT_METRICS: Samsa has no client-metrics resources (KIP-714 is not served).
    const brokerIds = wanted.has(BROKER_LOGGER) || wanted.has(BROKER) ? aliveBrokers(broker, ctx.listenerName).map((b) => String(b.nodeId)) : [];
    if (wanted.has(BROKER_LOGGER)) add(BROKER_LOGGER, brokerIds);
    if (wanted.has(BROKER)) add(BROKER, brokerIds);
    if (wanted.has(TOPIC)) add(TOPIC, [...broker.metadataCache.topics.keys()].sort(byName));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, configResources: out };
  },
  errorResponse(_req, errorCode) {
    return { throttleTimeMs: 0, errorCode, configResources: [] };
  },
});
