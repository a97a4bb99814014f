/**
 * REST Proxy v2 consumer instances (Confluent's ConsumersResource and KafkaConsumerManager):
 *   POST   /consumers/{group}                                   create → {instance_id, base_uri}
 *   DELETE /consumers/{group}/instances/{i}                     delete (commit with auto-commit, leave the group)
 *   POST|GET|DELETE .../instances/{i}/subscription              {topics} or {topic_pattern}
 *   POST|GET        .../instances/{i}/assignments               {partitions: [{topic, partition}]}
 *   GET             .../instances/{i}/records?timeout=&max_bytes=   (binary, json, avro, jsonschema)
 *   POST|GET        .../instances/{i}/offsets                   commit ({offsets} or everything read) / committed
 *   POST            .../instances/{i}/positions[/beginning|/end] seek
 * The instances live per broker (the HTTP room's broker object); an instance belongs to the HTTP
 * user that created it (another user gets 40403), runs every operation through its own serial
 * queue (v2-consumer.ts), and is deleted once idle longer than consumer.instance.timeout.ms
 * (Confluent's default, 300000 ms). stopRestConsumers(broker) stops every instance's timers (for
 * the HTTP listener's stop); the timers are unref'd and also stop by themselves once the broker
 * is stopping.
 */
import type { HttpBroker } from '../http-broker.js';
import { RestProxyError, type RestProxyRequest } from './rest-common.js';
import { RestConsumer, type ConsumerSettings } from './v2-consumer.js';
import {
  EMBEDDED_FORMATS, embeddedFormatOf, instanceNotFound, jsonBody, partitionNotFound, sendNoContent, sendV2, topicPartitionsOf, unprocessable, V2Error, type EmbeddedFormat,
} from './v2-common.js';

/** Confluent's consumer.instance.timeout.ms default. */
export const CONSUMER_INSTANCE_TIMEOUT_MS = 300_000;
const SWEEP_INTERVAL_MS = 1000;
const DEFAULT_REQUEST_TIMEOUT_MS = 1000;
const DEFAULT_REQUEST_MAX_BYTES = 64 * 1024 * 1024;
const MAX_FETCH_MIN_BYTES = 10_000_000;

interface Registry {
  instances: Map<string, RestConsumer>;
  sweeper: NodeJS.Timeout | null;
}

const registries = new WeakMap<HttpBroker, Registry>();
const instanceKey = (group: string, name: string) => `${group}\0${name}`;

function registryOf(broker: HttpBroker): Registry {
  let reg = registries.get(broker);
  if (!reg) registries.set(broker, (reg = { instances: new Map(), sweeper: null }));
  return reg;
}

function startSweeper(broker: HttpBroker, reg: Registry): void {
  if (reg.sweeper) return;
  reg.sweeper = setInterval(() => {
    if (broker.stopping) return stopRestConsumers(broker);
    expireIdleRestConsumers(broker);
  }, SWEEP_INTERVAL_MS);
  reg.sweeper.unref();
}

/** Deletes the instances idle (no operation running) for longer than `timeoutMs` at `now`; answers how many. */
export function expireIdleRestConsumers(broker: HttpBroker, now = Date.now(), timeoutMs = CONSUMER_INSTANCE_TIMEOUT_MS): number {
  const reg = registries.get(broker);
  if (!reg) return 0;
  let n = 0;
  for (const [k, c] of reg.instances) {
    if (c.busy > 0 || now - c.lastUsedAt <= timeoutMs) continue;
    reg.instances.delete(k);
    void c.run(() => c.close()).catch(() => undefined);
    n++;
  }
  if (reg.instances.size === 0 && reg.sweeper) {
    clearInterval(reg.sweeper);
    reg.sweeper = null;
  }
  return n;
}

/** Stops every consumer instance of this broker (timers; no leave: the broker is going away) and forgets them. */
export function stopRestConsumers(broker: HttpBroker): void {
  const reg = registries.get(broker);
  if (!reg) return;
  if (reg.sweeper) clearInterval(reg.sweeper);
  reg.sweeper = null;
  for (const c of reg.instances.values()) c.stop();
  reg.instances.clear();
}

// Creating

function stringSetting(v: unknown, name: string): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean' || typeof v === 'number') return String(v);
  throw unprocessable(`${name} must be a string`);
}

function intSetting(v: unknown, name: string): number | null {
  if (v === undefined || v === null) return null;
  const n = typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v;
  if (!Number.isSafeInteger(n)) throw unprocessable(`${name} must be an integer`);
  return n as number;
}

const invalidConfig = (message: string) => new RestProxyError(422, V2Error.INVALID_CONSUMER_CONFIG, `Invalid consumer configuration: ${message}`);

function settingsOf(body: Record<string, unknown>): { name: string | null; settings: ConsumerSettings } {
  const name = stringSetting(body.id, 'id') ?? stringSetting(body.name, 'name');
  const format = (stringSetting(body.format, 'format') ?? 'binary').toLowerCase();
  if (!EMBEDDED_FORMATS.includes(format as EmbeddedFormat)) throw unprocessable('Invalid format type.');
  if (format === 'protobuf') throw invalidConfig('the protobuf embedded format is not supported by this proxy for consumers (use binary, json, avro or jsonschema)');
  const reset = stringSetting(body['auto.offset.reset'], 'auto.offset.reset') ?? 'latest';
  if (reset !== 'earliest' && reset !== 'latest' && reset !== 'none') {
    throw invalidConfig(`Invalid value ${reset} for configuration auto.offset.reset: String must be one of: latest, earliest, none`);
  }
  const commit = (stringSetting(body['auto.commit.enable'], 'auto.commit.enable') ?? 'true').toLowerCase();
  if (commit !== 'true' && commit !== 'false') throw invalidConfig(`Invalid value ${commit} for configuration enable.auto.commit: Expected value to be either true or false`);
  const minBytes = intSetting(body['fetch.min.bytes'] ?? body.responseMinBytes, 'fetch.min.bytes') ?? -1;
  if (minBytes < -1 || minBytes > MAX_FETCH_MIN_BYTES) {
    throw new RestProxyError(422, V2Error.INVALID_CONSUMER_CONFIG_CONSTRAINT, `Invalid consumer configuration. It does not abide by the constraints: Invalid value ${minBytes} for configuration fetch.min.bytes: Value must be at least -1 and no more than ${MAX_FETCH_MIN_BYTES}`);
  }
  const timeout = intSetting(body['consumer.request.timeout.ms'] ?? body.requestWaitMs, 'consumer.request.timeout.ms') ?? DEFAULT_REQUEST_TIMEOUT_MS;
  if (timeout < 0) throw invalidConfig(`Invalid value ${timeout} for configuration consumer.request.timeout.ms: Value must be at least 0`);
  return {
    name,
    settings: { format: format as ConsumerSettings['format'], autoOffsetReset: reset, autoCommit: commit === 'true', fetchMinBytes: minBytes, requestTimeoutMs: timeout, requestMaxBytes: DEFAULT_REQUEST_MAX_BYTES },
  };
}

async function createInstance(r: RestProxyRequest, group: string): Promise<void> {
  const { name: given, settings } = settingsOf((await jsonBody(r)) ?? {});
  const name = given ?? `rest-consumer-${crypto.randomUUID()}`;
  if (name === '') throw unprocessable('name may not be empty');
  const reg = registryOf(r.broker);
  const k = instanceKey(group, name);
  if (reg.instances.has(k)) throw new RestProxyError(409, V2Error.CONSUMER_ALREADY_EXISTS, 'Consumer with specified consumer ID already exists in the specified consumer group.');
  reg.instances.set(k, new RestConsumer(r.broker, group, name, r.user, settings));
  startSweeper(r.broker, reg);
  sendV2(r, 200, { instance_id: name, base_uri: `${r.baseUrl}/consumers/${encodeURIComponent(group)}/instances/${encodeURIComponent(name)}` });
}

// Instance operations

function instanceOf(r: RestProxyRequest, group: string, name: string): RestConsumer {
  const c = registries.get(r.broker)?.instances.get(instanceKey(group, name));
  if (!c || c.closed || c.user !== r.user) throw instanceNotFound();
  c.lastUsedAt = Date.now();
  return c;
}

/** The records' embedded format: the one Accept names, else the instance's; another than the instance's is 40601. */
function recordsFormat(r: RestProxyRequest, c: RestConsumer): ConsumerSettings['format'] {
  const asked = embeddedFormatOf(r.req.headers.accept ?? '');
  if (asked !== null && asked !== c.settings.format) {
    throw new RestProxyError(406, V2Error.CONSUMER_FORMAT_MISMATCH, 'The requested embedded data format does not match the deserializer for this consumer instance');
  }
  return c.settings.format;
}

function longParam(r: RestProxyRequest, name: string): number {
  const v = r.query.get(name);
  if (v === null || v === '') return -1;
  if (!/^-?\d+$/.test(v)) throw new RestProxyError(404, 404, `HTTP 404 Not Found (${name} must be a number)`);
  return Number(v);
}

function offsetsOf(v: unknown): { topic: string; partition: number; offset: number; metadata: string | null }[] {
  const tps = topicPartitionsOf(v, 'offsets');
  return tps.map((tp, i) => {
    const o = (v as Record<string, unknown>[])[i];
    if (!Number.isSafeInteger(o.offset) || (o.offset as number) < 0) throw unprocessable('offsets: every entry needs an offset (an integer ≥ 0)');
    return { ...tp, offset: o.offset as number, metadata: typeof o.metadata === 'string' ? o.metadata : null };
  });
}

async function instanceRoute(r: RestProxyRequest, group: string, name: string, op: string, leaf: string | undefined): Promise<void> {
  const m = r.method;
  const notAllowed = () => new RestProxyError(405, 405, 'HTTP 405 Method Not Allowed');
  const c = instanceOf(r, group, name);
  switch (op) {
    case 'subscription': {
      if (leaf !== undefined) break;
      if (m === 'GET') return sendV2(r, 200, { topics: await c.run(async () => c.subscribedTopics()) });
      if (m === 'DELETE') {
        await c.run(() => c.unsubscribe());
        return sendNoContent(r);
      }
      if (m !== 'POST') throw notAllowed();
      const body = await jsonBody(r);
      const topics = body?.topics;
      const pattern = body?.topic_pattern;
      if (topics !== undefined && topics !== null) {
        if (!Array.isArray(topics) || topics.some((t) => typeof t !== 'string' || t === '')) throw unprocessable('topics must be a list of topic names');
        await c.run(() => c.subscribe([...new Set(topics as string[])], null));
      } else if (typeof pattern === 'string' && pattern !== '') {
        await c.run(() => c.subscribe(null, pattern));
      } else {
        throw unprocessable('A list (of Topics type) or a topic_pattern must be specified.');
      }
      return sendNoContent(r);
    }
    case 'assignments': {
      if (leaf !== undefined) break;
      if (m === 'GET') return sendV2(r, 200, { partitions: await c.run(async () => c.assignment()) });
      if (m !== 'POST') throw notAllowed();
      const partitions = topicPartitionsOf((await jsonBody(r))?.partitions, 'partitions');
      await c.run(() => c.assign(partitions));
      return sendNoContent(r);
    }
    case 'records': {
      if (leaf !== undefined) break;
      if (m !== 'GET') throw notAllowed();
      const format = recordsFormat(r, c);
      const timeout = longParam(r, 'timeout');
      const maxBytes = longParam(r, 'max_bytes');
      const records = await c.run(() => c.read(timeout, maxBytes));
      return sendV2(r, 200, records, `application/vnd.kafka.${format}.v2+json`);
    }
    case 'offsets': {
      if (leaf !== undefined) break;
      if (m === 'GET') {
        const body = await jsonBody(r);
        if (!body) throw partitionNotFound();
        const partitions = topicPartitionsOf(body.partitions, 'partitions');
        return sendV2(r, 200, { offsets: await c.run(() => c.committed(partitions)) });
      }
      if (m !== 'POST') throw notAllowed();
      const body = await jsonBody(r);
      if (!body || body.offsets === undefined || body.offsets === null) await c.run(() => c.commitConsumed());
      else {
        const offsets = offsetsOf(body.offsets);
        // Confluent commits offset + 1: the given offset is the last one consumed.
        await c.run(() => c.commit(offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: BigInt(o.offset) + 1n, metadata: o.metadata }))));
      }
      return sendV2(r, 200, []);
    }
    case 'positions': {
      if (m !== 'POST') throw notAllowed();
      const body = await jsonBody(r);
      if (leaf === undefined) {
        const offsets = offsetsOf(body?.offsets);
        await c.run(async () => c.seek(offsets));
        return sendNoContent(r);
      }
      if (leaf !== 'beginning' && leaf !== 'end') break;
      const partitions = topicPartitionsOf(body?.partitions, 'partitions');
      await c.run(async () => c.seekTo(partitions, leaf === 'beginning' ? 'earliest' : 'latest'));
      return sendNoContent(r);
    }
  }
  throw new RestProxyError(404, 404, 'HTTP 404 Not Found');
}

async function deleteInstance(r: RestProxyRequest, group: string, name: string): Promise<void> {
  const c = instanceOf(r, group, name);
  registries.get(r.broker)?.instances.delete(instanceKey(group, name));
  await c.run(() => c.close());
  sendNoContent(r);
}

export async function consumersRoute(r: RestProxyRequest): Promise<void> {
  const [, group, instances, name, op, leaf, ...rest] = r.segments;
  const notFound = () => new RestProxyError(404, 404, 'HTTP 404 Not Found');
  if (group === undefined || rest.length > 0) throw notFound();
  if (instances === undefined) {
    if (r.method !== 'POST') throw new RestProxyError(405, 405, 'HTTP 405 Method Not Allowed');
    return await createInstance(r, group);
  }
  if (instances !== 'instances' || name === undefined) throw notFound();
  if (op === undefined) {
    if (r.method !== 'DELETE') throw new RestProxyError(405, 405, 'HTTP 405 Method Not Allowed');
    return await deleteInstance(r, group, name);
  }
  return await instanceRoute(r, group, name, op, leaf);
}
