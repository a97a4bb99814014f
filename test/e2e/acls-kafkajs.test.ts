/**
 * ACL enforcement seen by kafkajs 2.2.4 clients. The ACLs are created while User:ANONYMOUS (the
 * principal of a PLAINTEXT connection) is a super user; the broker then restarts on the same
 * data without super users, so the same principal is held to them: allowed and denied produce,
 * consume and offset commit, group join, transactions, topic creation, hidden topics in Metadata,
 * prefixed patterns, DENY over a prefixed ALLOW, and no ACL administration without ALTER.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import kafkajs, { type Admin } from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { e2eLogLevel, hostPort } from '../support/clients.js';

const { Kafka, logLevel, AclResourceTypes: R, AclOperationTypes: O, AclPermissionTypes: P, ResourcePatternTypes: T } = kafkajs;
const AUTHORIZER = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
const ME = 'User:ANONYMOUS';

const dir = mkdtempSync(join(tmpdir(), 'samsa-acls-kafkajs-'));
let b: RunningBroker;
let kafka: InstanceType<typeof Kafka>;
let admin: Admin;

function start(superUsers: string): Promise<RunningBroker> {
  return startBroker({
    port: 0, storage: { dir }, logLevel: e2eLogLevel,
    config: { 'authorizer.class.name': AUTHORIZER, 'super.users': superUsers, 'num.partitions': 1, 'auto.create.topics.enable': false },
  });
}

const rule = (resourceType: number, resourceName: string, resourcePatternType: number, operation: number, permissionType: number) =>
  ({ resourceType, resourceName, resourcePatternType, principal: ME, host: '*', operation, permissionType });

test.before(async () => {
  b = await start(ME);
  let k = new Kafka({ clientId: 'acl-setup', brokers: [hostPort(b.port)], logLevel: logLevel.NOTHING, retry: { retries: 2 } });
  const setup = k.admin();
  await setup.connect();
  await setup.createTopics({ topics: ['ok-a', 'ro', 'hidden', 'ok-denied'].map((topic) => ({ topic })) });
  await setup.createAcls({
    acl: [
      rule(R.TOPIC, 'ok-', T.PREFIXED, O.ALL, P.ALLOW),
      rule(R.TOPIC, 'ok-denied', T.LITERAL, O.WRITE, P.DENY),
      rule(R.TOPIC, 'ro', T.LITERAL, O.READ, P.ALLOW),
      rule(R.GROUP, 'g-ok', T.LITERAL, O.READ, P.ALLOW),
      rule(R.GROUP, 'g-desc', T.LITERAL, O.DESCRIBE, P.ALLOW),
      rule(R.TRANSACTIONAL_ID, 'tx-ok', T.LITERAL, O.WRITE, P.ALLOW),
      rule(R.TRANSACTIONAL_ID, 'tx-desc', T.LITERAL, O.DESCRIBE, P.ALLOW),
    ],
  });
  await setup.disconnect();
  await b.stop();
  b = await start('');
  k = new Kafka({ clientId: 'acl-e2e', brokers: [hostPort(b.port)], logLevel: logLevel.NOTHING, retry: { retries: 1, initialRetryTime: 50, maxRetryTime: 200 } });
  kafka = k;
  admin = kafka.admin();
  await admin.connect();
});

test.after(async () => {
  await admin?.disconnect();
  await b?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function errorType(e: any): string | undefined {
  return e?.type ?? e?.cause?.type ?? e?.originalError?.type ?? (Array.isArray(e?.errors) ? e.errors[0]?.type : undefined);
}

async function rejection(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

test('Metadata lists only the topics the principal may describe', async () => {
  const md = await admin.fetchTopicMetadata();
  assert.equal(md.topics.map((t) => t.name).sort(), ['ok-a', 'ok-denied', 'ro']);
  const e = await rejection(admin.fetchTopicMetadata({ topics: ['hidden'] }));
  assert.is(errorType(e), 'TOPIC_AUTHORIZATION_FAILED');
});

test('produce: allowed on a prefixed ALLOW; denied without WRITE and where a DENY overrides the prefix', async () => {
  const producer = kafka.producer({ retry: { retries: 0 } });
  await producer.connect();
  try {
    const ok = await producer.send({ topic: 'ok-a', messages: [{ value: 'v1' }, { value: 'v2' }] });
    assert.is(ok[0].errorCode, 0);
    assert.is(errorType(await rejection(producer.send({ topic: 'ro', messages: [{ value: 'x' }] }))), 'TOPIC_AUTHORIZATION_FAILED');
    assert.is(errorType(await rejection(producer.send({ topic: 'ok-denied', messages: [{ value: 'x' }] }))), 'TOPIC_AUTHORIZATION_FAILED');
  } finally {
    await producer.disconnect();
  }
});

test('consume and commit with an allowed group', async () => {
  const consumer = kafka.consumer({ groupId: 'g-ok', retry: { retries: 1 } });
  await consumer.connect();
  await consumer.subscribe({ topic: 'ok-a', fromBeginning: true });
  const seen: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${seen.length} records`)), 20_000);
    void consumer.run({
      eachMessage: async ({ message }) => {
        seen.push(String(message.value));
        if (seen.length === 2) {
          clearTimeout(timer);
          resolve();
        }
      },
    });
  });
  await consumer.disconnect();
  assert.equal(seen, ['v1', 'v2']);
  const offsets = await admin.fetchOffsets({ groupId: 'g-ok', topics: ['ok-a'] });
  assert.is(offsets[0].partitions[0].offset, '2');
});

test('a group without READ: JoinGroup answers GROUP_AUTHORIZATION_FAILED; without DESCRIBE FindCoordinator does', async () => {
  const consumer = kafka.consumer({ groupId: 'g-desc', retry: { retries: 0 } });
  await consumer.connect();
  await consumer.subscribe({ topic: 'ok-a', fromBeginning: true });
  const crashed = new Promise<any>((resolve) => consumer.on(consumer.events.CRASH, (e) => resolve(e.payload.error)));
  void consumer.run({ eachMessage: async () => {} }).catch(() => undefined);
  const err = await crashed;
  await consumer.disconnect().catch(() => undefined);
  assert.is(errorType(err), 'GROUP_AUTHORIZATION_FAILED', `${err?.name}: ${err?.message}`);
  // kafkajs reports a FindCoordinator error as "Failed to find group coordinator"; its cause is the code.
  const e = await rejection(admin.fetchOffsets({ groupId: 'g-no', topics: ['ok-a'] }));
  assert.ok(errorType(e) === 'GROUP_AUTHORIZATION_FAILED' || e?.name === 'KafkaJSGroupCoordinatorNotFound', `${e?.name}: ${e?.message}`);
});

test('transactions: an allowed transactional id works; InitProducerId without WRITE is refused', async () => {
  const ok = kafka.producer({ transactionalId: 'tx-ok', maxInFlightRequests: 1, idempotent: true, retry: { retries: 1 } });
  await ok.connect();
  const txn = await ok.transaction();
  await txn.send({ topic: 'ok-a', messages: [{ value: 't1' }] });
  await txn.commit();
  await ok.disconnect();
  // DESCRIBE lets FindCoordinator answer; InitProducerId then needs WRITE.
  const no = kafka.producer({ transactionalId: 'tx-desc', maxInFlightRequests: 1, idempotent: true, retry: { retries: 1 } });
  await no.connect();
  const e = await rejection(no.transaction());
  await no.disconnect().catch(() => undefined);
  assert.is(errorType(e), 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED');
});

test('topic creation needs CREATE: allowed under the prefix, refused elsewhere', async () => {
  assert.is(await admin.createTopics({ topics: [{ topic: 'ok-new' }] }), true);
  const e = await rejection(admin.createTopics({ topics: [{ topic: 'other-new' }] }));
  assert.is(errorType(e), 'TOPIC_AUTHORIZATION_FAILED');
});

test('topic deletion needs DELETE', async () => {
  const e = await rejection(admin.deleteTopics({ topics: ['ro'] }));
  assert.is(errorType(e), 'TOPIC_AUTHORIZATION_FAILED');
});

test('ACL administration needs ALTER on the cluster', async () => {
  const e = await rejection(admin.createAcls({ acl: [rule(R.TOPIC, 'ro', T.LITERAL, O.WRITE, P.ALLOW)] }));
  assert.is(errorType(e), 'CLUSTER_AUTHORIZATION_FAILED');
});

test.run();
