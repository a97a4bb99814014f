/**
 * Confluent's REST Proxy on the broker's HTTP listener: the v3 API (`/v3/clusters/...`: clusters,
 * brokers, topics, configs, partitions, produce, consumer groups and lags; v3.ts) and the v2 API
 * that existing scripts use (`/topics/{t}` produce and `/consumers/...` consumer instances;
 * v2.ts). Requests are served in-process through the broker's own request path
 * (../in-process.ts), as the HTTP user.
 *
 * v2 shares `/topics` with the console: a request is the proxy's when it names a Kafka REST
 * media type (`application/vnd.kafka.*` in Content-Type or Accept) or plain JSON is asked for.
 */
import type { IncomingMessage } from 'node:http';
import { RestProxyError, sendRestError, type RestProxyRequest } from './rest-common.js';

export { RestProxyError, sendRestError, sendRestJson, type RestProxyRequest } from './rest-common.js';

const KAFKA_MEDIA = /application\/vnd\.kafka\./i;

/** Whether the request is the REST proxy's. */
export function isRestProxyRequest(segments: readonly string[], req: IncomingMessage): boolean {
  const first = segments[0];
  if (first === 'v3') return true;
  if (first === 'consumers') return true;
  if (first === 'topics' || first === 'brokers') {
    const ct = req.headers['content-type'] ?? '';
    const accept = req.headers.accept ?? '';
    return KAFKA_MEDIA.test(ct) || KAFKA_MEDIA.test(accept) || /^application\/json\b/i.test(accept);
  }
  return false;
}

export async function serveRestProxy(r: RestProxyRequest): Promise<void> {
  try {
    if (r.segments[0] === 'v3') {
      const { v3Route } = await import('./v3.js');
      return await v3Route(r);
    }
    const { v2Route } = await import('./v2.js');
    return await v2Route(r);
  } catch (err) {
    if (err instanceof RestProxyError) return sendRestError(r.res, err);
    throw err;
  }
}
