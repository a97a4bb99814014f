import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunningBroker } from '../../src/testing/start-broker.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { defaultCreatableTopic } from '../../src/protocol/generated/messages/create-topics-request.js';
import { buildRecordBatch } from '../../src/protocol/records/record.js';
import { WireClient, withBroker } from '../broker/handlers/_admin-wire.js';
import { ZERO_UUID } from '../../src/protocol/reader.js';

let b: RunningBroker;
let c: WireClient;

withBroker(test, { port: 0 }, async (nb, nc) => {
  b = nb;
  c = nc;
});

async function create(name: string, configs: Record<string, string>) {
  const t = { ...defaultCreatableTopic(), name, numPartitions: 1, replicationFactor: -1, configs: Object.entries(configs).map(([n, value]) => ({ name: n, value })) };
  return (await c.send(19, 7, { topics: [t], timeoutMs: 5000, validateOnly: false })).topics[0];
}

test('CreateTopics: the target must exist and be writable', async () => {
  const missing = await create('s1', { 'samsa.schedule.target': 'nope' });
  assert.is(missing.errorCode, ErrorCode.INVALID_CONFIG);
  assert.is(missing.errorMessage, "Invalid value nope for configuration samsa.schedule.target: topic 'nope' does not exist (create the target first)");
  assert.match((await create('s2', { 'samsa.schedule.target': 's2' })).errorMessage!, /cannot deliver to itself/);
  assert.match((await create('s3', { 'samsa.schedule.delay.ms': '10' })).errorMessage!, /needs samsa.schedule.target/);
  assert.is((await create('s-bad-tick', { 'samsa.schedule.tick.ms': '0' })).errorCode, ErrorCode.INVALID_CONFIG);
  assert.is((await create('target', {})).errorCode, ErrorCode.NONE);
  assert.is((await create('sched', { 'samsa.schedule.target': 'target', 'samsa.schedule.delay.ms': '60000' })).errorCode, ErrorCode.NONE);
});

test('AlterConfigs: target and delay are fixed, the tick may change', async () => {
  const alter = async (name: string, value: string) =>
    (await c.send(44, 1, { validateOnly: false, resources: [{ resourceType: 2, resourceName: 'sched', configs: [{ name, configOperation: 0, value }] }] })).responses[0];
  const delay = await alter('samsa.schedule.delay.ms', '5');
  assert.is(delay.errorCode, ErrorCode.INVALID_CONFIG);
  assert.match(delay.errorMessage!, /set at creation only/);
  assert.is((await alter('samsa.schedule.tick.ms', '50')).errorCode, ErrorCode.NONE);
  assert.is(b.broker.metadataCache.topic('sched')!.configs['samsa.schedule.tick.ms'], '50');
  assert.is(b.broker.metadataCache.topic('sched')!.configs['samsa.schedule.delay.ms'], '60000');
});

test('Produce: a malformed samsa-deliver-at refuses the batch with the record index, nothing stored', async () => {
  const at = (v: string) => [{ key: 'samsa-deliver-at', value: Buffer.from(v) }];
  const records = buildRecordBatch({ records: [
    { key: null, value: Buffer.from('a'), headers: at('1796000000000') },
    { key: null, value: Buffer.from('b'), headers: at('in 5 minutes') },
    { key: null, value: Buffer.from('c') },
  ] });
  const res = await c.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 'sched', topicId: ZERO_UUID, partitionData: [{ index: 0, records }] }] });
  const p = res.responses[0].partitionResponses[0];
  assert.is(p.errorCode, ErrorCode.INVALID_RECORD);
  assert.equal(p.recordErrors.map((e) => e.batchIndex), [1]);
  assert.match(p.recordErrors[0].batchIndexErrorMessage!, /samsa-deliver-at must be epoch milliseconds in decimal digits, got "in 5 minutes"/);
  assert.is(b.broker.getLog('sched', 0)!.logEndOffset, 0, 'nothing of the batch stored');
  const ok = buildRecordBatch({ records: [{ key: null, value: Buffer.from('a'), headers: at('1796000000000') }] });
  const res2 = await c.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 'sched', topicId: ZERO_UUID, partitionData: [{ index: 0, records: ok }] }] });
  assert.is(res2.responses[0].partitionResponses[0].errorCode, ErrorCode.NONE);
});

test.run();
