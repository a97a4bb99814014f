/**
 * GetTelemetrySubscriptions (key 71), version 0 (KIP-714). Answered, not advertised.
 *
 * Behavior (Kafka's KafkaApis → ClientMetricsManager.processGetTelemetrySubscriptionRequest, on a
 * broker with no client-metrics subscriptions and no telemetry exporter):
 * - A zero client instance id gets a new random one; any other id is taken as given.
 * - The answer: no requested metrics (so the client pushes nothing), push interval 300000 ms,
 *   telemetry max bytes 1048576, accepted compression zstd, lz4, gzip, snappy, delta temporality,
 *   and the subscription id Kafka computes (broker/client-metrics-manager.ts).
 * - A second request for the same instance within its push interval is THROTTLING_QUOTA_EXCEEDED
 *   (with every other field zero), unless its last push was refused for its subscription id or
 *   compression type.
 * - Not advertised in ApiVersions, as Kafka advertises it only with a telemetry exporter plugin
 *   configured: Java and librdkafka clients then do not send it. No ACL is checked, as in Kafka.
 */
import { defineHandler } from '../handler.js';
import { ZERO_UUID } from '../../protocol/reader.js';

export const getTelemetrySubscriptionsHandler = defineHandler({
  apiKey: 71,
  handle(ctx, req) {
    return { throttleTimeMs: 0, ...ctx.broker.clientMetrics.getSubscription(req.clientInstanceId, ctx.connectionId, ctx.closed) };
  },
  // GetTelemetrySubscriptionsRequest.getErrorResponse: the code, every other field its default.
  errorResponse(_req, errorCode) {
    return { throttleTimeMs: 0, errorCode, clientInstanceId: ZERO_UUID, subscriptionId: 0, acceptedCompressionTypes: [], pushIntervalMs: 0, telemetryMaxBytes: 0, deltaTemporality: false, requestedMetrics: [] };
  },
});
