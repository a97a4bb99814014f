/**
 * Idempotent producer end to end: raw-socket retries (same producer id, epoch, sequence) are
 * stored once and answered with the original offset, before and after a broker restart; producer
 * ids never repeat across restarts; kafkajs with `idempotent: true`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { tmpDir } from '../support/tmp.js';
import { WireClient, fetchValues } from '../support/txn-wire.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { buildRecordBatch } from '../../src/protocol/records/record.js';
import { ZERO_UUID } from '../../src/protocol/reader.js';

const { Kafka, logLevel } = kafkajs;

function batch(pid: bigint, epoch: number, seq: number, values: string[], transactional = false): Buffer {
  return buildRecordBatch({ producerId: pid, producerEpoch: epoch, baseSequence: seq, transactional, records: values.map((v) => ({ key: null, value: Buffer.from(v) })) });
}

async function produce(c: WireClient, topic: string, records: Buffer, transactionalId: string | null = null, version = 9) {
  const r = await c.send(0, version, { transactionalId, acks: -1, timeoutMs: 5000, topicData: [{ name: topic, topicId: ZERO_UUID, partitionData: [{ index: 0, records }] }] });
  return r.responses[0].partitionResponses[0];
}

async function createTopic(c: WireClient, name: string, partitions = 1): Promise<void> {
  const r = await c.send(19, 5, { topics: [{ name, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
  assert.is(r.topics[0].errorCode, 0);
}

test('a batch sent twice is stored once and answered with the original offset, also after a restart', async () => {
  const dir = tmpDir('idem');
  let b: RunningBroker = await startBroker({ storage: { dir: dir.path } });
  try {
    let c = await WireClient.connect(b.port);
    await createTopic(c, 'idem');
    const init = await c.send(22, 4, { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false });
    assert.is(init.errorCode, 0);
    const pid = init.producerId;
    assert.is(init.producerEpoch, 0);

    await produce(c, 'idem', buildRecordBatch({ records: [{ key: null, value: Buffer.from('plain') }] }));
    const first = await produce(c, 'idem', batch(pid, 0, 0, ['a', 'b', 'c']));
    assert.is(first.errorCode, 0);
    assert.is(first.baseOffset, 1n);
    const again = await produce(c, 'idem', batch(pid, 0, 0, ['a', 'b', 'c']));
    assert.is(again.errorCode, 0);
    assert.is(again.baseOffset, 1n, 'duplicate answered with the original offset');
    const gap = await produce(c, 'idem', batch(pid, 0, 5, ['x']));
    assert.is(gap.errorCode, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    const next = await produce(c, 'idem', batch(pid, 0, 3, ['d']));
    assert.is(next.baseOffset, 4n);
    assert.equal((await fetchValues(c, 'idem')).values, ['plain', 'a', 'b', 'c', 'd']);
    c.close();

    await b.stop();
    b = await startBroker({ storage: { dir: dir.path } });
    c = await WireClient.connect(b.port);
    const retry = await produce(c, 'idem', batch(pid, 0, 3, ['d']));
    assert.is(retry.errorCode, 0);
    assert.is(retry.baseOffset, 4n, 'sequence state survived the restart');
    assert.is((await produce(c, 'idem', batch(pid, 0, 4, ['e']))).baseOffset, 5n);
    assert.is((await produce(c, 'idem', batch(pid, 0, 5, ['f']))).baseOffset, 6n);
    const init2 = await c.send(22, 4, { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false });
    assert.ok(init2.producerId > pid, `producer ids never repeat: ${init2.producerId} after ${pid}`);
    assert.equal((await fetchValues(c, 'idem')).values, ['plain', 'a', 'b', 'c', 'd', 'e', 'f']);
    c.close();
  } finally {
    await b.stop();
    await dir.cleanup();
  }
});

test('kafkajs idempotent producer: every record exactly once, in order', async () => {
  const b = await startBroker({ port: 0 });
  try {
    const kafka = new Kafka({ clientId: 'idem', brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'kj-idem', numPartitions: 2 }], waitForLeaders: true });
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    for (let i = 0; i < 10; i++) {
      const res = await producer.send({ topic: 'kj-idem', messages: [{ key: `k${i % 2}`, value: `v${i}`, partition: i % 2 }, { key: 'z', value: `w${i}`, partition: i % 2 }] });
      assert.is(res[0].errorCode, 0);
    }
    await producer.disconnect();
    const offsets = await admin.fetchTopicOffsets('kj-idem');
    await admin.disconnect();
    assert.equal(offsets.map((o) => o.high).sort(), ['10', '10']);
    const producers = b.broker.getLog('kj-idem', 0)!.producerState.activeProducers();
    assert.is(producers.length, 1);
    assert.is(producers[0].batches[producers[0].batches.length - 1].lastSeq, 9);
  } finally {
    await b.stop();
  }
});

test.run();
