/**
 * What every REST Proxy route shares (routes.ts dispatches to v2*.ts and v3*.ts, which import
 * this module, never routes.ts): the request a route gets, its error, and the JSON answers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpBroker } from '../http-broker.js';
import { send } from '../respond.js';

export interface RestProxyRequest {
  broker: HttpBroker;
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  segments: string[];
  query: URLSearchParams;
  /** The request body ('' when none). */
  body: string;
  /** The authenticated HTTP user ('' without authentication). */
  user: string;
  /** This listener's base URL as the client reached it (for `self` links and v2 base_uri). */
  baseUrl: string;
}

/** Thrown by a route: answered with Confluent's error JSON `{error_code, message}`. */
export class RestProxyError extends Error {
  constructor(readonly status: number, readonly errorCode: number, message: string) {
    super(message);
  }
}

export function sendRestJson(res: ServerResponse, status: number, value: unknown, contentType = 'application/json'): void {
  send(res, status, contentType, JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
}

export function sendRestError(res: ServerResponse, err: RestProxyError): void {
  sendRestJson(res, err.status, { error_code: err.errorCode, message: err.message });
}

