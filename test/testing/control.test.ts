/**
 * Every test control exercised with kafkajs, asserting what the client observably does;
 * waitForGroupStable also with confluent-kafka's KIP-848 consumers and ShareConsumer.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/index.js';
import type { ProduceRequest } from '../../src/protocol/generated/messages/produce-request.js';
import type { ProduceResponse } from '../../src/protocol/generated/messages/produce-response.js';
import { startGroup } from '../support/python-groups.js';

const { Kafka, logLevel } = kafkajs;

let b: RunningBroker;
let n = 0;

test.before(async () => {
  b = await startBroker({ storage: 'memory', 'num.partitions': 1, config: { 'group.share.assignment.interval.ms': '0' } });
});
test.after(async () => {
  await b.stop();
});
test.after.each(() => {
  b.control.reset();
});

function client(extra: Partial<kafkajs.KafkaConfig> = {}) {
  return new Kafka({ clientId: `ctl-${++n}`, brokers: [b.bootstrap], logLevel: logLevel.NOTHING, retry: { initialRetryTime: 20, retries: 5 }, ...extra });
}

async function createTopic(topic: string, numPartitions = 1): Promise<void> {
  const admin = client().admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions }] });
  await admin.disconnect();
}

test('injected NOT_LEADER_OR_FOLLOWER on Produce: kafkajs refreshes metadata and retries', async () => {
  await createTopic('nl');
  const producer = client().producer();
  await producer.connect();
  const rec = b.control.record({ apiKeys: ['Produce', 'Metadata'] });
  const rule = b.control.injectError('Produce', 'NOT_LEADER_OR_FOLLOWER');
  try {
    const res = await producer.send({ topic: 'nl', messages: [{ value: 'once' }] });
    assert.is(res[0]!.errorCode, 0);
    assert.is(res[0]!.baseOffset, '0');
  } finally {
    rec.stop();
    await producer.disconnect();
  }
  assert.is(rule.hits, 1);
  const names = rec.exchanges.map((e) => e.apiName);
  const first = names.indexOf('Produce');
  assert.ok(first >= 0 && names.indexOf('Metadata', first) > first && names.lastIndexOf('Produce') > names.indexOf('Metadata', first),
    `expected Produce, Metadata, Produce in ${names.join(',')}`);
  const produces = rec.of('Produce');
  assert.is(produces.length, 2);
  assert.is(produces[0]!.injectedError, 6);
  assert.is((produces[0]!.response as ProduceResponse).responses[0]!.partitionResponses[0]!.errorCode, 6);
  assert.is((produces[1]!.response as ProduceResponse).responses[0]!.partitionResponses[0]!.errorCode, 0);
  // Nothing was written by the failed attempt: exactly one record.
  assert.is(b.broker.getLog('nl', 0)!.highWatermark, 1);
});

test('per-partition injection: only that partition fails; kafkajs resends the whole request (at-least-once)', async () => {
  await createTopic('pp', 2);
  const producer = client().producer();
  await producer.connect();
  const rec = b.control.record({ apiKeys: ['Produce'] });
  b.control.injectError('Produce', 'NOT_LEADER_OR_FOLLOWER', { topic: 'pp', partition: 1 });
  try {
    await producer.send({ topic: 'pp', messages: [{ value: 'a', partition: 0 }, { value: 'b', partition: 1 }] });
  } finally {
    rec.stop();
    await producer.disconnect();
  }
  const first = rec.of('Produce')[0]!.response as ProduceResponse;
  const codes = Object.fromEntries(first.responses[0]!.partitionResponses.map((p) => [p.index, p.errorCode]));
  assert.equal(codes, { 0: 0, 1: 6 });
  assert.is(rec.exchanges.length, 2);
  // Partition 0 was written by the first request and again by the retry (kafkajs retries the
  // broker's whole request; without idempotence that duplicates); partition 1 only by the retry.
  assert.is(b.broker.getLog('pp', 0)!.highWatermark, 2);
  assert.is(b.broker.getLog('pp', 1)!.highWatermark, 1);
});

test('ListOffsets for one partition: admin.fetchTopicOffsets refreshes metadata and retries UNKNOWN_TOPIC_OR_PARTITION', async () => {
  await createTopic('lo');
  const rec = b.control.record({ apiKeys: ['ListOffsets'] });
  b.control.injectError('ListOffsets', 'UNKNOWN_TOPIC_OR_PARTITION', { topic: 'lo', partition: 0 });
  const admin = client().admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets('lo');
    assert.is(offsets[0]!.high, '0');
  } finally {
    rec.stop();
    await admin.disconnect();
  }
  assert.ok(rec.exchanges.length >= 3, `ListOffsets sent ${rec.exchanges.length} time(s)`);
  assert.is(rec.exchanges[0]!.injectedError, 3);
});

test('ListOffsets: kafkajs admin does not retry LEADER_NOT_AVAILABLE, the error reaches the caller', async () => {
  await createTopic('lo2');
  b.control.injectError('ListOffsets', 'LEADER_NOT_AVAILABLE', { topic: 'lo2' });
  const admin = client().admin();
  await admin.connect();
  try {
    await admin.fetchTopicOffsets('lo2');
    assert.unreachable('should fail');
  } catch (err) {
    assert.is((err as { type?: string }).type, 'LEADER_NOT_AVAILABLE');
  } finally {
    await admin.disconnect();
  }
});

test('injection on Metadata for a topic: the producer retries until the topic has a leader', async () => {
  await createTopic('md');
  b.control.injectError('Metadata', 'LEADER_NOT_AVAILABLE', { topic: 'md', count: 2 });
  const rec = b.control.record({ apiKeys: ['Metadata'] });
  const producer = client().producer();
  await producer.connect();
  try {
    await producer.send({ topic: 'md', messages: [{ value: 'x' }] });
  } finally {
    rec.stop();
    await producer.disconnect();
  }
  assert.ok(rec.exchanges.filter((e) => e.injectedError === 5).length === 2);
  assert.is(b.broker.getLog('md', 0)!.highWatermark, 1);
});

test('per-partition Fetch injection: the kafkajs consumer refreshes metadata and keeps consuming', async () => {
  await createTopic('fe');
  const kafka = client();
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'fe', messages: [{ value: 'a' }, { value: 'b' }] });
  const rec = b.control.record({ apiKeys: ['Fetch', 'Metadata'] });
  b.control.injectError('Fetch', 'NOT_LEADER_OR_FOLLOWER', { topic: 'fe', partition: 0, count: 2 });
  const seen: string[] = [];
  const consumer = kafka.consumer({ groupId: 'fe-group', maxWaitTimeInMs: 100, retry: { retries: 10, initialRetryTime: 20 } });
  await consumer.connect();
  await consumer.subscribe({ topic: 'fe', fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => { seen.push(message.value!.toString()); } });
  await b.control.waitForGroupStable('fe-group');
  await b.control.waitForCommittedOffset('fe-group', 'fe', 0, 2);
  await consumer.disconnect();
  await producer.disconnect();
  rec.stop();
  assert.equal(seen, ['a', 'b']);
  const fetches = rec.of('Fetch');
  assert.is(fetches.filter((e) => e.injectedError === 6).length, 2);
  const firstInjected = rec.exchanges.findIndex((e) => e.injectedError === 6);
  assert.ok(rec.exchanges.slice(firstInjected).some((e) => e.apiName === 'Metadata'), 'metadata refreshed after the error');
});

test('a non-retriable injected error reaches the application', async () => {
  await createTopic('fatal');
  const producer = client().producer();
  await producer.connect();
  b.control.injectError('Produce', 'TOPIC_AUTHORIZATION_FAILED');
  try {
    await producer.send({ topic: 'fatal', messages: [{ value: 'x' }] });
    assert.unreachable('send should fail');
  } catch (err) {
    assert.match(String((err as Error).message), /not authorized|authorization/i);
  } finally {
    await producer.disconnect();
  }
});

test('injected latency trips kafkajs requestTimeout', async () => {
  await createTopic('slow');
  const producer = client({ requestTimeout: 200, retry: { retries: 0 } }).producer();
  await producer.connect();
  const rule = b.control.addLatency('Produce', 1000);
  const started = Date.now();
  try {
    await producer.send({ topic: 'slow', messages: [{ value: 'late' }] });
    assert.unreachable('send should time out');
  } catch (err) {
    const e = err as Error & { name: string };
    assert.match(`${e.name} ${e.message}`, /timed out|Timeout/i);
    assert.ok(Date.now() - started < 900, 'failed by the client timeout, before the delayed answer');
  } finally {
    rule.remove();
    await producer.disconnect();
  }
  assert.ok(rule.hits >= 1);
});

test('latency under the timeout only slows the request down', async () => {
  await createTopic('slowish');
  const producer = client().producer();
  await producer.connect();
  b.control.addLatency('Produce', 150, { count: 1 });
  const started = Date.now();
  await producer.send({ topic: 'slowish', messages: [{ value: 'x' }] });
  assert.ok(Date.now() - started >= 140);
  await producer.disconnect();
});

test('dropped request: the connection closes and kafkajs reconnects and retries', async () => {
  await createTopic('drop');
  const producer = client().producer();
  await producer.connect();
  const accepted = b.control.connectionsAccepted;
  const rec = b.control.record({ apiKeys: ['Produce'] });
  b.control.dropNextRequest({ apiKey: 'Produce' });
  try {
    const res = await producer.send({ topic: 'drop', messages: [{ value: 'survives' }] });
    assert.is(res[0]!.errorCode, 0);
  } finally {
    rec.stop();
    await producer.disconnect();
  }
  assert.ok(b.control.connectionsAccepted > accepted, 'kafkajs opened a new connection');
  assert.is(rec.exchanges[0]!.dropped, true);
  assert.is(rec.exchanges[0]!.response, undefined);
  assert.is(rec.exchanges.at(-1)!.connectionId !== rec.exchanges[0]!.connectionId, true);
  assert.is(b.broker.getLog('drop', 0)!.highWatermark, 1);
});

test('held request: the send waits until released', async () => {
  await createTopic('hold');
  const producer = client().producer();
  await producer.connect();
  const held = b.control.holdNextRequest({ apiKey: 'Produce' });
  let done = false;
  const sending = producer.send({ topic: 'hold', messages: [{ value: 'x' }] }).then((r) => { done = true; return r; });
  const ex = await held.arrived;
  assert.is(ex.apiName, 'Produce');
  assert.is((ex.request as ProduceRequest).topicData[0]!.name, 'hold');
  await new Promise((r) => setTimeout(r, 50));
  assert.is(done, false);
  assert.is(b.broker.getLog('hold', 0)!.highWatermark, 0);
  held.release();
  const res = await sending;
  assert.is(res[0]!.errorCode, 0);
  assert.is(b.broker.getLog('hold', 0)!.highWatermark, 1);
  await producer.disconnect();
});

test('held request dropped: the client sees a connection error and retries', async () => {
  await createTopic('hold-drop');
  const producer = client().producer();
  await producer.connect();
  const held = b.control.holdNextRequest({ apiKey: 'Produce' });
  const sending = producer.send({ topic: 'hold-drop', messages: [{ value: 'x' }] });
  await held.arrived;
  held.drop();
  await sending;
  assert.is(b.broker.getLog('hold-drop', 0)!.highWatermark, 1);
  await producer.disconnect();
});

test('disconnectAll: every client connection closes; clients reconnect on their next request', async () => {
  const admin = client().admin();
  await admin.connect();
  await admin.listTopics();
  assert.ok(b.control.connectionCount >= 1);
  const accepted = b.control.connectionsAccepted;
  b.control.disconnectAll();
  await new Promise((r) => setTimeout(r, 20));
  assert.is(b.control.connectionCount, 0);
  const topics = await admin.listTopics();
  assert.ok(topics.includes('nl'));
  assert.ok(b.control.connectionsAccepted > accepted);
  await admin.disconnect();
});

test('recording shows what the client sent, decoded', async () => {
  const rec = b.control.record();
  const kafka = client({ clientId: 'recorded-app' });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'rec', acks: 1, timeout: 1234, messages: [{ key: 'k', value: 'v' }] });
  await producer.disconnect();
  rec.stop();
  assert.is(rec.exchanges[0]!.apiName, 'ApiVersions');
  assert.ok(rec.exchanges.every((e) => e.clientId === 'recorded-app'));
  const [produce] = rec.requests(0);
  assert.is(produce!.acks, 1);
  assert.is(produce!.timeoutMs, 1234);
  assert.is(produce!.topicData[0]!.name, 'rec');
  assert.ok(rec.of('Produce')[0]!.apiVersion >= 3);
});

test('waitForHighWatermark resolves on the append, and times out with a clear message', async () => {
  const waiting = b.control.waitForHighWatermark('hw', 0, 3);
  const producer = client().producer();
  await producer.connect();
  await producer.send({ topic: 'hw', messages: [{ value: '1' }, { value: '2' }] });
  let resolved = false;
  void waiting.then(() => { resolved = true; });
  await new Promise((r) => setTimeout(r, 20));
  assert.is(resolved, false);
  await producer.send({ topic: 'hw', messages: [{ value: '3' }] });
  await waiting;
  await producer.disconnect();
  try {
    await b.control.waitForHighWatermark('hw', 0, 10, { timeoutMs: 50 });
    assert.unreachable();
  } catch (err) {
    assert.match((err as Error).message, /timed out after 50 ms waiting for high watermark of hw-0 to reach 10/);
  }
});

test('waitForGroupStable: a KIP-848 consumer group once every member has reconciled, a share group once its members hold the assignment', async () => {
  // The share group's wait starts before the group exists; it resolves on a later response.
  const shareWait = b.control.waitForGroupStable('ctl-sg', { timeoutMs: 30_000 });
  const groups = await Promise.all([
    startGroup(b.bootstrap, 'consumer', 'ctl-cg', 'ctl-cg-t', { members: 2, records: 4 }),
    startGroup(b.bootstrap, 'share', 'ctl-sg', 'ctl-sg-t', { records: 3 }),
  ]);
  try {
    const [cg, sg] = await Promise.all([b.control.waitForGroupStable('ctl-cg', { timeoutMs: 30_000 }), shareWait]);
    assert.is(cg.type, 'consumer');
    assert.is(cg.state, 'Stable');
    assert.ok(cg.members.length >= 1 && cg.members.every((m) => m.memberEpoch === cg.groupEpoch), `every member at the group epoch ${cg.groupEpoch}: ${cg.members.map((m) => m.memberEpoch)}`);
    const held = cg.members.flatMap((m) => m.assignment!.flatMap((a) => a.partitions.map((p) => `${a.topic}:${p}`)));
    assert.equal(held.sort(), ['ctl-cg-t:0', 'ctl-cg-t:1'], 'the members hold every partition once');
    assert.is(sg.type, 'share');
    assert.is(sg.state, 'Stable');
    assert.equal(sg.members.map((m) => m.assignment), [[{ topic: 'ctl-sg-t', partitions: [0] }]]);
    assert.is(sg.members[0].clientId, 'ctl-sg-0');
  } finally {
    for (const g of groups) g.stop();
  }
});

test('bad names are rejected with a hint', () => {
  assert.throws(() => b.control.injectError('Prodce' as never, 6), /unknown API 'Prodce'/);
  assert.throws(() => b.control.injectError('Produce', 'NOT_A_CODE' as never), /unknown error 'NOT_A_CODE'/);
  assert.throws(() => b.control.injectError('CreateTopics', 6, { topic: 'x' }), /per-partition error injection supports/);
});

test.run();
