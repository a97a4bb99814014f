import type { BrokerServices } from './broker-services.js';
import type { ReadBuffers } from '../network/read-slabs.js';
import type { SaslSession } from '../security/sasl/authenticator.js';
import type { ClientRole } from '../cluster/partition-retirement.js';

/** What a handler knows about the request it serves. */
export interface RequestContext {
  broker: BrokerServices;
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
  connectionId: number;
  remoteAddress: string;
  /** The listener the request arrived on (for advertised addresses). */
  listenerName: string;
  /**
   * Who sent it, as Kafka's KafkaPrincipal string (`User:alice`): the connection's authenticated
   * identity, `User:ANONYMOUS` on a PLAINTEXT listener. ACL checks use it.
   */
  principal: string;
  /** The connection's SASL state on SASL_PLAINTEXT / SASL_SSL listeners (SaslHandshake, SaslAuthenticate). */
  sasl?: SaslSession;
  /**
   * Aborted when the connection closes (long polls end early). A signal rather than a promise so
   * that each wait can remove its listener: reactions on a promise that lives as long as the
   * connection would pile up with every long poll.
   */
  closed: AbortSignal;
  /**
   * Where segment reads for this request's response may go (recycled once the response is
   * written; see network/read-slabs.ts). Absent: plain allocations.
   */
  readBuffers?: ReadBuffers;
  /**
   * What this connection has asked for so far (producer or consumer requests), kept per
   * connection: Metadata hides retired partitions' leaders from producers only
   * (cluster/partition-retirement.ts). Absent outside connections (in-process calls).
   */
  clientRole?: ClientRole;
}
