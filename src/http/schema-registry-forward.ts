/**
 * Forwarding a Schema Registry request to the broker that leads `_schemas`-0 (Confluent's
 * followers forward to their leader the same way): the same method, path, query, body and
 * credentials, to the first HTTP URL the leader registered (BrokerRegistration.httpUrls); its
 * answer goes back unchanged. A forwarded request is marked, and a broker that receives one
 * without leading the topic answers 50004 rather than forwarding again (leadership moved
 * meanwhile; the client retries).
 */
import type { IncomingMessage } from 'node:http';
import type { HttpBroker } from './http-broker.js';
import { SCHEMAS_TOPIC } from '../schema-registry/schemas-topic.js';
import { Errors } from '../schema-registry/errors.js';
import { REGISTRY_CONTENT_TYPE, sendRegistryError, type RegistryRequest } from './schema-registry-routes.js';
import { send } from './respond.js';

const FORWARDED_HEADER = 'x-samsa-forwarded-by';
const FORWARD_TIMEOUT_MS = 30_000;

export async function forwardToRegistryLeader(broker: HttpBroker, req: IncomingMessage, target: string, r: RegistryRequest): Promise<void> {
  const cache = broker.metadataCache;
  const topic = cache.topic(SCHEMAS_TOPIC);
  const leader = topic ? cache.partition(topic.topicId, 0)?.leader : undefined;
  const url = leader !== undefined && leader !== broker.nodeId ? cache.brokers.get(leader)?.httpUrls?.[0] : undefined;
  if (req.headers[FORWARDED_HEADER] !== undefined || url === undefined) {
    return sendRegistryError(r.res, Errors.unknownLeader(`Unknown leader of the schema registry (the leader of ${SCHEMAS_TOPIC}-0 is ${leader ?? 'not known'}${leader !== undefined && url === undefined ? ', with no HTTP listener registered' : ''})`));
  }
  const headers: Record<string, string> = { [FORWARDED_HEADER]: String(broker.nodeId) };
  for (const h of ['content-type', 'accept', 'authorization']) {
    const v = req.headers[h];
    if (typeof v === 'string') headers[h] = v;
  }
  try {
    const resp = await fetch(url + target, { method: r.method, headers, body: r.body === '' ? undefined : r.body, signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS) });
    const text = await resp.text();
    send(r.res, resp.status, resp.headers.get('content-type') ?? REGISTRY_CONTENT_TYPE, text);
  } catch (err) {
    sendRegistryError(r.res, Errors.forwarding(`Error while forwarding the request to the leader (broker ${leader} at ${url}): ${(err as Error).message}`));
  }
}
