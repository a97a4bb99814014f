/**
 * The contract every API handler (broker/handlers/NNN-<api>.ts) fulfils.
 */
import type { ApiTypes } from '../protocol/generated/api-table.js';
import type { RequestContext } from './request-context.js';

export interface Handler<K extends keyof ApiTypes = keyof ApiTypes> {
  apiKey: K;
  /**
   * Handles one decoded request. Returning `undefined` sends no response (acks=0 Produce only).
   * Per-partition failures are error codes inside the response; a thrown KafkaApiError becomes
   * errorResponse(code); anything else is logged and answered with UNKNOWN_SERVER_ERROR.
   */
  handle(ctx: RequestContext, req: ApiTypes[K]['request']): Promise<ApiTypes[K]['response'] | undefined> | ApiTypes[K]['response'] | undefined;
  /** The response that reports `errorCode` for the whole request (Kafka's AbstractRequest.getErrorResponse). */
  errorResponse(req: ApiTypes[K]['request'], errorCode: number, ctx: RequestContext): ApiTypes[K]['response'];
}

export function defineHandler<K extends keyof ApiTypes>(h: Handler<K>): Handler<K> {
  return h;
}
