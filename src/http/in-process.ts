/**
 * Kafka requests sent in-process through the broker's request path (the dispatcher), as a client
 * on a connection would send them: validation, ACLs (as the HTTP user's principal), quotas and
 * metrics apply. The REST proxy and the console's produce form use it; nothing crosses a socket.
 */
import type { HttpBroker } from './http-broker.js';
import { decodeResponse, encodeRequest } from '../protocol/wire.js';

let correlation = 1;

export interface InProcessCaller {
  /** The HTTP user ('' without authentication): the request's principal is User:<user>. */
  user: string;
  /** A client.id for the request (what metrics and recordings show). */
  clientId?: string;
}

/** Sends one request (`apiKey` at `version`, body as the generated types) and returns the decoded response body. */
export async function sendInProcess(broker: Pick<HttpBroker, 'dispatcher' | 'listeners'>, apiKey: number, version: number, body: unknown, caller: InProcessCaller): Promise<any> {
  const frame = encodeRequest(apiKey as never, version, correlation++ & 0x7fffffff, caller.clientId ?? 'samsa-rest-proxy', body as never);
  const reply: unknown = await broker.dispatcher.process(frame, {
    connectionId: -1, remoteAddress: 'http', listenerName: broker.listeners[0]?.name ?? 'PLAINTEXT',
    principal: caller.user ? `User:${caller.user}` : 'User:ANONYMOUS', closed: new AbortController().signal,
  });
  const out = reply && typeof reply === 'object' && 'later' in reply ? await (reply as { later: Promise<Buffer[] | null> }).later : (reply as Buffer[] | null);
  if (!out) throw new Error(`no answer to the in-process request (api ${apiKey})`);
  return decodeResponse(apiKey as never, version, Buffer.concat(out).subarray(4)).body;
}
