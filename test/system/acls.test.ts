/**
 * ACLs in a cluster: two Samsa brokers on etcd with the StandardAuthorizer and
 * allow.everyone.if.no.acl.found=true. An ACL created through one broker is enforced by the
 * other as soon as its metadata watch sees it (acls/<id> in etcd), replication between them
 * keeps working under the authorizer (the brokers' principal has CLUSTER_ACTION), topic
 * creation forwarded to the controller is checked with the client's principal, and a delete
 * through the second broker lifts the restriction on the first. Client quotas travel the same
 * way. Clients are told apart by host:
 * the restricted one connects from 127.0.0.2.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KafkaConn } from '../../bench/lib/kafka-conn.js';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { buildRecordBatch } from '../../src/protocol/records/record.js';
import { fill } from '../../compat-tests/probes/fill.js';
import { codec } from '../../compat-tests/probes/wire.js';

const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`cluster acls: etcd is required under CI: ${missing}`);
let c: TestCluster | null = null;
const conns: KafkaConn[] = [];

test.before(async () => {
  if (missing) return;
  c = await startCluster({
    brokers: 2,
    config: {
      'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
      'allow.everyone.if.no.acl.found': true,
      'default.replication.factor': 2,
      'min.insync.replicas': 2,
    },
  });
});

test.after(async () => {
  for (const k of conns) k.close();
  await c?.cleanup();
});

async function conn(nodeId: number, from?: string): Promise<KafkaConn> {
  const k = await KafkaConn.connect('127.0.0.1', c!.broker(nodeId).port, 5000, from);
  conns.push(k);
  return k;
}

const restrictedRead = { resourceType: 2, resourceName: 'ca-', resourcePatternType: 4, principal: 'User:ANONYMOUS', host: '127.0.0.2', operation: 3, permissionType: 2 };
// An ACL covering a topic ends allow.everyone.if.no.acl.found for it: allow everyone else explicitly.
const allowTopics = { resourceType: 2, resourceName: 'ca-', resourcePatternType: 4, principal: 'User:*', host: '*', operation: 2, permissionType: 3 };
const denyTopicCreate = { resourceType: 2, resourceName: 'cz-', resourcePatternType: 4, principal: 'User:ANONYMOUS', host: '127.0.0.2', operation: 5, permissionType: 2 };
const denyCreate = { resourceType: 4, resourceName: 'kafka-cluster', resourcePatternType: 3, principal: 'User:ANONYMOUS', host: '127.0.0.2', operation: 5, permissionType: 2 };
// With an ACL on the cluster resource, only what ACLs allow is allowed there: keep the brokers' (and 127.0.0.1's) rights.
const allowCluster = { resourceType: 4, resourceName: 'kafka-cluster', resourcePatternType: 3, principal: 'User:ANONYMOUS', host: '*', operation: 2, permissionType: 3 };

/** A request whose body names only what it sets (the rest: protocol-specs defaults). */
function req(k: KafkaConn, apiKey: number, version: number, body: Record<string, unknown>): Promise<any> {
  return k.request(apiKey as never, version, fill(`${codec(apiKey).name}Request`, version, body) as never);
}

async function fetchCode(k: KafkaConn, topic: string): Promise<number> {
  const r: any = await req(k, 1, 12, {
    replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0,
    topics: [{ topic, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }],
  });
  return r.responses[0].partitions[0].errorCode;
}

async function waitCode(k: KafkaConn, topic: string, code: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const got = await fetchCode(k, topic);
    if (got === code) return;
    if (Date.now() > deadline) throw new Error(`fetch ${topic}: ${got}, expected ${code}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('an ACL created on one broker is enforced by the other; replication and acks=all keep working', async () => {
  if (!c) return console.log('cluster acls: skipped:', missing);
  const [a, b] = c.brokers.map((x) => x.nodeId);
  await c.waitForMetadata(a, (m) => m.brokers.length === 2 && m.controllerId > 0, 'two brokers and a controller');
  const admin = await conn(a);
  const created: any = await req(admin, 19, 7, { topics: [{ name: 'ca-orders', numPartitions: 1, replicationFactor: 2, assignments: [], configs: [] }], timeoutMs: 30_000, validateOnly: false });
  assert.is(created.topics[0].errorCode, 0);
  await c.waitForMetadata(b, (m) => m.topics.some((t) => t.name === 'ca-orders' && t.partitions[0]?.isrNodes.length === 2), 'ca-orders with both replicas in sync');
  const acl: any = await req(admin, 30, 3, { creations: [allowCluster, allowTopics, restrictedRead, denyCreate, denyTopicCreate] });
  assert.equal(acl.results.map((r: any) => r.errorCode), [0, 0, 0, 0, 0]);

  const restrictedOnB = await conn(b, '127.0.0.2');
  await waitCode(restrictedOnB, 'ca-orders', ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  // 127.0.0.1 still reads; a produce with acks=all needs the follower's fetches (CLUSTER_ACTION).
  const leader = (await c.metadata(a, ['ca-orders'])).topics[0].partitions[0].leaderId;
  const toLeader = await conn(leader);
  const produce = (): Promise<any> => req(toLeader, 0, 9, {
    transactionalId: null, acks: -1, timeoutMs: 10_000,
    topicData: [{ name: 'ca-orders', partitionData: [{ index: 0, records: buildRecordBatch({ baseOffset: 0n, records: [{ key: null, value: Buffer.from('v') }] } as never) }] }],
  });
  // The leader named by broker a's metadata may not have taken the leadership yet (a busy
  // machine): NOT_LEADER_OR_FOLLOWER is retried, as clients retry it.
  let p: any = await produce();
  for (const end = Date.now() + 10_000; p.responses[0].partitionResponses[0].errorCode === ErrorCode.NOT_LEADER_OR_FOLLOWER && Date.now() < end;) {
    await new Promise((r) => setTimeout(r, 100));
    p = await produce();
  }
  assert.is(p.responses[0].partitionResponses[0].errorCode, 0);
  assert.is(await fetchCode(toLeader, 'ca-orders'), 0);

  // Topic creation forwarded to the controller is checked with the client's principal and host.
  const restrictedOnA = await conn(a, '127.0.0.2');
  for (const k of [restrictedOnA, restrictedOnB]) {
    const r: any = await req(k, 19, 7, { topics: [{ name: 'cz-new', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 30_000, validateOnly: false });
    assert.is(r.topics[0].errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  }

  // Deleting through the other broker lifts the restriction everywhere.
  const del: any = await req((await conn(b)), 31, 3, { filters: [{ resourceTypeFilter: 2, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 }] });
  assert.is(del.filterResults[0].matchingAcls.length, 3);
  // Not denied any more: the data, from the leader or the follower (a consumer's Fetch v11+, KIP-392).
  await waitCode(restrictedOnA, 'ca-orders', ErrorCode.NONE);
});

test('a client quota set through one broker is described and enforced by the other (quotas/ in etcd)', async () => {
  if (!c) return;
  const [a, b] = c.brokers.map((x) => x.nodeId);
  const alter = await req(await conn(a), 49, 1, { entries: [{ entity: [{ entityType: 'client-id', entityName: 'samsa-bench' }], ops: [{ key: 'producer_byte_rate', value: 1000, remove: false }] }], validateOnly: false });
  assert.is(alter.entries[0].errorCode, 0);
  const onB = await conn(b);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const d = await req(onB, 48, 1, { components: [{ entityType: 'client-id', matchType: 0, match: 'samsa-bench' }], strict: true });
    if (d.entries?.length === 1) {
      assert.equal(d.entries[0].values, [{ key: 'producer_byte_rate', value: 1000 }]);
      break;
    }
    if (Date.now() > deadline) throw new Error('the quota never reached the other broker');
    await new Promise((r) => setTimeout(r, 100));
  }
  // Enforced there: 10 KB against 1000 B/s is throttled.
  const leader = (await c.metadata(a, ['ca-orders'])).topics[0].partitions[0].leaderId;
  const p = await req(await conn(leader), 0, 9, {
    transactionalId: null, acks: 1, timeoutMs: 10_000,
    topicData: [{ name: 'ca-orders', partitionData: [{ index: 0, records: buildRecordBatch({ records: [{ key: null, value: Buffer.alloc(10_000) }] } as never) }] }],
  });
  assert.is(p.responses[0].partitionResponses[0].errorCode, 0);
  assert.ok(p.throttleTimeMs > 0, `throttle_time_ms ${p.throttleTimeMs}`);
});

test.run();
