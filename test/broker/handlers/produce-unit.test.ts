/**
 * The Produce handler (000) against a fake BrokerServices: what it authorizes and answers itself
 * (behaviours.md P1-P5, P21, P22; Kafka's KafkaApis.handleProduceRequest and the first checks of
 * ReplicaManager.appendRecords) and what it hands to ReplicaManager.appendRecords.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { produceHandler } from '../../../src/broker/handlers/000-produce.js';
import { DeferredResponse } from '../../../src/broker/handler.js';
import { KafkaApiError, ProtocolError } from '../../../src/errors.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { AclOperation, ResourceType } from '../../../src/protocol/acl.js';
import type { ProduceRequest } from '../../../src/protocol/generated/messages/produce-request.js';
import type { AppendParams, AppendResult, ProducePartition } from '../../../src/replication/append-records.js';
import { fakeAuthorizer, fakeMetadataCache, fakeServices, requestContext, thrown, topicRecord } from '../../support/fake-services.js';
import { ZERO_UUID } from '../../../src/protocol/reader.js';

const t = topicRecord('t', 2);
const offsets = topicRecord('__consumer_offsets', 50, { isInternal: true });

/** A 61-byte batch header: only the attributes matter to the handler (0x10 = transactional). */
function batch(transactional = false): Buffer {
  const b = Buffer.alloc(61);
  if (transactional) b[22] = 0x10;
  return b;
}

const ok = (baseOffset: number): AppendResult => ({ errorCode: ErrorCode.NONE, errorMessage: null, baseOffset, logAppendTimeMs: -1, logStartOffset: 0, recordErrors: [] });

function setup(opts: { answer?: (p: ProducePartition, i: number) => AppendResult; authorizer?: unknown; waits?: Promise<void>[]; quotas?: unknown; verification?: boolean } = {}) {
  const calls: { params: AppendParams; parts: ProducePartition[] }[] = [];
  const verified: unknown[][] = [];
  const throttled: unknown[][] = [];
  const broker = fakeServices({
    authorizer: opts.authorizer ?? null,
    metadataCache: fakeMetadataCache([t, offsets]),
    rawConfig: (opts.verification === false ? { 'transaction.partition.verification.enable': false } : {}) as never,
    flushOnAcksAll: true,
    replicaManager: {
      appendRecords: async (params: AppendParams, parts: ProducePartition[]) => {
        calls.push({ params, parts });
        return { results: parts.map(opts.answer ?? ((_p, i) => ok(10 * i))), waits: opts.waits ?? [] };
      },
    } as never,
    addPartitionsToTxn: { addOrVerify: async (...args: unknown[]) => (verified.push(args), ErrorCode.NONE) } as never,
    quotas: (opts.quotas ?? { active: false, recordAndThrottle: (...args: unknown[]) => (throttled.push(args), 0) }) as never,
    partitionState: () => ({ leader: 2, leaderEpoch: 5 }) as never,
    brokerEndpoint: (id: number) => ({ host: `b${id}`, port: 9000 + id, rack: null }),
  });
  return { broker, calls, verified, throttled };
}

function request(acks: number, topics: [string, number[]][], over: Partial<ProduceRequest> = {}): ProduceRequest {
  return { transactionalId: null, acks, timeoutMs: 1500, topicData: topics.map(([name, ps]) => ({ name, topicId: ZERO_UUID, partitionData: ps.map((index) => ({ index, records: batch() })) })), ...over };
}

const codes = (r: any) => r.responses.map((t: any) => [t.name, t.partitionResponses.map((p: any) => [p.index, p.errorCode, Number(p.baseOffset)])]);

test('acks=-1 and acks=1: known partitions go to appendRecords with the request\'s acks, timeout, version; unknown topics and partitions are answered here (P1, P2)', async () => {
  for (const acks of [-1, 1]) {
    const { broker, calls } = setup();
    const r = await produceHandler.handle(requestContext(broker, 0, 9), request(acks, [['t', [1, 2, -1]], ['missing', [0]]])) as any;
    assert.is(calls.length, 1);
    assert.equal(calls[0].parts.map((p) => [p.topic.name, p.partition]), [['t', 1]]);
    assert.equal({ ...calls[0].params, verify: calls[0].params.verify, transactionV2: calls[0].params.transactionV2 }, { acks, timeoutMs: 1500, apiVersion: 9, durable: true, verify: null, transactionV2: false });
    assert.equal(codes(r), [['t', [[1, 0, 0], [2, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1], [-1, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1]]], ['missing', [[0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1]]]]);
    assert.equal([r.responses[1].partitionResponses[0].logStartOffset, r.throttleTimeMs, r.nodeEndpoints], [-1n, 0, []]);
  }
});

test('acks=0: no response at all when every partition succeeds; the connection is closed when one failed (P4, P5)', async () => {
  const { broker } = setup();
  assert.is(await produceHandler.handle(requestContext(broker, 0, 9), request(0, [['t', [0]]])), undefined);
  assert.instance(await thrown(() => produceHandler.handle(requestContext(broker, 0, 9), request(0, [['t', [0]], ['missing', [0]]]))), ProtocolError);
  const failing = setup({ answer: () => ({ ...ok(-1), errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER }) });
  assert.instance(await thrown(() => produceHandler.handle(requestContext(failing.broker, 0, 9), request(0, [['t', [0]]]))), ProtocolError);
});

test('acks outside {-1, 0, 1}: INVALID_REQUIRED_ACKS for the partitions that passed the topic checks, internal topics included (P3); nothing is appended', async () => {
  const { broker, calls } = setup();
  const r = await produceHandler.handle(requestContext(broker, 0, 9), request(2, [['t', [0, 7]], ['__consumer_offsets', [0]]])) as any;
  assert.equal(codes(r), [['t', [[0, ErrorCode.INVALID_REQUIRED_ACKS, -1], [7, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1]]], ['__consumer_offsets', [[0, ErrorCode.INVALID_REQUIRED_ACKS, -1]]]]);
  assert.equal(calls[0].parts, []);
});

test('internal topics: INVALID_TOPIC_EXCEPTION for a normal client, appended for __admin_client (P21)', async () => {
  const { broker, calls } = setup();
  const r = await produceHandler.handle(requestContext(broker, 0, 9), request(1, [['__consumer_offsets', [3]]])) as any;
  assert.equal(codes(r), [['__consumer_offsets', [[3, ErrorCode.INVALID_TOPIC_EXCEPTION, -1]]]]);
  await produceHandler.handle(requestContext(broker, 0, 9, { clientId: '__admin_client' }), request(1, [['__consumer_offsets', [3]]]));
  assert.equal(calls[1].parts.map((p) => [p.topic.name, p.partition]), [['__consumer_offsets', 3]]);
});

test('WRITE on each topic: TOPIC_AUTHORIZATION_FAILED, checked before existence (an unknown topic too)', async () => {
  const authorizer = fakeAuthorizer((c) => c.name === 't');
  const { broker, calls } = setup({ authorizer });
  const r = await produceHandler.handle(requestContext(broker, 0, 9), request(-1, [['t', [0]], ['secret', [0]], ['missing', [0]]])) as any;
  assert.equal(codes(r), [['t', [[0, 0, 0]]], ['secret', [[0, ErrorCode.TOPIC_AUTHORIZATION_FAILED, -1]]], ['missing', [[0, ErrorCode.TOPIC_AUTHORIZATION_FAILED, -1]]]]);
  assert.equal(calls[0].parts.map((p) => p.topic.name), ['t']);
  assert.ok(authorizer.checks.every((c) => c.op === AclOperation.WRITE && c.resourceType === ResourceType.TOPIC));
});

test('a transactional batch without a transactional_id fails the whole request with TRANSACTIONAL_ID_AUTHORIZATION_FAILED, even without an authorizer (P22)', async () => {
  const { broker, calls } = setup();
  const req = request(-1, [['t', [0, 1]]]);
  req.topicData[0].partitionData[1].records = batch(true);
  const err = await thrown(() => produceHandler.handle(requestContext(broker, 0, 9), req));
  assert.instance(err, KafkaApiError);
  assert.is((err as KafkaApiError).errorCode, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  assert.is(calls.length, 0);
  // The whole-request answer: every partition carries the code and -1 offsets.
  const e = produceHandler.errorResponse(req, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, requestContext(broker, 0, 9));
  assert.equal(codes(e), [['t', [[0, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, -1], [1, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, -1]]]]);
});

test('a transactional id needs WRITE on it; when allowed, appends verify through the transaction coordinator (unless verification is off)', async () => {
  const req = request(-1, [['t', [0]]], { transactionalId: 'tx' });
  req.topicData[0].partitionData[0].records = batch(true);
  const denied = setup({ authorizer: fakeAuthorizer((c) => c.resourceType === ResourceType.TOPIC) });
  const err = await thrown(() => produceHandler.handle(requestContext(denied.broker, 0, 9), req));
  assert.is((err as KafkaApiError).errorCode, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  const allowed = setup({ authorizer: fakeAuthorizer(() => true) });
  await produceHandler.handle(requestContext(allowed.broker, 0, 9), req);
  const verify = allowed.calls[0].params.verify!;
  assert.is(await verify('t', 0, 42, 3), ErrorCode.NONE);
  assert.equal(allowed.verified, [['tx', 42, 3, { topic: 't', partition: 0 }, 'verify']]);
  const off = setup({ verification: false });
  await produceHandler.handle(requestContext(off.broker, 0, 9), req);
  assert.is(off.calls[0].params.verify, null);
});

test('NOT_LEADER_OR_FOLLOWER from another leader names it from v10 (KIP-951), not before', async () => {
  const answer = (): AppendResult => ({ ...ok(-1), errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, otherLeader: true });
  const { broker } = setup({ answer });
  const v9 = await produceHandler.handle(requestContext(broker, 0, 9), request(1, [['t', [0]]])) as any;
  assert.equal([v9.responses[0].partitionResponses[0].currentLeader, v9.nodeEndpoints], [null, []]);
  const v10 = await produceHandler.handle(requestContext(broker, 0, 10), request(1, [['t', [0]]])) as any;
  assert.equal(v10.responses[0].partitionResponses[0].currentLeader, { leaderId: 2, leaderEpoch: 5 });
  assert.equal(v10.nodeEndpoints, [{ nodeId: 2, host: 'b2', port: 9002, rack: null }]);
});

test('the reply waits for what appendRecords says (acks=-1, fsync): a DeferredResponse', async () => {
  let release!: () => void;
  const { broker } = setup({ waits: [new Promise<void>((r) => (release = r))] });
  const r = await produceHandler.handle(requestContext(broker, 0, 9), request(-1, [['t', [0]]]));
  assert.instance(r, DeferredResponse);
  release();
  assert.equal(codes(await (r as DeferredResponse<any>).promise), [['t', [[0, 0, 0]]]]);
});

test('producer_byte_rate: the request\'s record bytes are charged and the throttle time answered', async () => {
  const charged: unknown[][] = [];
  const quotas = { active: true, recordAndThrottle: (...args: unknown[]) => (charged.push(args), 250) };
  const { broker } = setup({ quotas });
  const r = await produceHandler.handle(requestContext(broker, 0, 9, { principal: 'User:p', clientId: 'c', connectionId: 7 }), request(1, [['t', [0, 1]]])) as any;
  assert.equal(charged, [['producer_byte_rate', 'User:p', 'c', 7, 122]]);
  assert.is(r.throttleTimeMs, 250);
});

test.run();
