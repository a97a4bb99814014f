/**
 * UnregisterBroker (key 64), version 0 (KIP-500): `kafka-cluster.sh unregister --id N`, which
 * Kafka's controller answers by removing the broker's registration.
 *
 * A Samsa broker's registration is an etcd lease: it ends by itself when the broker stops or its
 * session runs out, so a broker that is gone has nothing left to unregister.
 * - ALTER on the cluster, else CLUSTER_AUTHORIZATION_FAILED (as Kafka).
 * - An id that is not registered: BROKER_ID_NOT_REGISTERED "Broker ID N is not currently
 *   registered", as Kafka 4.4 answers.
 * - A registered, so live, broker: INVALID_REQUEST, where Kafka removes the registration (its
 *   broker then registers again). Samsa's live brokers hold their registration for their session;
 *   stopping the broker unregisters it (docs/gaps.md).
 */
import { defineHandler } from '../handler.js';
import { AclOperation, requireCluster } from './auth-helper.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';

export const unregisterBrokerHandler = defineHandler({
  apiKey: 64,
  handle(ctx, req) {
    requireCluster(ctx, AclOperation.ALTER);
    if (!ctx.broker.isRegisteredBroker(req.brokerId)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.BROKER_ID_NOT_REGISTERED, errorMessage: `Broker ID ${req.brokerId} is not currently registered` };
    }
    return {
      throttleTimeMs: 0, errorCode: ErrorCode.INVALID_REQUEST,
      errorMessage: `Broker ${req.brokerId} is live: its registration ends with its session, when it stops.`,
    };
  },
  errorResponse(_req, errorCode) {
    return { throttleTimeMs: 0, errorCode, errorMessage: null };
  },
});
