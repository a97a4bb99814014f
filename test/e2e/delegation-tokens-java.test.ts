/**
 * Delegation tokens with Apache Kafka 4.4's own tools: kafka-delegation-tokens.sh
 * (org.apache.kafka.tools.DelegationTokenCommand, the Java admin client) creates, describes,
 * renews and expires tokens over SASL_PLAINTEXT/SCRAM, and the Java console producer and consumer
 * log in with a token (SCRAM-SHA-512, tokenauth=true): as the token's owner, so the owner's ACLs
 * apply. A token-authenticated client and a PLAINTEXT client may not manage tokens; a removed
 * token, and one the expiry check removed, no longer logs in.
 * @samsa-timeout 400
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { javaMissing } from '../../tools/kafka/kafka.js';
import { kafkaTool } from '../support/kafka-tools.js';
import { describeRun } from '../support/clients.js';
import { KafkaClient } from '../../src/cli/client.js';
import { AclOperation, ResourceType } from '../../src/protocol/acl.js';

const missing = javaMissing();
let b: RunningBroker;
let dir: string;
let sasl = '';
let plaintext = '';
const TOPIC = 'dt-java';

test.before(async () => {
  if (missing) return;
  dir = mkdtempSync(join(tmpdir(), 'samsa-java-dt-'));
  b = await startBroker({
    sasl: { scram: { alice: 'alice-secret', admin: 'admin-secret' } },
    config: {
      listeners: 'SASL_PLAINTEXT://127.0.0.1:0,PLAINTEXT://127.0.0.1:0',
      'inter.broker.listener.name': 'PLAINTEXT',
      'delegation.token.secret.key': 'java-e2e-secret',
      'delegation.token.expiry.check.interval.ms': 1000,
      'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
      'super.users': 'User:admin;User:ANONYMOUS',
      'num.partitions': 1,
      'group.initial.rebalance.delay.ms': 0,
    },
  });
  const port = (name: string) => b.broker.listeners.find((l) => l.name === name)!.boundPort;
  sasl = `127.0.0.1:${port('SASL_PLAINTEXT')}`;
  plaintext = `127.0.0.1:${port('PLAINTEXT')}`;
  const admin = await KafkaClient.connect({ bootstrap: plaintext });
  try {
    await admin.send(19, 7, { topics: [{ name: TOPIC, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
    const allow = (resourceType: number, resourceName: string, operation: number) =>
      ({ resourceType, resourceName, resourcePatternType: 3, principal: 'User:alice', host: '*', operation, permissionType: 3 });
    const r = await admin.send(30, 3, { creations: [
      allow(ResourceType.TOPIC, TOPIC, AclOperation.WRITE), allow(ResourceType.TOPIC, TOPIC, AclOperation.READ),
      allow(ResourceType.TOPIC, TOPIC, AclOperation.DESCRIBE), allow(ResourceType.GROUP, 'dt-group', AclOperation.READ),
    ] });
    assert.equal(r.results.map((x) => x.errorCode), [0, 0, 0, 0]);
  } finally {
    admin.close();
  }
});

test.after(async () => {
  await b?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function props(name: string, lines: Record<string, string>): string {
  const file = join(dir, `${name}.properties`);
  writeFileSync(file, Object.entries(lines).map(([k, v]) => `${k}=${v}`).join('\n') + '\n');
  return file;
}

const scramUser = (user: string) => props(`user-${user}`, {
  'security.protocol': 'SASL_PLAINTEXT', 'sasl.mechanism': 'SCRAM-SHA-256',
  'sasl.jaas.config': `org.apache.kafka.common.security.scram.ScramLoginModule required username="${user}" password="${user}-secret";`,
});

const tokenLogin = (name: string, t: Token) => props(`token-${name}`, {
  'security.protocol': 'SASL_PLAINTEXT', 'sasl.mechanism': 'SCRAM-SHA-512',
  'sasl.jaas.config': `org.apache.kafka.common.security.scram.ScramLoginModule required username="${t.tokenId}" password="${t.hmac}" tokenauth="true";`,
});

const java = (cls: string, args: string[], input?: string) => kafkaTool(cls, args, { timeoutMs: 90_000, ...(input !== undefined ? { input } : {}) });

const tokens = (config: string, bootstrap: string, args: string[]) =>
  java('org.apache.kafka.tools.DelegationTokenCommand', ['--bootstrap-server', bootstrap, '--command-config', config, ...args]);

interface Token { tokenId: string; hmac: string }

/** The rows of DelegationTokenCommand's table (TOKENID HMAC OWNER REQUESTER RENEWERS ISSUEDATE EXPIRYDATE MAXDATE). */
function rows(stdout: string): { tokenId: string; hmac: string; owner: string; requester: string; rest: string }[] {
  const lines = stdout.split('\n');
  const header = lines.findIndex((l) => l.startsWith('TOKENID'));
  if (header < 0) return [];
  return lines.slice(header + 1).map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('Total number')).map((l) => {
    const [tokenId, hmac, owner, requester, ...rest] = l.split(/\s+/);
    return { tokenId: tokenId!, hmac: hmac!, owner: owner!, requester: requester!, rest: rest.join(' ') };
  });
}

async function create(config: string, extra: string[] = []): Promise<Token> {
  const r = await tokens(config, sasl, ['--create', '--max-life-time-period', '-1', ...extra]);
  assert.is(r.code, 0, describeRun(r));
  const m = /Created delegation token with tokenId : (\S+)/.exec(r.stdout);
  assert.ok(m, describeRun(r));
  const row = rows(r.stdout).find((x) => x.tokenId === m![1]);
  assert.ok(row, describeRun(r));
  return { tokenId: row!.tokenId, hmac: row!.hmac };
}

const produce = (config: string, lines: string) => java('org.apache.kafka.tools.ConsoleProducer',
  ['--bootstrap-server', sasl, '--topic', TOPIC, '--command-config', config, '--producer-property', 'max.block.ms=8000', '--producer-property', 'delivery.timeout.ms=10000', '--producer-property', 'request.timeout.ms=5000'], lines);

let aliceToken: Token;

test('kafka-delegation-tokens --create and --describe over SASL/SCRAM: the token, its owner, requester and renewer', async () => {
  if (missing) return void console.log(`skipped: ${missing}`);
  aliceToken = await create(scramUser('alice'), ['--renewer-principal', 'User:bob']);
  assert.match(aliceToken.tokenId, /^[A-Za-z0-9_-]{22}$/);
  const none = await tokens(scramUser('alice'), sasl, ['--describe']);
  assert.match(none.stdout, 'Total number of tokens : 0', `the tool sends an empty owner list, which Kafka 4.4 answers with no tokens\n${describeRun(none)}`);
  const d = await tokens(scramUser('alice'), sasl, ['--describe', '--owner-principal', 'User:alice']);
  assert.is(d.code, 0, describeRun(d));
  const row = rows(d.stdout).find((x) => x.tokenId === aliceToken.tokenId);
  assert.ok(row, describeRun(d));
  assert.equal([row!.hmac, row!.owner, row!.requester], [aliceToken.hmac, 'User:alice', 'User:alice']);
  assert.match(row!.rest, '[User:bob]');
  const byOwner = await tokens(scramUser('admin'), sasl, ['--describe', '--owner-principal', 'User:alice']);
  assert.ok(rows(byOwner.stdout).some((x) => x.tokenId === aliceToken.tokenId), describeRun(byOwner));
});

test('kafka-delegation-tokens --renew: a new expiry date', async () => {
  if (missing) return void console.log(`skipped: ${missing}`);
  const r = await tokens(scramUser('alice'), sasl, ['--renew', '--hmac', aliceToken.hmac, '--renew-time-period', '3600000']);
  assert.is(r.code, 0, describeRun(r));
  assert.match(r.stdout, /Completed renew operation\. New expiry date : \d{4}-\d\d-\d\dT\d\d:\d\d/);
});

test('the Java producer and consumer log in with the token (SCRAM-SHA-512, tokenauth=true) as its owner: alice\'s ACLs let them through', async () => {
  if (missing) return void console.log(`skipped: ${missing}`);
  const login = tokenLogin('alice', aliceToken);
  const prod = await produce(login, 'd1\nd2\n');
  assert.is(prod.code, 0, describeRun(prod));
  const cons = await java('org.apache.kafka.tools.consumer.ConsoleConsumer', ['--bootstrap-server', sasl, '--topic', TOPIC, '--from-beginning',
    '--max-messages', '2', '--timeout-ms', '30000', '--command-config', login, '--group', 'dt-group']);
  assert.is(cons.code, 0, describeRun(cons));
  assert.equal(cons.stdout.trim().split('\n'), ['d1', 'd2']);
});

test('a token created by admin for bob (--owner-principal, CREATE_TOKENS as super user) logs in as bob, whom no ACL allows the topic', async () => {
  if (missing) return void console.log(`skipped: ${missing}`);
  const bobToken = await create(scramUser('admin'), ['--owner-principal', 'User:bob']);
  const d = await tokens(scramUser('admin'), sasl, ['--describe', '--owner-principal', 'User:bob']);
  const row = rows(d.stdout).find((x) => x.tokenId === bobToken.tokenId);
  assert.equal([row?.owner, row?.requester], ['User:bob', 'User:admin'], describeRun(d));
  const prod = await produce(tokenLogin('bob', bobToken), 'x\n');
  assert.match(prod.stdout + prod.stderr, /TopicAuthorizationException|Not authorized to access topics: \[dt-java\]/, describeRun(prod));
});

test('token management is refused on a token-authenticated connection and on PLAINTEXT, with Kafka\'s message', async () => {
  if (missing) return void console.log(`skipped: ${missing}`);
  const message = 'Delegation Token requests are not allowed on PLAINTEXT/1-way SSL channels and on delegation token authenticated channels.';
  const viaToken = await tokens(tokenLogin('alice', aliceToken), sasl, ['--create', '--max-life-time-period', '-1']);
  assert.match(viaToken.stdout + viaToken.stderr, message, describeRun(viaToken));
  const viaPlain = await tokens(props('plain', { 'security.protocol': 'PLAINTEXT' }), plaintext, ['--describe']);
  assert.match(viaPlain.stdout + viaPlain.stderr, message, describeRun(viaPlain));
});

test('kafka-delegation-tokens --expire -1 removes the token: it is no longer described and no longer logs in', async () => {
  if (missing) return void console.log(`skipped: ${missing}`);
  const t = await create(scramUser('alice'));
  assert.is((await produce(tokenLogin('doomed', t), 'e1\n')).code, 0, 'logs in before');
  const r = await tokens(scramUser('alice'), sasl, ['--expire', '--hmac', t.hmac, '--expiry-time-period', '-1']);
  assert.is(r.code, 0, describeRun(r));
  assert.match(r.stdout, 'Completed expire operation. New expiry date');
  const d = await tokens(scramUser('alice'), sasl, ['--describe', '--owner-principal', 'User:alice']);
  assert.match(d.stdout, 'Total number of tokens', describeRun(d));
  assert.not.ok(rows(d.stdout).some((x) => x.tokenId === t.tokenId), describeRun(d));
  const prod = await produce(tokenLogin('doomed', t), 'e2\n');
  assert.match(prod.stdout + prod.stderr, 'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512', describeRun(prod));
});

test('a token past its expiry is removed by the expiry check (delegation.token.expiry.check.interval.ms) and refused from then on', async () => {
  if (missing) return void console.log(`skipped: ${missing}`);
  const t = await create(scramUser('alice'));
  const r = await tokens(scramUser('alice'), sasl, ['--expire', '--hmac', t.hmac, '--expiry-time-period', '1']);
  assert.is(r.code, 0, describeRun(r));
  const admin = await KafkaClient.connect({ bootstrap: sasl, security: { protocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'SCRAM-SHA-256', username: 'admin', password: 'admin-secret' } } });
  try {
    const deadline = Date.now() + 15_000;
    while ((await admin.send(41, 3, { owners: null })).tokens.some((x) => x.tokenId === t.tokenId)) {
      assert.ok(Date.now() < deadline, 'the expiry check removes the token');
      await new Promise((res) => setTimeout(res, 200));
    }
  } finally {
    admin.close();
  }
  const prod = await produce(tokenLogin('expired', t), 'x\n');
  assert.match(prod.stdout + prod.stderr, 'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512', describeRun(prod));
});

test.run();
