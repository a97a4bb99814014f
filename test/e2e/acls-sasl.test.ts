/**
 * ACLs with real principals: a SASL_PLAINTEXT broker (PLAIN users admin, alice, bob) with Kafka's
 * StandardAuthorizer and `super.users=User:admin`. Kafka's own `kafka-acls` (AclCommand, Kafka
 * 4.4 tools) adds, lists and removes ACLs as the admin; kafkajs clients log in as alice and bob:
 * alice may produce and consume what her ACLs allow, bob is denied, `User:*` ACLs apply to
 * both, Metadata shows each only what they may describe, and a DENY for alice wins over her
 * prefixed ALLOW; kcat (librdkafka) sees the same. A user quota (AlterClientQuotas on entity user=bob) slows bob's producer to
 * about its byte rate while alice, without one, is not throttled.
 * @samsa-timeout 240
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import kafkajs, { type Admin } from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { kcat, run } from '../support/external.js';
import { JVM_OPTS, javaBin, javaMissing, kafkaJars } from '../../tools/kafka/kafka.js';
import { describeRun, e2eLogLevel } from '../support/clients.js';

const { Kafka, logLevel, AclResourceTypes: R, AclOperationTypes: O, AclPermissionTypes: P, ResourcePatternTypes: T } = kafkajs;
const USERS = { admin: 'admin-secret', alice: 'alice-secret', bob: 'bob-secret' };

let b: RunningBroker;
let dir: string;
let bootstrap: string;
let admin: Admin;

function client(user: keyof typeof USERS, clientId = `acl-${user}`) {
  return new Kafka({
    clientId, brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 1, initialRetryTime: 50, maxRetryTime: 200 },
    sasl: { mechanism: 'plain', username: user, password: USERS[user] },
  });
}

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'samsa-acls-sasl-'));
  b = await startBroker({
    sasl: { plain: USERS },
    logLevel: e2eLogLevel,
    config: {
      'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
      'super.users': 'User:admin',
      'num.partitions': 1,
      'group.initial.rebalance.delay.ms': 0,
      'auto.create.topics.enable': false,
      'quota.window.num': 2,
    },
  });
  bootstrap = b.bootstrap;
  admin = client('admin').admin();
  await admin.connect();
  await admin.createTopics({ topics: ['orders', 'order-audit', 'public', 'secret'].map((topic) => ({ topic })) });
  await admin.createAcls({
    acl: [
      { resourceType: R.TOPIC, resourceName: 'order', resourcePatternType: T.PREFIXED, principal: 'User:alice', host: '*', operation: O.ALL, permissionType: P.ALLOW },
      { resourceType: R.TOPIC, resourceName: 'order-audit', resourcePatternType: T.LITERAL, principal: 'User:alice', host: '*', operation: O.WRITE, permissionType: P.DENY },
      { resourceType: R.GROUP, resourceName: 'g-alice', resourcePatternType: T.LITERAL, principal: 'User:alice', host: '*', operation: O.READ, permissionType: P.ALLOW },
      { resourceType: R.TOPIC, resourceName: 'public', resourcePatternType: T.LITERAL, principal: 'User:*', host: '*', operation: O.READ, permissionType: P.ALLOW },
    ],
  });
});

test.after(async () => {
  await admin?.disconnect();
  await b?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function errorType(e: any): string | undefined {
  return e?.type ?? e?.cause?.type ?? (Array.isArray(e?.errors) ? e.errors[0]?.type : undefined);
}

async function rejection(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

test('Metadata: each principal sees what it may describe; the super user sees everything', async () => {
  const names = async (user: keyof typeof USERS) => {
    const a = client(user).admin();
    await a.connect();
    try {
      return (await a.fetchTopicMetadata()).topics.map((t) => t.name).sort();
    } finally {
      await a.disconnect();
    }
  };
  assert.equal(await names('alice'), ['order-audit', 'orders', 'public']);
  assert.equal(await names('bob'), ['public']);
  assert.equal(await names('admin'), ['order-audit', 'orders', 'public', 'secret']);
});

test('alice produces and consumes under her prefix; her DENY wins; bob is refused', async () => {
  const alice = client('alice');
  const p = alice.producer({ retry: { retries: 0 } });
  await p.connect();
  await p.send({ topic: 'orders', messages: [{ value: 'o1' }] });
  assert.is(errorType(await rejection(p.send({ topic: 'order-audit', messages: [{ value: 'x' }] }))), 'TOPIC_AUTHORIZATION_FAILED');
  assert.is(errorType(await rejection(p.send({ topic: 'public', messages: [{ value: 'x' }] }))), 'TOPIC_AUTHORIZATION_FAILED');
  await p.disconnect();
  const c = alice.consumer({ groupId: 'g-alice' });
  await c.connect();
  await c.subscribe({ topic: 'orders', fromBeginning: true });
  const got = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no record')), 20_000);
    void c.run({ eachMessage: async ({ message }) => { clearTimeout(timer); resolve(String(message.value)); } });
  });
  await c.disconnect();
  assert.is(got, 'o1');
  const bob = client('bob').producer({ retry: { retries: 0 } });
  await bob.connect();
  assert.is(errorType(await rejection(bob.send({ topic: 'orders', messages: [{ value: 'x' }] }))), 'TOPIC_AUTHORIZATION_FAILED');
  await bob.disconnect();
});

test('kafka-acls (AclCommand) adds, lists and removes ACLs as the super user', async () => {
  const missing = javaMissing();
  if (missing) return void console.log(`skipped: ${missing}`);
  const props = join(dir, 'admin.properties');
  writeFileSync(props, [
    'security.protocol=SASL_PLAINTEXT', 'sasl.mechanism=PLAIN',
    'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret";',
  ].join('\n') + '\n');
  const acls = (args: string[]) => run(javaBin(), [...JVM_OPTS, '-cp', kafkaJars().classpath, 'org.apache.kafka.tools.AclCommand',
    '--bootstrap-server', bootstrap, '--command-config', props, ...args], { timeoutMs: 90_000 });
  const add = await acls(['--add', '--allow-principal', 'User:bob', '--operation', 'Read', '--operation', 'Describe', '--topic', 'secret']);
  assert.is(add.code, 0, describeRun(add));
  const list = await acls(['--list', '--topic', 'secret']);
  assert.is(list.code, 0, describeRun(list));
  assert.match(list.stdout, /principal=User:bob, host=\*, operation=READ, permissionType=ALLOW/);
  assert.match(list.stdout, /principal=User:bob, host=\*, operation=DESCRIBE, permissionType=ALLOW/);
  const bobAdmin = client('bob').admin();
  await bobAdmin.connect();
  assert.equal((await bobAdmin.fetchTopicMetadata()).topics.map((t) => t.name).sort(), ['public', 'secret']);
  const remove = await acls(['--remove', '--force', '--allow-principal', 'User:bob', '--operation', 'Read', '--operation', 'Describe', '--topic', 'secret']);
  assert.is(remove.code, 0, describeRun(remove));
  assert.equal((await bobAdmin.fetchTopicMetadata()).topics.map((t) => t.name).sort(), ['public']);
  await bobAdmin.disconnect();
  // The producer-shortcut form adds WRITE, DESCRIBE and CREATE on the topic.
  const producer = await acls(['--add', '--producer', '--allow-principal', 'User:bob', '--topic', 'bob-'.concat('out'), '--resource-pattern-type', 'prefixed']);
  assert.is(producer.code, 0, describeRun(producer));
  const listed = await acls(['--list', '--principal', 'User:bob']);
  assert.match(listed.stdout, /ResourcePattern\(resourceType=TOPIC, name=bob-out, patternType=PREFIXED\)/);
  assert.match(listed.stdout, /operation=CREATE/);
});

test('kcat (librdkafka) as alice: produce allowed under her prefix, TOPIC_AUTHORIZATION_FAILED on a denied topic', async () => {
  const x = ['-X', 'security.protocol=SASL_PLAINTEXT', '-X', 'sasl.mechanisms=PLAIN', '-X', 'sasl.username=alice', '-X', 'sasl.password=alice-secret'];
  const ok = await kcat(['-b', bootstrap, ...x, '-P', '-t', 'orders'], { input: 'k1\n' });
  assert.is(ok.code, 0, describeRun(ok));
  const denied = await kcat(['-b', bootstrap, ...x, '-P', '-t', 'order-audit', '-X', 'message.timeout.ms=5000'], { input: 'k2\n', timeoutMs: 30_000 });
  assert.match(`${denied.stdout}\n${denied.stderr}`, /TOPIC_AUTHORIZATION_FAILED|[Aa]uthorization failed|not authorized/);
  const md = await kcat(['-b', bootstrap, ...x.slice(0, 4), '-X', 'sasl.username=bob', '-X', 'sasl.password=bob-secret', '-L']);
  assert.is(md.code, 0, describeRun(md));
  assert.ok(!md.stdout.includes('topic "orders"') && md.stdout.includes('topic "public"'), md.stdout);
});

test('a user quota throttles that user only', async () => {
  await admin.createTopics({ topics: [{ topic: 'quota-t' }] });
  await admin.createAcls({ acl: ['User:alice', 'User:bob'].map((principal) => ({
    resourceType: R.TOPIC, resourceName: 'quota-t', resourcePatternType: T.LITERAL, principal, host: '*', operation: O.WRITE, permissionType: P.ALLOW,
  })) });
  const { KafkaClient } = await import('../../src/cli/client.js');
  const c = await KafkaClient.connect({ bootstrap, security: { protocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'PLAIN', username: 'admin', password: 'admin-secret' } } } as never);
  const r: any = await c.send(49, 1, { entries: [{ entity: [{ entityType: 'user', entityName: 'bob' }], ops: [{ key: 'producer_byte_rate', value: 100_000, remove: false }] }], validateOnly: false });
  c.close();
  assert.is(r.entries[0].errorCode, 0);
  const value = Buffer.alloc(20_000, 1);
  const timed = async (user: 'alice' | 'bob') => {
    const p = client(user).producer();
    await p.connect();
    const t0 = Date.now();
    for (let i = 0; i < 25; i++) await p.send({ topic: 'quota-t', messages: [{ value }] });
    const s = (Date.now() - t0) / 1000;
    await p.disconnect();
    return s;
  };
  const alice = await timed('alice');
  const bob = await timed('bob');
  // 500 KB at 100 KB/s: about 5 s for bob; alice has no quota.
  assert.ok(bob > 2.5 && bob > alice * 2, `bob ${bob.toFixed(2)} s, alice ${alice.toFixed(2)} s`);
});

test.run();
