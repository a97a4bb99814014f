/**
 * /metrics against a real client: the exposition parses with a strict Prometheus text parser;
 * after kafkajs produced and consumed, the per-topic counters rose by exactly what it sent and
 * read, Produce requests by exactly the sends, bytes in equal the log's size; a group's lag per
 * partition equals high watermark minus committed offset; connections, latency summaries,
 * process and event-loop figures are present; a fetch session shows in the FetchSessionCache gauges.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { parsePrometheusText, value, valueOr0, type Family } from '../support/prom-text.js';
import { ExpositionWriter, Histogram } from '../../src/http/metrics/registry.js';
import { recordsInBatches } from '../../src/http/metrics/broker-metrics.js';
import { buildRecordBatch } from '../../src/protocol/records/record.js';

const { Kafka, logLevel } = kafkajs;
const TOPIC = 'metrics-t';
const GROUP = 'metrics-g';

let b: RunningBroker;

async function scrape(): Promise<Map<string, Family>> {
  const res = await fetch(`${b.httpUrl}/metrics`);
  assert.is(res.status, 200);
  return parsePrometheusText(await res.text());
}

test.before(async () => {
  b = await startBroker({ http: true, 'num.partitions': 2, 'offsets.topic.num.partitions': 1, 'group.initial.rebalance.delay.ms': 0 });
});

test.after(async () => {
  await b?.stop();
});

test('the strict parser refuses what the format forbids', () => {
  assert.throws(() => parsePrometheusText('a 1'), /newline/);
  assert.throws(() => parsePrometheusText('a 1\n'), /before any TYPE/);
  assert.throws(() => parsePrometheusText('# TYPE a gauge\na{x="\\q"} 1\n'), /escape/);
  assert.throws(() => parsePrometheusText('# TYPE a gauge\na 1\na 2\n'), /duplicate/);
  assert.throws(() => parsePrometheusText('# TYPE a gauge\n# TYPE b gauge\na 1\n'), /outside its family/);
  assert.throws(() => parsePrometheusText('# TYPE a gauge\na one\n'), /bad value/);
  const ok = parsePrometheusText('# HELP a x\n# TYPE a gauge\na{l="q\\"\\n\\\\"} +Inf\n');
  assert.is(ok.get('a')!.samples[0].labels.l, 'q"\n\\');
});

test('the writer escapes label values and refuses a family declared twice', () => {
  const w = new ExpositionWriter();
  w.family('x_total', 'counter', 'h').sample([['topic', 'a"b\\c\nd']], 3);
  assert.throws(() => w.family('x_total', 'counter', 'h'));
  const fams = parsePrometheusText(w.text());
  assert.is(value(fams, 'x_total', { topic: 'a"b\\c\nd' }), 3);
});

test('histogram quantiles fall in the bucket holding them', () => {
  const h = new Histogram();
  for (let i = 0; i < 99; i++) h.observe(0.3);
  h.observe(700);
  assert.ok(h.quantile(0.5) > 0.25 && h.quantile(0.5) <= 0.5, String(h.quantile(0.5)));
  assert.ok(h.quantile(0.999) > 500 && h.quantile(0.999) <= 1000, String(h.quantile(0.999)));
  assert.is(h.count, 100);
});

test('recordsInBatches counts the records of complete batches only, across chunks', () => {
  const one = buildRecordBatch({ records: [{ key: null, value: Buffer.from('a') }, { key: null, value: Buffer.from('b') }] });
  const two = buildRecordBatch({ records: [{ key: null, value: Buffer.from('c') }] });
  const all = Buffer.concat([one, two]);
  assert.is(recordsInBatches(all), 3);
  assert.is(recordsInBatches([all.subarray(0, 30), all.subarray(30, 70), all.subarray(70)]), 3);
  assert.is(recordsInBatches(all.subarray(0, all.length - 1)), 2, 'a partial last batch is not counted');
  assert.is(recordsInBatches(null), 0);
});

test('counters rise by exactly what kafkajs produced and consumed; lag is HW minus committed', async () => {
  const kafka = new Kafka({ clientId: 'metrics-test', brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 2 }], waitForLeaders: true });
  const before = await scrape();
  const producer = kafka.producer();
  await producer.connect();
  const sends = 5;
  let produced = 0;
  for (let i = 0; i < sends; i++) {
    const messages = Array.from({ length: 3 + i }, (_, k) => ({ key: `k${k}`, value: `value-${i}-${k}`, partition: k % 2 }));
    produced += messages.length;
    await producer.send({ topic: TOPIC, messages, acks: -1 });
  }
  const afterProduce = await scrape();
  const messagesIn = (f: Map<string, Family>) => valueOr0(f, 'kafka_server_brokertopicmetrics_messagesin_total', { topic: TOPIC });
  assert.is(messagesIn(afterProduce) - messagesIn(before), produced, 'messages in = records kafkajs sent');
  const produceRequests = (f: Map<string, Family>) => f.get('kafka_network_requestmetrics_requests_total')!.samples
    .filter((s) => s.labels.request === 'Produce').reduce((n, s) => n + s.value, 0);
  assert.is(produceRequests(afterProduce) - produceRequests(before), sends, 'one Produce request per send()');
  const logBytes = value(afterProduce, 'kafka_log_log_size', { topic: TOPIC, partition: '0' }) + value(afterProduce, 'kafka_log_log_size', { topic: TOPIC, partition: '1' });
  assert.is(value(afterProduce, 'kafka_server_brokertopicmetrics_bytesin_total', { topic: TOPIC }), logBytes, 'bytes in = bytes in the log');
  const leo = value(afterProduce, 'kafka_log_log_logendoffset', { topic: TOPIC, partition: '0' }) + value(afterProduce, 'kafka_log_log_logendoffset', { topic: TOPIC, partition: '1' });
  assert.is(leo, produced);
  assert.ok(value(afterProduce, 'kafka_network_requestmetrics_totaltimems', { request: 'Produce' }, 'kafka_network_requestmetrics_totaltimems_count') >= sends);
  // ResponseSendTimeMs: every Produce answer was handed to the kernel (counted in its write callback).
  assert.ok(value(afterProduce, 'kafka_network_requestmetrics_responsesendtimems', { request: 'Produce' }, 'kafka_network_requestmetrics_responsesendtimems_count') >= sends);

  const consumer = kafka.consumer({ groupId: GROUP, sessionTimeout: 10_000, heartbeatInterval: 500 });
  await consumer.connect();
  await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
  let consumed = 0;
  let resolveAll!: () => void;
  const all = new Promise<void>((r) => { resolveAll = r; });
  await consumer.run({ autoCommit: true, autoCommitThreshold: 1, eachMessage: async () => { if (++consumed === produced) resolveAll(); } });
  await all;
  await consumer.disconnect();
  const afterConsume = await scrape();
  assert.is(value(afterConsume, 'kafka_server_brokertopicmetrics_messagesout_total', { topic: TOPIC }), produced, 'records out = records kafkajs read');
  assert.is(value(afterConsume, 'kafka_server_brokertopicmetrics_bytesout_total', { topic: TOPIC }), logBytes, 'bytes out = the log, read once');
  for (const p of ['0', '1']) assert.is(value(afterConsume, 'kafka_consumergroup_lag', { consumergroup: GROUP, topic: TOPIC, partition: p }), 0);

  const more = [{ partition: 0, value: 'x' }, { partition: 0, value: 'y' }, { partition: 1, value: 'z' }];
  await producer.send({ topic: TOPIC, messages: more });
  const lagged = await scrape();
  for (const [p, extra] of [['0', 2], ['1', 1]] as const) {
    const hw = value(lagged, 'kafka_log_log_highwatermark', { topic: TOPIC, partition: p });
    const committed = value(lagged, 'kafka_consumergroup_current_offset', { consumergroup: GROUP, topic: TOPIC, partition: p });
    const lag = value(lagged, 'kafka_consumergroup_lag', { consumergroup: GROUP, topic: TOPIC, partition: p });
    assert.is(lag, hw - committed, `partition ${p}: lag = HW - committed`);
    assert.is(lag, extra, `partition ${p}: lag = the records produced after the group stopped`);
  }
  assert.is(value(lagged, 'kafka_consumergroup_lag_sum', { consumergroup: GROUP, topic: TOPIC }), 3);
  assert.is(value(lagged, 'kafka_consumergroup_members', { consumergroup: GROUP }), 0);
  assert.is(value(lagged, 'kafka_coordinator_group_groupmetadatamanager_numgroupsempty'), 1);
  await producer.disconnect();
  await admin.disconnect();
});

test('error codes inside responses are counted per API (errorCounts), NONE included', async () => {
  const kafka = new Kafka({ clientId: 'metrics-errors', brokers: [b.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 } });
  const admin = kafka.admin();
  await admin.connect();
  const labels = (error: string) => ({ request: 'CreateTopics', error });
  const before = await scrape();
  await admin.createTopics({ topics: [{ topic: 'metrics-dup', numPartitions: 1 }] });
  assert.is(await admin.createTopics({ topics: [{ topic: 'metrics-dup', numPartitions: 1 }] }), false);
  await admin.disconnect();
  const after = await scrape();
  const delta = (error: string) => valueOr0(after, 'kafka_network_requestmetrics_errors_total', labels(error)) - valueOr0(before, 'kafka_network_requestmetrics_errors_total', labels(error));
  assert.is(delta('TOPIC_ALREADY_EXISTS'), 1, 'the second creation answered TOPIC_ALREADY_EXISTS for its topic');
  assert.is(delta('NONE'), 1, 'the first one NONE');
});

test('a long-polling fetch is in the Fetch purgatory while it waits', async () => {
  const kafka = new Kafka({ clientId: 'metrics-poll', brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'metrics-idle', numPartitions: 1 }], waitForLeaders: true });
  await admin.disconnect();
  const consumer = kafka.consumer({ groupId: 'metrics-poll-g', maxWaitTimeInMs: 2000 });
  await consumer.connect();
  await consumer.subscribe({ topic: 'metrics-idle', fromBeginning: true });
  await consumer.run({ eachMessage: async () => undefined });
  try {
    let waiting = 0;
    for (let i = 0; i < 100 && waiting === 0; i++) {
      waiting = value(await scrape(), 'kafka_server_delayedoperationpurgatory_purgatorysize', { delayedOperation: 'Fetch' });
      if (waiting === 0) await new Promise((r) => setTimeout(r, 100));
    }
    assert.is(waiting, 1, 'the consumer\'s fetch waits for data');
  } finally {
    await consumer.disconnect();
  }
});

test('connections, partitions, purgatories and process figures are exported', async () => {
  const kafka = new Kafka({ clientId: 'metrics-conn', brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.listTopics();
  const f = await scrape();
  assert.ok(value(f, 'kafka_server_socket_server_metrics_connection_count', { listener: 'PLAINTEXT', networkProcessor: '0' }) >= 1);
  assert.ok(value(f, 'kafka_server_socket_server_metrics_connection_creation_total', { listener: 'PLAINTEXT', networkProcessor: '0' }) >= 1);
  await admin.disconnect();
  assert.is(value(f, 'kafka_server_replicamanager_underreplicatedpartitions'), 0);
  assert.is(value(f, 'kafka_controller_kafkacontroller_offlinepartitionscount'), 0);
  assert.is(value(f, 'kafka_controller_kafkacontroller_activecontrollercount'), 1);
  assert.is(value(f, 'kafka_server_replicamanager_isrshrinks_total'), 0);
  assert.is(value(f, 'kafka_server_delayedoperationpurgatory_purgatorysize', { delayedOperation: 'Produce' }), 0);
  assert.is(value(f, 'kafka_log_log_numlogsegments', { topic: TOPIC, partition: '0' }), 1);
  assert.ok(value(f, 'process_resident_memory_bytes') > 0);
  assert.ok(value(f, 'process_cpu_seconds_total') > 0);
  assert.ok(value(f, 'nodejs_eventloop_lag_max_seconds') > 0, 'the event-loop monitor runs from the listener\'s start');
  assert.ok(value(f, 'nodejs_eventloop_lag_seconds') > 0);
  assert.ok(value(f, 'kafka_network_requestmetrics_errors_total', { request: 'Produce', error: 'NONE' }) > 0);
  assert.is(f.get('kafka_network_requestmetrics_totaltimems')!.type, 'summary');
});

test('fetch sessions (KIP-227): Kafka\'s FetchSessionCache gauges and eviction meter', async () => {
  const sessions = b.broker.replicaManager.fetchSessions;
  const before = sessions.size;
  // A full fetch with epoch 0 over both partitions of the topic: one session of two partitions.
  const { KafkaClient } = await import('../../src/cli/client.js');
  const client = await KafkaClient.connect({ bootstrap: b.bootstrap });
  try {
    const res = await client.send(1, 12, {
      clusterId: null, replicaId: -1, replicaState: null, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: 0, rackId: '', forgottenTopicsData: [],
      topics: [{ topic: TOPIC, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [0, 1].map((partition) => ({ partition, currentLeaderEpoch: -1, fetchOffset: 0n, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1024, replicaDirectoryId: 'AAAAAAAAAAAAAAAAAAAAAA' })) }],
    } as never) as { sessionId: number };
    assert.ok(res.sessionId > 0);
  } finally {
    client.close();
  }
  assert.is(sessions.size, before + 1);
  const f = await scrape();
  assert.is(value(f, 'kafka_server_fetchsessioncache_numincrementalfetchsessions'), sessions.size);
  assert.is(value(f, 'kafka_server_fetchsessioncache_numincrementalfetchpartitionscached'), sessions.totalPartitions);
  assert.is(value(f, 'kafka_server_fetchsessioncache_incrementalfetchsessionevictions_total'), sessions.evictions);
  assert.is(f.get('kafka_server_fetchsessioncache_incrementalfetchsessionevictions_total')!.type, 'counter');
});

test('share sessions (KIP-932): Kafka\'s ShareSessionCache gauges and eviction meter', async () => {
  const mgr = b.broker.sharePartitions;
  const topicId = b.broker.metadataCache.topic(TOPIC)!.topicId;
  const before = { sessions: mgr.sessions.size, evictions: mgr.sessionEvictions };
  const { KafkaClient } = await import('../../src/cli/client.js');
  const client = await KafkaClient.connect({ bootstrap: b.bootstrap });
  try {
    // Epoch 0 opens a session of both partitions (maxWaitMs 0: answered at once).
    const res = await client.send(78, 1, {
      groupId: 'metrics-share', memberId: 'AAAAAAAAAAAAAAAAAAAAAQ', shareSessionEpoch: 0, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, maxRecords: 10, batchSize: 10, shareAcquireMode: 0, isRenewAck: false,
      topics: [{ topicId, partitions: [0, 1].map((partitionIndex) => ({ partitionIndex, partitionMaxBytes: 0, acknowledgementBatches: [] })) }], forgottenTopicsData: [],
    } as never) as { errorCode: number };
    assert.is(res.errorCode, 0);
    const f = await scrape();
    assert.is(value(f, 'kafka_server_sharesessioncache_sharesessionscount'), before.sessions + 1);
    assert.is(value(f, 'kafka_server_sharesessioncache_sharepartitionscount'), mgr.sessionPartitions);
    assert.ok(mgr.sessionPartitions >= 2);
  } finally {
    client.close();
  }
  // Its connection closing ends it: an eviction, as Kafka's disconnect listener counts it.
  for (let i = 0; i < 100 && mgr.sessionEvictions === before.evictions; i++) await new Promise((r) => setTimeout(r, 20));
  const f = await scrape();
  assert.is(value(f, 'kafka_server_sharesessioncache_sharesessionscount'), before.sessions);
  assert.is(value(f, 'kafka_server_sharesessioncache_sharesessionevictions_total'), before.evictions + 1);
  assert.is(f.get('kafka_server_sharesessioncache_sharesessionevictions_total')!.type, 'counter');
});

test.run();
