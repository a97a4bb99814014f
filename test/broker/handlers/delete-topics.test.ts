import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startBroker, type RunningBroker } from '../../../src/testing/start-broker.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { WireClient, withBroker } from './_admin-wire.js';

const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';
const UNKNOWN_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';
let b: RunningBroker;
let c: WireClient;

withBroker(test, { port: 0 }, async (nb, nc) => {
  b = nb;
  c = nc;
});

async function make(...names: string[]) {
  for (const name of names) await b.broker.createTopic({ name, numPartitions: 2, replicationFactor: 1, configs: {} });
}

test('v1-5 delete by name; unknown names answer UNKNOWN_TOPIC_OR_PARTITION', async () => {
  await make('dt-a', 'dt-b');
  const r = await c.send(20, 4, { topics: [], topicNames: ['dt-a', 'dt-missing'], timeoutMs: 1000 });
  const byName = new Map(r.responses.map((x) => [x.name, x]));
  assert.is(byName.get('dt-a')!.errorCode, ErrorCode.NONE);
  assert.is(byName.get('dt-missing')!.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  assert.is(b.broker.metadataCache.topic('dt-a'), undefined);
  assert.is(b.broker.getLog('dt-a', 0), undefined);
  assert.ok(b.broker.metadataCache.topic('dt-b'));
  const r1 = await c.send(20, 1, { topics: [], topicNames: ['dt-b'], timeoutMs: 1000 });
  assert.equal(r1.responses.map((x) => [x.name, x.errorCode]), [['dt-b', ErrorCode.NONE]]);
});

test('v6 by id and by name; unknown id is UNKNOWN_TOPIC_ID with a null name', async () => {
  await make('dt-id', 'dt-name');
  const id = b.broker.metadataCache.topic('dt-id')!.topicId;
  const nameId = b.broker.metadataCache.topic('dt-name')!.topicId;
  const r = await c.send(20, 6, {
    topics: [{ name: null, topicId: id }, { name: 'dt-name', topicId: ZERO_UUID }, { name: null, topicId: UNKNOWN_ID }],
    topicNames: [],
    timeoutMs: 1000,
  });
  const byId = new Map(r.responses.map((x) => [x.topicId, x]));
  assert.equal(byId.get(id), { name: 'dt-id', topicId: id, errorCode: ErrorCode.NONE, errorMessage: null });
  assert.equal(byId.get(nameId), { name: 'dt-name', topicId: nameId, errorCode: ErrorCode.NONE, errorMessage: null });
  assert.equal(byId.get(UNKNOWN_ID), { name: null, topicId: UNKNOWN_ID, errorCode: ErrorCode.UNKNOWN_TOPIC_ID, errorMessage: 'This server does not host this topic ID.' });
  assert.is(b.broker.metadataCache.topic('dt-id'), undefined);
  assert.is(b.broker.metadataCache.topic('dt-name'), undefined);
});

test('v6 malformed entries and duplicates answer INVALID_REQUEST with Kafka messages', async () => {
  await make('dt-dup', 'dt-both', 'dt-mapped');
  const both = b.broker.metadataCache.topic('dt-both')!.topicId;
  const mapped = b.broker.metadataCache.topic('dt-mapped')!.topicId;
  const r = await c.send(20, 6, {
    topics: [
      { name: 'dt-dup', topicId: ZERO_UUID },
      { name: 'dt-dup', topicId: ZERO_UUID },
      { name: 'dt-both', topicId: both },
      { name: null, topicId: ZERO_UUID },
      { name: null, topicId: UNKNOWN_ID },
      { name: null, topicId: UNKNOWN_ID },
      { name: null, topicId: mapped },
      { name: 'dt-mapped', topicId: ZERO_UUID },
    ],
    topicNames: [],
    timeoutMs: 1000,
  });
  const msgs = r.responses.map((x) => `${x.name}|${x.errorCode}|${x.errorMessage}`).sort();
  assert.equal(msgs, [
    `dt-both|${ErrorCode.INVALID_REQUEST}|You may not specify both topic name and topic id.`,
    `dt-dup|${ErrorCode.INVALID_REQUEST}|Duplicate topic name.`,
    // The mapped id gets no answer of its own (Kafka's ControllerApisTest.testInvalidDeleteTopicsRequest).
    `dt-mapped|${ErrorCode.INVALID_REQUEST}|The provided topic name maps to an ID that was already supplied.`,
    `null|${ErrorCode.INVALID_REQUEST}|Duplicate topic id.`,
    `null|${ErrorCode.INVALID_REQUEST}|Neither topic name nor id were specified.`,
  ].sort());
  for (const n of ['dt-dup', 'dt-both', 'dt-mapped']) assert.ok(b.broker.metadataCache.topic(n), `${n} kept`);
});

test('internal topics are refused', async () => {
  await make('__consumer_offsets');
  const r = await c.send(20, 5, { topics: [], topicNames: ['__consumer_offsets'], timeoutMs: 1000 });
  assert.is(r.responses[0].errorCode, ErrorCode.INVALID_TOPIC_EXCEPTION);
  assert.is(r.responses[0].errorMessage, 'Topic __consumer_offsets is a kafka internal topic and is not allowed to be marked for deletion.');
  assert.ok(b.broker.metadataCache.topic('__consumer_offsets'));
});

test('delete.topic.enable=false: TOPIC_DELETION_DISABLED from v3, INVALID_REQUEST before', async () => {
  const off = await startBroker({ port: 0, config: { 'delete.topic.enable': false } });
  const c2 = await WireClient.connect(off.port);
  try {
    await off.broker.createTopic({ name: 'dt-keep', numPartitions: 1, replicationFactor: 1, configs: {} });
    const r3 = await c2.send(20, 3, { topics: [], topicNames: ['dt-keep', 'dt-nope'], timeoutMs: 1000 });
    assert.equal(r3.responses.map((x) => [x.name, x.errorCode]), [['dt-keep', ErrorCode.TOPIC_DELETION_DISABLED], ['dt-nope', ErrorCode.TOPIC_DELETION_DISABLED]]);
    const r2 = await c2.send(20, 2, { topics: [], topicNames: ['dt-keep'], timeoutMs: 1000 });
    assert.equal(r2.responses.map((x) => [x.name, x.errorCode]), [['dt-keep', ErrorCode.INVALID_REQUEST]]);
    const r6 = await c2.send(20, 6, { topics: [{ name: 'dt-keep', topicId: ZERO_UUID }], topicNames: [], timeoutMs: 1000 });
    assert.is(r6.responses[0].errorCode, ErrorCode.TOPIC_DELETION_DISABLED);
    assert.ok(off.broker.metadataCache.topic('dt-keep'));
  } finally {
    c2.close();
    await off.stop();
  }
});

test.run();
