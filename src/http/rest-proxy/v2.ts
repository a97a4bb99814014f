/**
 * Confluent's REST Proxy v2 API (routes.ts hands it every non-v3 proxy request): the routing of
 *   GET  /topics, /topics/{t}, /topics/{t}/partitions[/{p}[/offsets]], /brokers   (v2-topics.ts)
 *   POST /topics/{t}, /topics/{t}/partitions/{p}                                 (v2-produce.ts)
 *   /consumers/{group}[/instances/{name}/...]                                    (v2-consumers.ts)
 * Answers are `application/vnd.kafka.v2+json` (records: the embedded format's media type) and
 * errors Confluent's `{error_code, message}`.
 */
import { RestProxyError, type RestProxyRequest } from './rest-common.js';
import { getPartition, getPartitionOffsets, getTopic, listBrokers, listPartitions, listTopics } from './v2-topics.js';
import { produceToPartition, produceToTopic } from './v2-produce.js';
import { consumersRoute } from './v2-consumers.js';
import { sendV2 } from './v2-common.js';

export { stopRestConsumers } from './v2-consumers.js';

const notFound = () => new RestProxyError(404, 404, 'HTTP 404 Not Found');
const notAllowed = () => new RestProxyError(405, 405, 'HTTP 405 Method Not Allowed');

/** Errors as Confluent answers them: `{error_code, message}` in the v2 media type. */
export async function v2Route(r: RestProxyRequest): Promise<void> {
  try {
    return await route(r);
  } catch (err) {
    if (!(err instanceof RestProxyError) || r.res.headersSent) throw err;
    sendV2(r, err.status, { error_code: err.errorCode, message: err.message });
  }
}

async function route(r: RestProxyRequest): Promise<void> {
  const [first, topic, sub, partition, leaf, ...rest] = r.segments;
  const m = r.method;
  if (first === 'consumers') return await consumersRoute(r);
  if (first === 'brokers' && topic === undefined) {
    if (m !== 'GET') throw notAllowed();
    return await listBrokers(r);
  }
  if (first !== 'topics' || rest.length > 0) throw notFound();
  if (topic === undefined) {
    if (m !== 'GET') throw notAllowed();
    return await listTopics(r);
  }
  if (sub === undefined) {
    if (m === 'GET') return await getTopic(r, topic);
    if (m === 'POST') return await produceToTopic(r, topic);
    throw notAllowed();
  }
  if (sub !== 'partitions') throw notFound();
  if (partition === undefined) {
    if (m !== 'GET') throw notAllowed();
    return await listPartitions(r, topic);
  }
  if (leaf === undefined) {
    if (m === 'GET') return await getPartition(r, topic, partition);
    if (m === 'POST') return await produceToPartition(r, topic, partition);
    throw notAllowed();
  }
  if (leaf !== 'offsets') throw notFound();
  if (m !== 'GET') throw notAllowed();
  return await getPartitionOffsets(r, topic, partition);
}
