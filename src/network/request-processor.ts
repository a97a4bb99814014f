/**
 * What the network layer asks of the layer above it (Kafka's SocketServer hands requests to a
 * RequestChannel; the broker's dispatcher implements this interface). The network layer owns
 * connections, frames and replies in order; it knows nothing of handlers or of the broker.
 */
import type { ClientRole } from '../cluster/partition-retirement.js';
import type { RequestStats } from '../http/metrics/broker-metrics.js';
import type { SaslSession } from '../security/sasl/authenticator.js';
import type { ReadBuffers } from './read-slabs.js';

/** An encoded response; `sendStats` (with /metrics on) receives its socket send time (ResponseSendTimeMs). */
export type ResponseChunks = Buffer[] & { sendStats?: RequestStats };

/**
 * A response frame's chunks (size prefix included), null when no response is sent (acks=0
 * Produce), or `later` when the handler deferred its reply (the connection may then read its
 * next request).
 */
export type Reply = ResponseChunks | null | { later: Promise<ResponseChunks | null> };

/** What a connection tells about itself with each request. */
export interface ConnectionContext {
  connectionId: number;
  remoteAddress: string;
  /** The listener the request arrived on (for advertised addresses). */
  listenerName: string;
  /**
   * Who sent it, as Kafka's KafkaPrincipal string (`User:alice`): the connection's authenticated
   * identity, `User:ANONYMOUS` on a PLAINTEXT listener. ACL checks use it.
   */
  principal: string;
  /** The connection's SASL state on SASL_PLAINTEXT / SASL_SSL listeners. */
  sasl?: SaslSession;
  /**
   * Aborted when the connection closes (long polls end early). A signal rather than a promise so
   * that each wait can remove its listener: reactions on a promise that lives as long as the
   * connection would pile up with every long poll.
   */
  closed: AbortSignal;
  /** Where segment reads for this request's response may go (network/read-slabs.ts). */
  readBuffers?: ReadBuffers;
  /**
   * What this connection has asked for so far (producer or consumer requests): Metadata hides
   * retired partitions' leaders from producers only (cluster/partition-retirement.ts). Absent
   * outside connections (in-process calls).
   */
  clientRole?: ClientRole;
}

export interface RequestProcessor {
  /**
   * Handles one frame (without its size prefix). Throws (or the promise rejects with)
   * ProtocolError when the connection must be closed. `receivedAt`: performance.now() when the
   * frame arrived, else -1.
   */
  process(frame: Buffer, conn: ConnectionContext, receivedAt?: number): Promise<Reply>;
  /** The whole-request error answer to `frame`, without running its handler. */
  errorAnswer(frame: Buffer, errorCode: number, conn: ConnectionContext): Buffer[];
  /** Whether `frame` may be reused once process() has settled. */
  recyclable(frame: Buffer): boolean;
  /** Whether the request may read into recycled buffers (ConnectionContext.readBuffers). */
  lendsReadBuffers(frame: Buffer): boolean;
}

/** What the network layer reports, and the throttles it obeys (metrics and quotas, above it). */
export interface ConnectionObserver {
  connectionOpened(listenerName: string): void;
  connectionClosed(listenerName: string): void;
  /** A SASL authentication succeeded or failed on the listener. */
  authenticated(listenerName: string, ok: boolean): void;
  /** How long to stop reading from a connection over its quota (ms; 0: none), taken once. */
  takeThrottle(connectionId: number): number;
}
