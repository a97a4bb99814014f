import type { Broker } from './broker.js';
import type { ReadBuffers } from '../network/read-slabs.js';

/** What a handler knows about the request it serves. */
export interface RequestContext {
  broker: Broker;
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
  connectionId: number;
  remoteAddress: string;
  /** The listener the request arrived on (for advertised addresses). */
  listenerName: string;
  /** Resolves when the connection closes or the broker stops (long polls end early). */
  closed: Promise<void>;
  /**
   * Where segment reads for this request's response may go (recycled once the response is
   * written; see network/read-slabs.ts). Absent: plain allocations.
   */
  readBuffers?: ReadBuffers;
}
