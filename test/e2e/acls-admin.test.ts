/**
 * ACL administration with kafkajs 2.2.4 (CreateAcls / DescribeAcls / DeleteAcls v1) against a
 * broker with Kafka's StandardAuthorizer: create, describe with LITERAL / PREFIXED / MATCH / ANY
 * filters, delete, de-duplication, persistence across a restart; SECURITY_DISABLED without an
 * authorizer; CLUSTER_AUTHORIZATION_FAILED for a principal without ALTER on the cluster.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import kafkajs, { type Admin } from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { e2eLogLevel, hostPort } from '../support/clients.js';

const { Kafka, logLevel, AclResourceTypes, AclOperationTypes, AclPermissionTypes, ResourcePatternTypes } = kafkajs;
const AUTHORIZER = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';

const dir = mkdtempSync(join(tmpdir(), 'samsa-acls-admin-'));
let b: RunningBroker;
let admin: Admin;

async function connect(broker: RunningBroker): Promise<Admin> {
  const kafka = new Kafka({ clientId: 'e2e-acls-admin', brokers: [hostPort(broker.port)], logLevel: logLevel.NOTHING, retry: { retries: 0 } });
  const a = kafka.admin();
  await a.connect();
  return a;
}

async function secured(extra: Record<string, string | boolean> = {}): Promise<RunningBroker> {
  return startBroker({
    port: 0, storage: { dir }, logLevel: e2eLogLevel,
    config: { 'authorizer.class.name': AUTHORIZER, 'super.users': 'User:ANONYMOUS', ...extra },
  });
}

test.before(async () => {
  b = await secured();
  admin = await connect(b);
});

test.after(async () => {
  await admin?.disconnect();
  await b?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const acl = (resourceName: string, patternType: number, operation: number, permissionType: number, principal = 'User:alice', host = '*') => ({
  resourceType: AclResourceTypes.TOPIC, resourceName, resourcePatternType: patternType, principal, host, operation, permissionType,
});

function flat(res: any): string[] {
  return res.resources.flatMap((r: any) => r.acls.map((a: any) =>
    `${r.resourceType}:${r.resourcePatternType}:${r.resourceName}:${a.principal}:${a.host}:${a.operation}:${a.permissionType}`)).sort();
}

test('create, then describe by LITERAL, PREFIXED, MATCH and ANY filters', async () => {
  await admin.createAcls({
    acl: [
      acl('orders', ResourcePatternTypes.LITERAL, AclOperationTypes.READ, AclPermissionTypes.ALLOW),
      acl('ord', ResourcePatternTypes.PREFIXED, AclOperationTypes.WRITE, AclPermissionTypes.ALLOW),
      acl('*', ResourcePatternTypes.LITERAL, AclOperationTypes.DESCRIBE, AclPermissionTypes.DENY, 'User:bob'),
      acl('payments', ResourcePatternTypes.LITERAL, AclOperationTypes.ALL, AclPermissionTypes.ALLOW, 'User:bob', '10.0.0.1'),
    ],
  });
  const filter = (resourceName: string | null, patternType: number) => ({
    resourceType: AclResourceTypes.TOPIC, resourceName: (resourceName ?? undefined) as string, resourcePatternType: patternType,
    principal: undefined as unknown as string, host: undefined as unknown as string, operation: AclOperationTypes.ANY, permissionType: AclPermissionTypes.ANY,
  });
  const literal = await admin.describeAcls(filter('orders', ResourcePatternTypes.LITERAL));
  assert.equal(flat(literal), ['2:3:orders:User:alice:*:3:3']);
  const prefixed = await admin.describeAcls(filter('ord', ResourcePatternTypes.PREFIXED));
  assert.equal(flat(prefixed), ['2:4:ord:User:alice:*:4:3']);
  // MATCH: every pattern that applies to the name "orders": the literal, the prefix and the wildcard.
  const match = await admin.describeAcls(filter('orders', ResourcePatternTypes.MATCH));
  assert.equal(flat(match), ['2:3:*:User:bob:*:8:2', '2:3:orders:User:alice:*:3:3', '2:4:ord:User:alice:*:4:3']);
  const any = await admin.describeAcls(filter(null, ResourcePatternTypes.ANY));
  assert.equal(flat(any).length, 4);
  const byPrincipal = await admin.describeAcls({ ...filter(null, ResourcePatternTypes.ANY), principal: 'User:bob', host: '10.0.0.1' });
  assert.equal(flat(byPrincipal), ['2:3:payments:User:bob:10.0.0.1:2:3']);
});

test('the same ACL twice is stored once', async () => {
  const one = acl('dup', ResourcePatternTypes.LITERAL, AclOperationTypes.READ, AclPermissionTypes.ALLOW);
  await admin.createAcls({ acl: [one, one] });
  await admin.createAcls({ acl: [one] });
  const res = await admin.describeAcls({ ...one, resourcePatternType: ResourcePatternTypes.LITERAL });
  assert.equal(flat(res), ['2:3:dup:User:alice:*:3:3']);
});

test('invalid creations: INVALID_REQUEST with Kafka\'s messages', async () => {
  const e = await admin.createAcls({
    acl: [{ resourceType: AclResourceTypes.CLUSTER, resourceName: 'other', resourcePatternType: ResourcePatternTypes.LITERAL, principal: 'User:x', host: '*', operation: AclOperationTypes.ALTER, permissionType: AclPermissionTypes.ALLOW }],
  }).then(() => null, (err: any) => err);
  assert.equal(e?.type, 'INVALID_REQUEST');
});

test('delete by filter returns what it removed; restart keeps the rest', async () => {
  const res = await admin.deleteAcls({
    filters: [{
      resourceType: AclResourceTypes.TOPIC, resourceName: 'orders', resourcePatternType: ResourcePatternTypes.MATCH,
      principal: 'User:alice', host: '*', operation: AclOperationTypes.ANY, permissionType: AclPermissionTypes.ANY,
    }],
  });
  const removed = res.filterResponses[0].matchingAcls.map((m: any) => `${m.resourceName}:${m.operation}`).sort();
  assert.equal(removed, ['ord:4', 'orders:3']);
  await admin.disconnect();
  await b.stop();
  b = await secured();
  admin = await connect(b);
  const all = await admin.describeAcls({
    resourceType: AclResourceTypes.ANY, resourceName: undefined as unknown as string, resourcePatternType: ResourcePatternTypes.ANY,
    principal: undefined as unknown as string, host: undefined as unknown as string, operation: AclOperationTypes.ANY, permissionType: AclPermissionTypes.ANY,
  });
  assert.equal(flat(all), ['2:3:*:User:bob:*:8:2', '2:3:dup:User:alice:*:3:3', '2:3:payments:User:bob:10.0.0.1:2:3']);
});

test('without an authorizer: SECURITY_DISABLED', async () => {
  const plain = await startBroker({ port: 0, storage: 'memory', logLevel: e2eLogLevel });
  const a = await connect(plain);
  try {
    const e = await a.describeAcls({
      resourceType: AclResourceTypes.ANY, resourceName: undefined as unknown as string, resourcePatternType: ResourcePatternTypes.ANY,
      principal: undefined as unknown as string, host: undefined as unknown as string, operation: AclOperationTypes.ANY, permissionType: AclPermissionTypes.ANY,
    }).then(() => null, (err: any) => err);
    assert.equal(e?.type, 'SECURITY_DISABLED');
    const c = await a.createAcls({ acl: [acl('t', ResourcePatternTypes.LITERAL, AclOperationTypes.READ, AclPermissionTypes.ALLOW)] }).then(() => null, (err: any) => err);
    assert.equal(c?.type, 'SECURITY_DISABLED');
  } finally {
    await a.disconnect();
    await plain.stop();
  }
});

test('a principal without ALTER on the cluster: CLUSTER_AUTHORIZATION_FAILED', async () => {
  const locked = await startBroker({ port: 0, storage: 'memory', logLevel: e2eLogLevel, config: { 'authorizer.class.name': AUTHORIZER } });
  const a = await connect(locked).catch((err) => err);
  try {
    const c = await (a as Admin).createAcls({ acl: [acl('t', ResourcePatternTypes.LITERAL, AclOperationTypes.READ, AclPermissionTypes.ALLOW)] }).then(() => null, (err: any) => err);
    assert.equal(c?.type, 'CLUSTER_AUTHORIZATION_FAILED');
  } finally {
    await (a as Admin).disconnect?.();
    await locked.stop();
  }
});

test.run();
