/**
 * Probes: the delegation token APIs (KIP-48: CreateDelegationToken 38, RenewDelegationToken 39,
 * ExpireDelegationToken 40, DescribeDelegationToken 41) at their lowest and highest Kafka 4.4
 * versions. The probes' brokers have only a PLAINTEXT listener and no delegation.token.secret.key,
 * and Kafka refuses token requests on PLAINTEXT before anything else (KafkaApis.allowTokenRequests):
 * DELEGATION_TOKEN_REQUEST_NOT_ALLOWED with Kafka's placeholders (timestamps -1, an empty token id
 * and HMAC, the ANONYMOUS owner). The rest (SASL channels, secret key, tokens) is covered by
 * test/broker/handlers/delegation-tokens.test.ts and test/e2e/delegation-tokens-java.test.ts.
 */
import type { Probe } from './runner.js';

const renewers = [{ principalType: 'User', principalName: 'pdt-bob' }];
const hmac = Buffer.alloc(64, 1);

function probe(api: number, version: number, name: string, about: string, body: Record<string, unknown>): Probe {
  return { id: `delegation-tokens/${name}-v${version}`, api, version, about, body };
}

export function delegationTokenProbes(): Probe[] {
  return [
    probe(38, 1, 'create-plaintext', 'CreateDelegationToken v1 on PLAINTEXT: DELEGATION_TOKEN_REQUEST_NOT_ALLOWED', { renewers, maxLifetimeMs: -1n }),
    probe(38, 3, 'create-plaintext', 'CreateDelegationToken v3 for another owner on PLAINTEXT: refused before the owner check, requester in the answer',
      { ownerPrincipalType: 'User', ownerPrincipalName: 'pdt-owner', renewers, maxLifetimeMs: 3_600_000n }),
    probe(39, 1, 'renew-plaintext', 'RenewDelegationToken v1 on PLAINTEXT: refused, expiry -1', { hmac, renewPeriodMs: -1n }),
    probe(39, 2, 'renew-plaintext', 'RenewDelegationToken v2 on PLAINTEXT: refused, expiry -1', { hmac, renewPeriodMs: 1000n }),
    probe(40, 1, 'expire-plaintext', 'ExpireDelegationToken v1 on PLAINTEXT: refused, expiry -1', { hmac, expiryTimePeriodMs: -1n }),
    probe(40, 2, 'expire-plaintext', 'ExpireDelegationToken v2 on PLAINTEXT: refused, expiry -1', { hmac, expiryTimePeriodMs: 1000n }),
    probe(41, 1, 'describe-plaintext', 'DescribeDelegationToken v1 (all owners) on PLAINTEXT: refused, no tokens', { owners: null }),
    probe(41, 3, 'describe-plaintext', 'DescribeDelegationToken v3 (one owner) on PLAINTEXT: refused, no tokens', { owners: [{ principalType: 'User', principalName: 'pdt-owner' }] }),
  ];
}
