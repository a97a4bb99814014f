/** What an HTTP page gets (the request, the broker, the user), and the error that answers it with a status. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpBroker } from './http-broker.js';

export interface HttpContext {
  broker: HttpBroker;
  req: IncomingMessage;
  res: ServerResponse;
  method: 'GET' | 'HEAD' | 'POST';
  /** Decoded path segments (`/topics/a%2Fb` → ['topics', 'a/b']). */
  segments: string[];
  query: URLSearchParams;
  /** The urlencoded body of a POST (already checked for the token). */
  form: URLSearchParams | null;
  /** The authenticated user ('' without authentication). */
  user: string;
  /** The anti-forgery token forms must send back (field `csrf`). */
  csrf: string;
}

/** Thrown by request parsing or a page: answered with `status` and the message. */
export class BadRequest extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}
