/**
 * The contract every API handler (broker/handlers/NNN-<api>.ts) fulfils.
 */
import type { ApiTypes } from '../protocol/generated/api-table.js';
import type { RequestContext } from './request-context.js';

export type HandlerResult<K extends keyof ApiTypes> = ApiTypes[K]['response'] | DeferredResponse<ApiTypes[K]['response']> | undefined;

export interface Handler<K extends keyof ApiTypes = keyof ApiTypes> {
  apiKey: K;
  /**
   * Handles one decoded request. Returning `undefined` sends no response (acks=0 Produce only).
   * Per-partition failures are error codes inside the response; a thrown KafkaApiError becomes
   * errorResponse(code); anything else is logged and answered with UNKNOWN_SERVER_ERROR.
   */
  handle(ctx: RequestContext, req: ApiTypes[K]['request']): Promise<HandlerResult<K>> | HandlerResult<K>;
  /** The response that reports `errorCode` for the whole request (Kafka's AbstractRequest.getErrorResponse). */
  errorResponse(req: ApiTypes[K]['request'], errorCode: number, ctx: RequestContext): ApiTypes[K]['response'];
}

export function defineHandler<K extends keyof ApiTypes>(h: Handler<K>): Handler<K> {
  return h;
}

/**
 * A response that becomes ready later, while the connection goes on with its next request.
 * A handler returns it once the part that must happen in request order is done (e.g. a Produce
 * has appended its batches) and only the reply waits (e.g. for the fsync of acks=all under
 * samsa.flush.on.acks.all). Replies still leave in request order.
 */
export class DeferredResponse<T> {
  constructor(readonly promise: Promise<T | undefined>) {}
}
