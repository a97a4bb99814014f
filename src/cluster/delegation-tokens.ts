/**
 * Delegation tokens as the metadata store keeps them (KIP-48; Kafka's DelegationTokenRecord /
 * RemoveDelegationTokenRecord and, per broker, DelegationTokenCache): the token's information,
 * never its HMAC (every broker computes it from `delegation.token.secret.key`), plus the SCRAM
 * credentials derived from that HMAC for each SCRAM mechanism, so a token authenticates on any
 * broker with one store read, like a user's SCRAM credential (scram-credentials.ts).
 *
 * Principals keep type and name apart (a requested owner's type may be any text); a connection's
 * principal string (`User:alice`) is the two joined by a colon. Timestamps are epoch ms.
 *
 * Every change is a compare-and-set on the token's `version`, which the store hands out (etcd:
 * the key's mod revision; the local store: a counter); version 0 means "absent". A change made
 * from a stale read therefore fails instead of undoing another broker's renewal or removal.
 */
import type { ScramCredentialRecord } from './scram-credentials.js';

/** Kafka's KafkaPrincipal: equal when type and name are (tokenAuthenticated is not compared). */
export interface TokenPrincipal {
  principalType: string;
  name: string;
}

export function principalString(p: TokenPrincipal): string {
  return `${p.principalType}:${p.name}`;
}

/** A connection's principal string (`User:alice`, split at the first colon, as Kafka parses it). */
export function parsePrincipal(s: string): TokenPrincipal {
  const i = s.indexOf(':');
  return i < 0 ? { principalType: 'User', name: s } : { principalType: s.slice(0, i), name: s.slice(i + 1) };
}

export function samePrincipal(a: TokenPrincipal, b: TokenPrincipal): boolean {
  return a.principalType === b.principalType && a.name === b.name;
}

export interface DelegationTokenRecord {
  /** A random UUID (Kafka's Uuid.randomUuid().toString()); the SCRAM user name of the token. */
  tokenId: string;
  /** Whose identity the token carries. */
  owner: TokenPrincipal;
  /** Who created it (differs from owner when created for another user, KIP-373). */
  tokenRequester: TokenPrincipal;
  /** Besides the owner, who may renew or expire it. */
  renewers: TokenPrincipal[];
  issueTimestamp: number;
  /** Beyond this the token cannot be renewed. */
  maxTimestamp: number;
  /** Renewal moves this, never past maxTimestamp. */
  expirationTimestamp: number;
  /** One per SCRAM mechanism, user = tokenId, password = base64 of the HMAC. */
  scramCredentials: ScramCredentialRecord[];
}

/** A stored token and the version a compare-and-set on it must name. */
export interface StoredDelegationToken {
  token: DelegationTokenRecord;
  version: number;
}

export function cloneDelegationToken(t: DelegationTokenRecord): DelegationTokenRecord {
  return {
    ...t, owner: { ...t.owner }, tokenRequester: { ...t.tokenRequester }, renewers: t.renewers.map((r) => ({ ...r })),
    scramCredentials: t.scramCredentials.map((c) => ({ ...c })),
  };
}
