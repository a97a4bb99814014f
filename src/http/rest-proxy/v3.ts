/**
 * Confluent's REST Proxy v3 API (routes.ts sends every `/v3/...` request here): the path is
 * matched to a route of the subset scripts use, each answering in Confluent's JSON shapes:
 *
 *   GET            /v3/clusters, /v3/clusters/{c}
 *   GET            .../brokers, .../brokers/{id}
 *   GET POST       .../topics                       GET DELETE .../topics/{t}
 *   GET            .../topics/{t}/configs           GET PUT DELETE .../topics/{t}/configs/{name}
 *   POST           .../topics/{t}/configs:alter
 *   GET            .../topics/{t}/partitions[/{p}[/replicas[/{broker}]]]
 *   POST           .../topics/{t}/records           (produce; several concatenated JSON records stream)
 *   GET            .../consumer-groups[/{g}[/consumers[/{id}[/assignments]] | /lags[/{t}/partitions/{p}] | /lag-summary]]
 *
 * v3-topics.ts, v3-configs.ts, v3-records.ts (+ v3-serialize.ts) and v3-groups.ts serve them.
 * An unknown path answers Confluent's `{"error_code": 404, "message": "HTTP 404 Not Found"}`,
 * an unknown cluster id `Cluster <id> cannot be found.`, a known path with another method 405.
 */
import type { RestProxyRequest } from './rest-common.js';
import { clusterLinks, methodNotAllowed, notFound } from './v3-common.js';
import { brokers, createTopic, deleteTopic, getCluster, getTopic, listClusters, listTopics, partitions } from './v3-topics.js';
import { topicConfigs } from './v3-configs.js';

function only(r: RestProxyRequest, ...methods: string[]): void {
  if (!methods.includes(r.method)) throw methodNotAllowed();
}

export async function v3Route(r: RestProxyRequest): Promise<void> {
  const s = r.segments;
  if (s[1] !== 'clusters') throw notFound();
  if (s.length === 2) {
    only(r, 'GET');
    return listClusters(r);
  }
  const l = clusterLinks(r, s[2]!);
  const kind = s[3];
  if (kind === undefined) {
    only(r, 'GET');
    return getCluster(r, l);
  }
  const rest = s.slice(4);
  switch (kind) {
    case 'brokers':
      if (rest.length > 1) throw notFound();
      only(r, 'GET');
      return brokers(r, l, rest[0]);
    case 'topics':
      return topicsRoute(r, l, rest);
    case 'consumer-groups': {
      only(r, 'GET');
      const { consumerGroups } = await import('./v3-groups.js');
      return consumerGroups(r, l, rest);
    }
    default:
      throw notFound();
  }
}

async function topicsRoute(r: RestProxyRequest, l: ReturnType<typeof clusterLinks>, rest: string[]): Promise<void> {
  if (rest.length === 0) {
    only(r, 'GET', 'POST');
    return r.method === 'GET' ? listTopics(r, l) : createTopic(r, l);
  }
  const topic = rest[0]!;
  const sub = rest[1];
  if (sub === undefined) {
    only(r, 'GET', 'DELETE');
    return r.method === 'GET' ? getTopic(r, l, topic) : deleteTopic(r, l, topic);
  }
  if (sub === 'configs' || sub === 'configs:alter') {
    if (rest.length > 3 || (sub === 'configs:alter' && rest.length > 2)) throw notFound();
    return topicConfigs(r, l, topic, rest[2], sub === 'configs:alter');
  }
  if (sub === 'partitions') {
    only(r, 'GET');
    return partitions(r, l, topic, rest.slice(2));
  }
  if (sub === 'records' && rest.length === 2) {
    only(r, 'POST');
    const { produceRecords } = await import('./v3-records.js');
    return produceRecords(r, l, topic);
  }
  throw notFound();
}
