/**
 * REST Proxy v3: a topic's configs (Confluent's TopicConfigsResource and AlterTopicConfigBatchAction).
 * Read with an in-process DescribeConfigs (synonyms included), changed with an in-process
 * IncrementalAlterConfigs (SET / DELETE), so ACLs and the broker's config validation apply.
 * As Confluent's "safe" updates do, a name the topic has no config for answers 404 before
 * anything is altered.
 */
import type { RestProxyRequest } from './rest-common.js';
import { sendInProcess } from '../in-process.js';
import { badRequest, isObject, jsonBody, kafkaError, methodNotAllowed, noContent, notFound, ok, type V3Links } from './v3-common.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { DescribeConfigsResourceResult, DescribeConfigsResponse } from '../../protocol/generated/messages/describe-configs-response.js';
import type { IncrementalAlterConfigsResponse } from '../../protocol/generated/messages/incremental-alter-configs-response.js';

const TOPIC_RESOURCE = 2;
const OP_SET = 0;
const OP_DELETE = 1;
/** DescribeConfigs v1+ has no is_default: the admin client takes DEFAULT_CONFIG for it. */
const DEFAULT_SOURCE = 5;

/** Kafka's DescribeConfigs config_source values by name. */
const SOURCES = ['UNKNOWN', 'DYNAMIC_TOPIC_CONFIG', 'DYNAMIC_BROKER_CONFIG', 'DYNAMIC_DEFAULT_BROKER_CONFIG', 'STATIC_BROKER_CONFIG', 'DEFAULT_CONFIG', 'DYNAMIC_BROKER_LOGGER_CONFIG', 'CLIENT_METRICS_CONFIG', 'GROUP_CONFIG'];
const sourceName = (n: number) => SOURCES[n] ?? 'UNKNOWN';

async function describe(r: RestProxyRequest, topic: string): Promise<DescribeConfigsResourceResult[]> {
  const res = await sendInProcess(r.broker, 32, 4, {
    resources: [{ resourceType: TOPIC_RESOURCE, resourceName: topic, configurationKeys: null }], includeSynonyms: true, includeDocumentation: false,
  }, { user: r.user }) as DescribeConfigsResponse;
  const result = res.results[0];
  if (!result) throw kafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, 'the DescribeConfigs answer names no resource');
  if (result.errorCode !== ErrorCode.NONE) throw kafkaError(result.errorCode, result.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION ? null : result.errorMessage);
  return [...result.configs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function configData(l: V3Links, topic: string, c: DescribeConfigsResourceResult): Record<string, unknown> {
  return l.resource('KafkaTopicConfig', l.url('topics', topic, 'configs', c.name), l.crn('topic', topic, 'config', c.name), {
    cluster_id: l.clusterId, topic_name: topic, name: c.name, value: c.isSensitive ? null : c.value,
    is_default: c.configSource === DEFAULT_SOURCE, is_read_only: c.readOnly, is_sensitive: c.isSensitive, source: sourceName(c.configSource),
    synonyms: c.synonyms.map((s) => ({ name: s.name, value: c.isSensitive ? null : s.value, source: sourceName(s.source) })),
  });
}

function missing(l: V3Links, topic: string, name: string) {
  return notFound(`Config ${name} cannot be found for TOPIC ${topic} in cluster ${l.clusterId}.`);
}

async function alter(r: RestProxyRequest, l: V3Links, topic: string, ops: { name: string; configOperation: number; value: string | null }[], validateOnly: boolean): Promise<void> {
  const known = new Set((await describe(r, topic)).map((c) => c.name));
  for (const op of ops) if (!known.has(op.name)) throw missing(l, topic, op.name);
  const res = await sendInProcess(r.broker, 44, 1, {
    resources: [{ resourceType: TOPIC_RESOURCE, resourceName: topic, configs: ops }], validateOnly,
  }, { user: r.user }) as IncrementalAlterConfigsResponse;
  const out = res.responses[0];
  if (out && out.errorCode !== ErrorCode.NONE) throw kafkaError(out.errorCode, out.errorMessage);
}

/**
 * GET .../topics/{t}/configs, GET/PUT/DELETE .../configs/{name} (PUT body `{value}`), and
 * POST .../configs:alter (`{data: [{name, value?, operation?: SET|DELETE}], validate_only?}`).
 */
export async function topicConfigs(r: RestProxyRequest, l: V3Links, topic: string, name: string | undefined, alterBatch: boolean): Promise<void> {
  if (alterBatch) {
    if (r.method !== 'POST') throw methodNotAllowed();
    const body = jsonBody(r);
    if (!isObject(body) || !Array.isArray(body.data)) throw badRequest('data: an array of {name, value, operation} is expected');
    const ops = body.data.map((e) => {
      if (!isObject(e) || typeof e.name !== 'string') throw badRequest('data: each entry needs a name');
      const op = e.operation === undefined || e.operation === null ? 'SET' : String(e.operation).toUpperCase();
      if (op !== 'SET' && op !== 'DELETE') throw badRequest(`Cannot deserialize value of type AlterConfigBatchRequestData.AlterOperation from String "${String(e.operation)}": not one of the values accepted for Enum class: [SET, DELETE]`);
      const value = op === 'DELETE' || e.value === undefined || e.value === null ? null : String(e.value);
      return { name: e.name, configOperation: op === 'SET' ? OP_SET : OP_DELETE, value };
    });
    await alter(r, l, topic, ops, body.validate_only === true);
    return noContent(r);
  }
  if (name === undefined) {
    if (r.method !== 'GET') throw methodNotAllowed();
    const configs = await describe(r, topic);
    return ok(r, l.collection('KafkaTopicConfigList', l.url('topics', topic, 'configs'), configs.map((c) => configData(l, topic, c))));
  }
  if (r.method === 'GET') {
    const c = (await describe(r, topic)).find((x) => x.name === name);
    if (!c) throw notFound();
    return ok(r, configData(l, topic, c));
  }
  if (r.method === 'PUT') {
    const body = jsonBody(r);
    if (!isObject(body)) throw badRequest('The request body must be a JSON object {"value": ...}.');
    const value = body.value === undefined || body.value === null ? null : String(body.value);
    await alter(r, l, topic, [{ name, configOperation: OP_SET, value }], false);
    return noContent(r);
  }
  if (r.method === 'DELETE') {
    await alter(r, l, topic, [{ name, configOperation: OP_DELETE, value: null }], false);
    return noContent(r);
  }
  throw methodNotAllowed();
}
