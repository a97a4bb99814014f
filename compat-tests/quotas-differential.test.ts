/**
 * controller_mutation_rate, differential: the same quota and the same CreateTopics /
 * CreatePartitions / DeleteTopics to one Samsa and one real Apache Kafka 4.4 (both with
 * controller.quota.window.num=2, controller.quota.window.size.seconds=1, so the token bucket
 * holds rate x 2 s). Strict versions refuse topics with THROTTLING_QUOTA_EXCEEDED once the bucket
 * is below zero, older ones accept and throttle; the error codes must be the same and the
 * throttle times close (they depend on the milliseconds between requests).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KafkaConn } from '../bench/lib/kafka-conn.js';
import { startBroker, type RunningBroker } from '../src/testing/start-broker.js';
import { kafkaOrSkip } from '../test/support/kafka.js';
import type { RunningKafka } from '../tools/kafka/kafka.js';
import { SUITE_BROKER_CONFIG } from './lib/targets.js';
import { fill } from './probes/fill.js';
import { codec } from './probes/wire.js';

const CONFIG: Record<string, string> = { ...SUITE_BROKER_CONFIG, 'controller.quota.window.num': '2', 'controller.quota.window.size.seconds': '1' };
let kafka: RunningKafka | null = null;
let samsa: RunningBroker | null = null;
const conns: KafkaConn[] = [];

test.before(async () => {
  [kafka, samsa] = await Promise.all([kafkaOrSkip('quota differential', { overrides: CONFIG }), startBroker({ port: 0, config: CONFIG })]);
  if (!kafka) return;
  for (const port of [kafka.port, samsa.port]) conns.push(await KafkaConn.connect('127.0.0.1', port));
});

test.after(async () => {
  for (const c of conns) c.close();
  await Promise.allSettled([kafka?.stop(), samsa?.stop()]);
});

const req = (c: KafkaConn, apiKey: number, version: number, body: Record<string, unknown>): Promise<any> =>
  c.request(apiKey as never, version, fill(`${codec(apiKey).name}Request`, version, body) as never);

/** Both answers: [kafka, samsa]. */
const both = (apiKey: number, version: number, body: Record<string, unknown>) => Promise.all(conns.map((c) => req(c, apiKey, version, body)));

async function quota(rate: number | null): Promise<void> {
  const op = rate === null ? { key: 'controller_mutation_rate', value: 0, remove: true } : { key: 'controller_mutation_rate', value: rate, remove: false };
  const rs = await both(49, 1, { entries: [{ entity: [{ entityType: 'client-id', entityName: 'samsa-bench' }], ops: [op] }], validateOnly: false });
  for (const r of rs) assert.is(r.entries[0].errorCode, 0);
  await new Promise((r) => setTimeout(r, 500)); // Kafka applies quotas through its metadata log
}

const topics = (prefix: string, n: number, partitions: number) => Array.from({ length: n }, (_, i) => ({ name: `${prefix}-${i}`, numPartitions: partitions, replicationFactor: 1 }));
const close = (k: number, s: number) => Math.abs(k - s) <= 400;

test('CreateTopics v7 (strict): topics past the bucket fail with THROTTLING_QUOTA_EXCEEDED', async () => {
  if (!kafka) return;
  await quota(2); // 4 tokens
  const [k, s] = await both(19, 7, { topics: topics('mq-a', 3, 3), timeoutMs: 30_000 });
  const codes = (r: any) => r.topics.map((t: any) => [t.name, t.errorCode, t.errorMessage]).sort();
  assert.equal(codes(s), codes(k));
  assert.equal(k.topics.map((t: any) => t.errorCode).sort(), [0, 0, 89]);
  assert.ok(close(k.throttleTimeMs, s.throttleTimeMs), `throttle kafka ${k.throttleTimeMs}, samsa ${s.throttleTimeMs}`);
});

test('CreatePartitions v3 (strict) and DeleteTopics v6 (strict) while the bucket is below zero', async () => {
  if (!kafka) return;
  const [k, s] = await both(37, 3, { topics: [{ name: 'mq-a-0', count: 4, assignments: null }], timeoutMs: 30_000, validateOnly: false });
  assert.equal(s.results.map((r: any) => [r.errorCode, r.errorMessage]), k.results.map((r: any) => [r.errorCode, r.errorMessage]));
  const [kd, sd] = await both(20, 6, { topics: [{ name: 'mq-a-1', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }], timeoutMs: 30_000 });
  assert.equal(sd.responses.map((r: any) => [r.errorCode, r.errorMessage]), kd.responses.map((r: any) => [r.errorCode, r.errorMessage]));
  assert.ok(close(kd.throttleTimeMs, sd.throttleTimeMs), `throttle kafka ${kd.throttleTimeMs}, samsa ${sd.throttleTimeMs}`);
});

test('CreateTopics v5 (permissive): accepted, then throttled', async () => {
  if (!kafka) return;
  await new Promise((r) => setTimeout(r, 2500)); // the bucket refills
  const [k, s] = await both(19, 5, { topics: topics('mq-b', 2, 3), timeoutMs: 30_000 });
  assert.equal(s.topics.map((t: any) => t.errorCode), k.topics.map((t: any) => t.errorCode));
  assert.equal(k.topics.map((t: any) => t.errorCode), [0, 0]);
  assert.ok(k.throttleTimeMs > 0 && close(k.throttleTimeMs, s.throttleTimeMs), `throttle kafka ${k.throttleTimeMs}, samsa ${s.throttleTimeMs}`);
  await quota(null);
});

test.run();
