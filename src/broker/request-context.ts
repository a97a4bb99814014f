import type { BrokerServices } from './broker-services.js';
import type { ConnectionContext } from '../network/request-processor.js';

/**
 * What a handler knows about the request it serves: the connection's context (who, where, the
 * close signal, read buffers, the client's role; network/request-processor.ts) plus the request
 * header and the broker's services.
 */
export interface RequestContext extends ConnectionContext {
  broker: BrokerServices;
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
}
