/**
 * The Schema Registry behind the broker's SASL users and ACLs: without credentials 401; a user
 * with no ACL 403 (error code 40301); READ on the topic `_schemas` lets a user read the registry
 * but not change it, WRITE lets it register; kafkajs's registry client with basic auth.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { SchemaRegistry as KafkajsRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';

const { Kafka, logLevel, AclResourceTypes, ResourcePatternTypes, AclOperationTypes, AclPermissionTypes } = kafkajs;
const CT = 'application/vnd.schemaregistry.v1+json';
let b: RunningBroker;

test.before(async () => {
  b = await startBroker({
    http: true,
    sasl: { plain: { admin: 'admin-pw', alice: 'alice-pw', bob: 'bob-pw' } },
    config: { 'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer', 'super.users': 'User:admin' },
  });
});

test.after(async () => {
  await b?.stop();
});

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

async function call(method: string, path: string, auth: string | null, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${b.httpUrl}${path}`, {
    method, headers: { 'content-type': CT, ...(auth ? { authorization: auth } : {}) }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch { /* not JSON */ }
  return { status: res.status, json };
}

const SCHEMA = JSON.stringify({ type: 'record', name: 'Secret', fields: [{ name: 'v', type: 'string' }] });

test('401 without credentials, 403 (40301) without an ACL; READ reads, WRITE registers', async () => {
  assert.is((await call('GET', '/subjects', null)).status, 401);
  assert.is((await call('GET', '/subjects', basic('alice', 'wrong'))).status, 401);
  const noAcl = await call('GET', '/subjects', basic('alice', 'alice-pw'));
  assert.is(noAcl.status, 403);
  assert.is(noAcl.json.error_code, 40301);
  // The super user needs no ACL.
  assert.equal((await call('POST', '/subjects/secrets-value/versions', basic('admin', 'admin-pw'), { schema: SCHEMA })).json, { id: 1 });

  const kafka = new Kafka({ brokers: [b.bootstrap], sasl: { mechanism: 'plain', username: 'admin', password: 'admin-pw' }, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const acl = (principal: string, operation: number) => ({
    resourceType: AclResourceTypes.TOPIC, resourceName: '_schemas', resourcePatternType: ResourcePatternTypes.LITERAL,
    principal, host: '*', operation, permissionType: AclPermissionTypes.ALLOW,
  });
  await admin.createAcls({ acl: [acl('User:alice', AclOperationTypes.READ), acl('User:bob', AclOperationTypes.READ), acl('User:bob', AclOperationTypes.WRITE)] });
  await admin.disconnect();

  const alice = basic('alice', 'alice-pw');
  const listed = await call('GET', '/subjects', alice);
  assert.is(listed.status, 200, JSON.stringify(listed.json));
  assert.equal(listed.json, ['secrets-value']);
  // A lookup and a compatibility check are reads.
  assert.is((await call('POST', '/subjects/secrets-value', alice, { schema: SCHEMA })).json.id, 1);
  assert.equal((await call('POST', '/compatibility/subjects/secrets-value/versions/latest', alice, { schema: SCHEMA })).json, { is_compatible: true });
  const write = await call('POST', '/subjects/other-value/versions', alice, { schema: SCHEMA });
  assert.is(write.status, 403);
  assert.is(write.json.error_code, 40301);
  assert.is((await call('PUT', '/config', alice, { compatibility: 'NONE' })).status, 403);

  const registry = new KafkajsRegistry({ host: b.httpUrl!, auth: { username: 'bob', password: 'bob-pw' } });
  const { id } = await registry.register({ type: SchemaType.AVRO, schema: SCHEMA }, { subject: 'bob-value' });
  assert.is(id, 1);
  assert.equal((await call('GET', '/subjects', alice)).json, ['bob-value', 'secrets-value']);
});

test.run();
