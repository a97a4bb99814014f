/**
 * DescribeCluster (key 60), versions 0-2.
 *
 * Behavior (Kafka's KafkaApis.handleDescribeCluster → AuthHelper.computeDescribeClusterResponse):
 * - brokers: every live broker from the metadata cache with its advertised host/port for the
 *   listener the request came in on, and its broker.rack; cluster_id; controller_id = the active
 *   controller (a KRaft broker names a random live broker there, never its controller, which
 *   clients cannot reach; Samsa's controller is a broker, so it names it).
 * - endpoint_type (v1): 1 (brokers) is served. 2 (controllers) answers MISMATCHED_ENDPOINT_TYPE
 *   "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type
 *   CONTROLLER"; any other value UNSUPPORTED_ENDPOINT_TYPE "Unsupported endpoint type N" (the
 *   unknown check first). On v0 both are INVALID_REQUEST. A refusal carries only the code and
 *   message: empty cluster id, controller -1, no brokers.
 * - cluster_authorized_operations: -2147483648 unless requested; when requested, every operation
 *   Kafka supports on the CLUSTER resource (no authorizer: CREATE, ALTER, DESCRIBE,
 *   CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE = 8096).
 * - include_fenced_brokers (v2, KIP-1073): Kafka adds its fenced brokers with is_fenced. A Samsa
 *   broker's registration is an etcd lease, so a broker it cannot see is gone, not fenced; the one
 *   fenced broker it knows is itself while it has lost its registration.
 * Version notes: v0 flexible; v1 adds endpoint_type (KIP-919); v2 include_fenced_brokers, is_fenced.
 */
import { defineHandler } from '../handler.js';
import { AclOperation, authorizeCluster, authorizedOperations, ResourceType } from './auth-helper.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { defaultDescribeClusterResponse, type DescribeClusterBroker } from '../../protocol/generated/messages/describe-cluster-response.js';
import type { RequestContext } from '../request-context.js';
import { aliveBrokers, CLUSTER_OPERATIONS } from './cluster-view.js';

const BROKER_ENDPOINT = 1;
const CONTROLLER_ENDPOINT = 2;
const NOT_REQUESTED = -2147483648;

/** With include_fenced_brokers, this broker itself while it has no registration (is_fenced). */
function withFencedSelf(ctx: RequestContext, include: boolean, brokers: DescribeClusterBroker[]): DescribeClusterBroker[] {
  const broker = ctx.broker;
  if (!include || broker.registered) return brokers;
  const e = broker.brokerEndpoint(broker.nodeId, ctx.listenerName);
  if (e) brokers.push({ brokerId: broker.nodeId, host: e.host, port: e.port, rack: e.rack, isFenced: true });
  return brokers.sort((a, b) => a.brokerId - b.brokerId);
}

export const describeClusterHandler = defineHandler({
  apiKey: 60,
  handle(ctx, req) {
    const v = ctx.apiVersion;
    const type = v >= 1 ? req.endpointType : BROKER_ENDPOINT;
    if (type !== BROKER_ENDPOINT) {
      const known = type === CONTROLLER_ENDPOINT;
      return {
        ...defaultDescribeClusterResponse(),
        errorCode: v === 0 ? ErrorCode.INVALID_REQUEST : known ? ErrorCode.MISMATCHED_ENDPOINT_TYPE : ErrorCode.UNSUPPORTED_ENDPOINT_TYPE,
        errorMessage: known
          ? 'The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER'
          : `Unsupported endpoint type ${type}`,
      };
    }
    const broker = ctx.broker;
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      endpointType: BROKER_ENDPOINT,
      clusterId: broker.metadataCache.clusterId ?? '',
      controllerId: broker.metadataCache.controller?.nodeId ?? -1,
      brokers: withFencedSelf(ctx, v >= 2 && req.includeFencedBrokers, aliveBrokers(broker, ctx.listenerName).map((b) => ({ brokerId: b.nodeId, host: b.host, port: b.port, rack: b.rack, isFenced: false }))),
      // ACLs: the principal's operations on the cluster, 0 without DESCRIBE on it (Kafka's handleDescribeCluster).
      clusterAuthorizedOperations: !req.includeClusterAuthorizedOperations ? NOT_REQUESTED
        : !authorizeCluster(ctx, AclOperation.DESCRIBE) ? 0 : authorizedOperations(ctx, ResourceType.CLUSTER, 'kafka-cluster', CLUSTER_OPERATIONS),
    };
  },
  errorResponse(_req, errorCode) {
    return { ...defaultDescribeClusterResponse(), errorCode };
  },
});
