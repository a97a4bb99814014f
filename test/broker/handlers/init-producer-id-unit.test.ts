/**
 * InitProducerId (022) against a fake BrokerServices: ACLs and the producer id/epoch checks the
 * handler makes (Kafka's KafkaApis.handleInitProducerIdRequest; behaviours.md IP8), and what it
 * hands to TxnCoordinator.initProducerId (IP1-IP7, IP9 live there).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initProducerIdHandler } from '../../../src/broker/handlers/022-init-producer-id.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { AclOperation, ResourceType } from '../../../src/protocol/acl.js';
import type { InitProducerIdRequest } from '../../../src/protocol/generated/messages/init-producer-id-request.js';
import { fakeAuthorizer, fakeServices, requestContext } from '../../support/fake-services.js';

function setup(authorizer: unknown = null, answer: { errorCode: number; producerId: number; producerEpoch: number } = { errorCode: ErrorCode.NONE, producerId: 4000, producerEpoch: 2 }) {
  const calls: unknown[][] = [];
  const broker = fakeServices({
    authorizer,
    txnCoordinator: { initProducerId: async (...args: unknown[]) => (calls.push(args), answer) } as never,
  });
  return { broker, calls };
}

const request = (over: Partial<InitProducerIdRequest> = {}): InitProducerIdRequest => ({ transactionalId: 'tx', transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false, ...over });
const init = (broker: ReturnType<typeof setup>['broker'], v: number, req: InitProducerIdRequest) => initProducerIdHandler.handle(requestContext(broker, 22, v), req) as Promise<any>;
const answer = (r: any) => [r.errorCode, Number(r.producerId), r.producerEpoch, r.throttleTimeMs];

test('the coordinator gets the transactional id and timeout; no expected producer when id and epoch are -1; its answer is returned', async () => {
  const { broker, calls } = setup();
  assert.equal(answer(await init(broker, 4, request())), [0, 4000, 2, 0]);
  assert.equal(await init(broker, 4, request({ transactionalId: null })).then(answer), [0, 4000, 2, 0]);
  assert.equal(calls, [['tx', 60_000, null, ErrorCode.PRODUCER_FENCED], [null, 60_000, null, ErrorCode.PRODUCER_FENCED]]);
});

test('v3+ (KIP-360): a given producer id and epoch are what the coordinator must match; a mismatch is PRODUCER_FENCED from v4, INVALID_PRODUCER_EPOCH on v3 (IP8)', async () => {
  const { broker, calls } = setup();
  await init(broker, 3, request({ producerId: 4000n, producerEpoch: 1 }));
  await init(broker, 5, request({ producerId: 4000n, producerEpoch: 1 }));
  assert.equal(calls.map((c) => [c[2], c[3]]), [[{ producerId: 4000, epoch: 1 }, ErrorCode.INVALID_PRODUCER_EPOCH], [{ producerId: 4000, epoch: 1 }, ErrorCode.PRODUCER_FENCED]]);
});

test('only one of producer id and epoch set to -1: INVALID_REQUEST with -1/-1, the coordinator not asked (IP8)', async () => {
  const { broker, calls } = setup();
  assert.equal(answer(await init(broker, 4, request({ producerId: 4000n, producerEpoch: -1 }))), [ErrorCode.INVALID_REQUEST, -1, -1, 0]);
  assert.equal(answer(await init(broker, 4, request({ producerId: -1n, producerEpoch: 3 }))), [ErrorCode.INVALID_REQUEST, -1, -1, 0]);
  assert.equal(calls, []);
});

test('the coordinator\'s errors are answered as they come (e.g. CONCURRENT_TRANSACTIONS with -1/-1)', async () => {
  const { broker } = setup(null, { errorCode: ErrorCode.CONCURRENT_TRANSACTIONS, producerId: -1, producerEpoch: -1 });
  assert.equal(answer(await init(broker, 4, request())), [ErrorCode.CONCURRENT_TRANSACTIONS, -1, -1, 0]);
});

test('a transactional id needs WRITE on it, else TRANSACTIONAL_ID_AUTHORIZATION_FAILED', async () => {
  const authorizer = fakeAuthorizer((c) => c.resourceType === ResourceType.TRANSACTIONAL_ID && c.name === 'mine');
  const { broker, calls } = setup(authorizer);
  assert.equal(answer(await init(broker, 4, request())), [ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, -1, -1, 0]);
  assert.equal(answer(await init(broker, 4, request({ transactionalId: 'mine' }))), [0, 4000, 2, 0]);
  assert.equal(authorizer.checks.map((c) => [c.op, c.name]), [[AclOperation.WRITE, 'tx'], [AclOperation.WRITE, 'mine']]);
  assert.is(calls.length, 1);
});

test('an idempotent producer needs IDEMPOTENT_WRITE on the cluster or WRITE on some topic, else CLUSTER_AUTHORIZATION_FAILED', async () => {
  const none = setup(fakeAuthorizer(() => false));
  assert.equal(answer(await init(none.broker, 4, request({ transactionalId: null }))), [ErrorCode.CLUSTER_AUTHORIZATION_FAILED, -1, -1, 0]);
  const cluster = setup(fakeAuthorizer((c) => c.resourceType === ResourceType.CLUSTER && c.op === AclOperation.IDEMPOTENT_WRITE));
  assert.is((await init(cluster.broker, 4, request({ transactionalId: null }))).errorCode, 0);
  const anyTopic = setup(fakeAuthorizer(() => false, (op, type) => op === AclOperation.WRITE && type === ResourceType.TOPIC));
  assert.is((await init(anyTopic.broker, 4, request({ transactionalId: null }))).errorCode, 0);
});

test.run();
