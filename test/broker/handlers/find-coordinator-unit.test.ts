/**
 * FindCoordinator (010) against a fake BrokerServices: the coordinator of a key is the leader of
 * its internal-topic partition (behaviours.md FC1-FC6; Kafka's KafkaApis.getCoordinator), single
 * key (v0-3) and batched keys (v4+), key types, ACLs, COORDINATOR_NOT_AVAILABLE.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { findCoordinatorHandler } from '../../../src/broker/handlers/010-find-coordinator.js';
import { partitionForGroup } from '../../../src/coordinator/group/group-coordinator.js';
import { partitionForTxnId } from '../../../src/coordinator/txn/txn-coordinator.js';
import { partitionForShareKey } from '../../../src/coordinator/share-state/share-coordinator.js';
import { KafkaApiError } from '../../../src/errors.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { AclOperation, ResourceType } from '../../../src/protocol/acl.js';
import type { TopicRecord } from '../../../src/cluster/metadata-store.js';
import { fakeAuthorizer, fakeMetadataCache, fakeServices, requestContext, thrown, topicRecord } from '../../support/fake-services.js';

const offsets = topicRecord('__consumer_offsets', 50, { isInternal: true });
const txnState = topicRecord('__transaction_state', 50, { isInternal: true });
const shareState = topicRecord('__share_group_state', 50, { isInternal: true });
const INVALID_REQUEST_MESSAGE = 'This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details.';

/** Partition p of every internal topic is led by broker 1 + p % 3; broker 3 is not registered. */
function setup(opts: { topics?: TopicRecord[]; authorizer?: unknown } = {}) {
  return fakeServices({
    nodeId: 1, authorizer: opts.authorizer ?? null,
    metadataCache: fakeMetadataCache(opts.topics ?? [offsets, txnState, shareState]),
    partitionState: (_id: string, p: number) => ({ leader: 1 + (p % 3), leaderEpoch: 0 }) as never,
    isRegisteredBroker: (id: number) => id !== 3,
    brokerEndpoint: (id: number, listener: string) => ({ host: `${listener.toLowerCase()}-b${id}`, port: 9000 + id, rack: null }),
    endpointFor: (listener: string) => ({ host: `${listener.toLowerCase()}-self`, port: 9092 }),
  });
}

/** Keys whose partition (of 50) is led by the broker asked for. */
function keyLedBy(broker: number, partitionFor: (k: string, n: number) => number, key = (i: number) => `k${i}`): string {
  for (let i = 0; ; i++) if (1 + (partitionFor(key(i), 50) % 3) === broker) return key(i);
}

const single = (broker: ReturnType<typeof setup>, v: number, keyType: number, key: string, over = {}) =>
  findCoordinatorHandler.handle(requestContext(broker, 10, v, over), { key, keyType, coordinatorKeys: [] }) as any;
const batched = (broker: ReturnType<typeof setup>, v: number, keyType: number, keys: string[], over = {}) =>
  findCoordinatorHandler.handle(requestContext(broker, 10, v, over), { key: '', keyType, coordinatorKeys: keys }) as any;
const node = (r: any) => [r.errorCode, r.nodeId, r.host, r.port, r.errorMessage];

test('v0-3: the leader of the group\'s __consumer_offsets partition, on the request\'s listener; message "NONE" (FC5)', () => {
  const key = keyLedBy(2, partitionForGroup);
  assert.equal(node(single(setup(), 3, 0, key, { listenerName: 'INTERNAL' })), [ErrorCode.NONE, 2, 'internal-b2', 9002, 'NONE']);
  assert.equal(single(setup(), 3, 0, key).coordinators, []);
});

test('key type 1: the leader of the transactional id\'s __transaction_state partition', () => {
  const key = keyLedBy(2, partitionForTxnId);
  assert.equal(node(single(setup(), 2, 1, key)), [ErrorCode.NONE, 2, 'plaintext-b2', 9002, 'NONE']);
});

test('v4+: every key answered on its own, message ""; the top-level fields stay at their defaults', () => {
  const live = keyLedBy(2, partitionForGroup);
  const dead = keyLedBy(3, partitionForGroup);
  const r = batched(setup(), 4, 0, [live, dead]);
  assert.equal([r.errorCode, r.nodeId], [0, 0]);
  assert.equal(r.coordinators.map((c: any) => [c.key, c.errorCode, c.nodeId, c.host, c.port, c.errorMessage]), [
    [live, ErrorCode.NONE, 2, 'plaintext-b2', 9002, ''],
    [dead, ErrorCode.COORDINATOR_NOT_AVAILABLE, -1, '', -1, ''],
  ]);
});

test('a partition without a live leader: COORDINATOR_NOT_AVAILABLE, node -1; v1-3 carry the error\'s message (FC4)', () => {
  const dead = keyLedBy(3, partitionForGroup);
  assert.equal(node(single(setup(), 3, 0, dead)), [ErrorCode.COORDINATOR_NOT_AVAILABLE, -1, '', -1, 'The coordinator is not available.']);
});

test('before the internal topic exists this broker names itself (Samsa: its coordinator creates the topic on first use; Kafka answers 15 while it auto-creates, FC2)', () => {
  assert.equal(node(single(setup({ topics: [] }), 3, 1, 'tx')), [ErrorCode.NONE, 1, 'plaintext-self', 9092, 'NONE']);
});

test('an unknown key type is INVALID_REQUEST: top-level before v4, per key from v4; share keys before v6 too (FC1, FC6)', () => {
  assert.equal(node(single(setup(), 3, 5, 'x')), [ErrorCode.INVALID_REQUEST, -1, '', -1, INVALID_REQUEST_MESSAGE]);
  assert.equal(batched(setup(), 4, 5, ['x', 'y']).coordinators.map((c: any) => [c.key, c.errorCode]), [['x', 42], ['y', 42]]);
  assert.equal(batched(setup(), 5, 2, ['g:AAAAAAAAAAAAAAAAAAAAAQ:0']).coordinators.map((c: any) => [c.errorCode, c.errorMessage]), [[ErrorCode.INVALID_REQUEST, '']]);
});

test('ACLs: DESCRIBE on the group or the transactional id, else GROUP_ / TRANSACTIONAL_ID_AUTHORIZATION_FAILED', () => {
  const mine = keyLedBy(2, partitionForGroup, (i) => `mine${i}`);
  const authorizer = fakeAuthorizer((c) => c.name === mine);
  const broker = setup({ authorizer });
  assert.equal(node(single(broker, 3, 0, 'theirs')), [ErrorCode.GROUP_AUTHORIZATION_FAILED, -1, '', -1, 'Group authorization failed.']);
  assert.equal(node(single(broker, 3, 1, 'theirs')), [ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, -1, '', -1, 'Transactional Id authorization failed.']);
  assert.equal(batched(broker, 4, 0, [mine, 'theirs']).coordinators.map((c: any) => [c.key, c.errorCode, c.errorMessage]), [[mine, 0, ''], ['theirs', ErrorCode.GROUP_AUTHORIZATION_FAILED, '']]);
  assert.equal(authorizer.checks.slice(0, 2), [{ op: AclOperation.DESCRIBE, resourceType: ResourceType.GROUP, name: 'theirs' }, { op: AclOperation.DESCRIBE, resourceType: ResourceType.TRANSACTIONAL_ID, name: 'theirs' }]);
});

test('v6 share keys "group:topicId:partition": the __share_group_state leader; a key that does not parse INVALID_REQUEST; CLUSTER_ACTION required for the whole request', async () => {
  const key = keyLedBy(2, partitionForShareKey, (i) => `g${i}:AAAAAAAAAAAAAAAAAAAAAQ:0`);
  const r = batched(setup(), 6, 2, [key, 'g:not-an-id:0', 'g:AAAAAAAAAAAAAAAAAAAAAQ']);
  assert.equal(r.coordinators.map((c: any) => [c.errorCode, c.nodeId, c.host]), [[ErrorCode.NONE, 2, 'plaintext-b2'], [ErrorCode.INVALID_REQUEST, -1, ''], [ErrorCode.INVALID_REQUEST, -1, '']]);
  const denied = setup({ authorizer: fakeAuthorizer(() => false) });
  const req = { key: '', keyType: 2, coordinatorKeys: ['g:AAAAAAAAAAAAAAAAAAAAAQ:0'] };
  const err = await thrown(() => findCoordinatorHandler.handle(requestContext(denied, 10, 6), req));
  assert.is((err as KafkaApiError).errorCode, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
  const e = findCoordinatorHandler.errorResponse(req, ErrorCode.CLUSTER_AUTHORIZATION_FAILED, requestContext(denied, 10, 6));
  assert.equal(e.coordinators.map((c) => [c.key, c.errorCode, c.nodeId, c.errorMessage]), [['g:AAAAAAAAAAAAAAAAAAAAAQ:0', ErrorCode.CLUSTER_AUTHORIZATION_FAILED, -1, 'Cluster authorization failed.']]);
});

test.run();
