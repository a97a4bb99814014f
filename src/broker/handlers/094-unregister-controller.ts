/**
 * UnregisterController (key 94), version 0 (KIP-1312, Kafka 4.4): `kafka-cluster.sh
 * unregister-controller --id N` and `kafka-metadata-quorum.sh remove-controller --unregister`,
 * which Kafka's active controller answers by removing a controller's registration.
 *
 * Samsa's controllers are its brokers (each stands in the controller election; DescribeQuorum
 * lists every live broker as a voter), registered by their etcd lease. As Kafka's controller:
 * - ALTER on the cluster, else CLUSTER_AUTHORIZATION_FAILED;
 * - the active controller's own id: INVALID_REQUEST "Controller cannot unregister itself while it
 *   is active.";
 * - an id not registered: CONTROLLER_ID_NOT_REGISTERED "Controller ID N is not currently
 *   registered.";
 * - another registered controller: NONE. Kafka removes the registration and a controller that
 *   still runs registers again at once; a Samsa broker's registration stays while it runs, which
 *   is where Kafka ends too (docs/gaps.md).
 */
import { defineHandler } from '../handler.js';
import { AclOperation, requireCluster } from './auth-helper.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';

export const unregisterControllerHandler = defineHandler({
  apiKey: 94,
  handle(ctx, req) {
    requireCluster(ctx, AclOperation.ALTER);
    const id = req.controllerId;
    if (ctx.broker.metadataCache.controller?.nodeId === id) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Controller cannot unregister itself while it is active.' };
    }
    if (!ctx.broker.isRegisteredBroker(id)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.CONTROLLER_ID_NOT_REGISTERED, errorMessage: `Controller ID ${id} is not currently registered.` };
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null };
  },
  errorResponse(_req, errorCode) {
    return { throttleTimeMs: 0, errorCode, errorMessage: null };
  },
});
