/**
 * Delegation tokens in a cluster: two Samsa brokers on etcd with the same
 * delegation.token.secret.key, clients on a SASL_PLAINTEXT listener (PLAIN for the user,
 * SCRAM-SHA-512 with tokenauth=true for the token), brokers between themselves on a PLAINTEXT one.
 * A token created through broker 1 logs in on broker 2 at once (delegationTokens/<id> in etcd),
 * a renewal through broker 2 is what broker 1 describes, and a removal through broker 2 ends its
 * logins on broker 1.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { KafkaClient } from '../../src/cli/client.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';

const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`cluster delegation tokens: etcd is required under CI: ${missing}`);
let c: TestCluster | null = null;
const clients: KafkaClient[] = [];

test.before(async () => {
  if (missing) return;
  c = await startCluster({
    brokers: 2,
    peerProxies: true,
    config: {
      'listener.security.protocol.map': 'PLAINTEXT:SASL_PLAINTEXT,REPLICATION:PLAINTEXT',
      'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-512',
      'listener.name.plaintext.plain.sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-pw";',
      'delegation.token.secret.key': 'cluster-secret',
    },
  });
});

test.after(async () => {
  for (const k of clients) k.close();
  await c?.cleanup();
});

async function alice(nodeId: number): Promise<KafkaClient> {
  const k = await KafkaClient.connect({
    bootstrap: `127.0.0.1:${c!.broker(nodeId).port}`,
    security: { protocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'PLAIN', username: 'alice', password: 'alice-pw' } },
  });
  clients.push(k);
  return k;
}

function withToken(nodeId: number, tokenId: string, hmac: Buffer): Promise<KafkaClient> {
  return KafkaClient.connect({
    bootstrap: `127.0.0.1:${c!.broker(nodeId).port}`,
    security: { protocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'SCRAM-SHA-512', username: tokenId, password: hmac.toString('base64'), tokenauth: true } },
  }).then((k) => (clients.push(k), k));
}

test('a token made through broker 1 logs in on broker 2; renewed through 2, described by 1; removed through 2, refused by 1', async () => {
  if (!c) return void console.log(`skipped: ${missing}`);
  const one = await alice(1);
  const t = await one.send(38, 3, { ownerPrincipalType: null, ownerPrincipalName: null, renewers: [], maxLifetimeMs: -1n });
  assert.is(t.errorCode, 0);
  const viaToken = await withToken(2, t.tokenId, t.hmac);
  const md = await viaToken.send(3, 12, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
  assert.equal(md.brokers.map((b) => b.nodeId).sort(), [1, 2], 'the token logged in on broker 2');
  const refused = await viaToken.send(38, 3, { ownerPrincipalType: null, ownerPrincipalName: null, renewers: [], maxLifetimeMs: -1n });
  assert.equal([refused.errorCode, refused.principalName], [ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, 'alice'], 'as alice, token-authenticated');

  const two = await alice(2);
  const renewed = await two.send(39, 2, { hmac: t.hmac, renewPeriodMs: 120_000n });
  assert.is(renewed.errorCode, 0);
  const described = await one.send(41, 3, { owners: [{ principalType: 'User', principalName: 'alice' }] });
  assert.equal(described.tokens.map((x) => [x.tokenId, x.expiryTimestamp, x.hmac]), [[t.tokenId, renewed.expiryTimestampMs, t.hmac]], 'broker 1 computes the same HMAC');

  assert.is((await two.send(40, 2, { hmac: t.hmac, expiryTimePeriodMs: -1n })).errorCode, 0);
  const again = await withToken(1, t.tokenId, t.hmac).then(() => 'logged in', (e: Error) => e.message);
  assert.match(again, 'SASL_AUTHENTICATION_FAILED', 'removed on every broker');
  assert.equal((await one.send(41, 3, { owners: null })).tokens, []);
});

test.run();
