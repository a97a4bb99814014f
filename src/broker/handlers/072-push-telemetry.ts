/**
 * PushTelemetry (key 72), version 0 (KIP-714). Answered, not advertised.
 *
 * Behavior (Kafka's ClientMetricsManager.processPushTelemetryRequest, no exporter plugin):
 * - The zero or the reserved "one" instance id: INVALID_REQUEST.
 * - Then, for the instance (created if unseen): after a terminating push, INVALID_REQUEST; a push
 *   within the push interval that does not follow a GetTelemetrySubscriptions and is not
 *   terminating, THROTTLING_QUOTA_EXCEEDED; another subscription id, UNKNOWN_SUBSCRIPTION_ID; a
 *   compression type that is not Kafka's, UNSUPPORTED_COMPRESSION_TYPE; metrics over 1 MiB,
 *   TELEMETRY_TOO_LARGE. Otherwise NONE, and the metrics are dropped (Kafka gives them to its
 *   exporter plugins: none configured).
 * - The request's terminating flag is recorded whatever the outcome, as Kafka does.
 */
import { defineHandler } from '../handler.js';

export const pushTelemetryHandler = defineHandler({
  apiKey: 72,
  handle(ctx, req) {
    const errorCode = ctx.broker.clientMetrics.push({
      clientInstanceId: req.clientInstanceId,
      subscriptionId: req.subscriptionId,
      terminating: req.terminating,
      compressionType: req.compressionType,
      metricsBytes: req.metrics.length,
    }, ctx.connectionId, ctx.closed);
    return { throttleTimeMs: 0, errorCode };
  },
  errorResponse(_req, errorCode) {
    return { throttleTimeMs: 0, errorCode };
  },
});
