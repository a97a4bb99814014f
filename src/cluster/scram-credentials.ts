/**
 * SCRAM credentials as the metadata store keeps them (Kafka's UserScramCredentialRecord): per user
 * and mechanism the salt, StoredKey, ServerKey and iteration count, never the password. Binary
 * values are base64 in the record.
 */

export type ScramMechanismName = 'SCRAM-SHA-256' | 'SCRAM-SHA-512';

export interface ScramCredentialRecord {
  user: string;
  mechanism: ScramMechanismName;
  /** base64 */
  salt: string;
  /** base64 */
  storedKey: string;
  /** base64 */
  serverKey: string;
  iterations: number;
}

/** One AlterUserScramCredentials change, applied atomically with the others of its request. */
export type ScramCredentialChange =
  | { kind: 'upsert'; credential: ScramCredentialRecord }
  | { kind: 'delete'; user: string; mechanism: ScramMechanismName };

export function scramKey(user: string, mechanism: ScramMechanismName): string {
  return `${mechanism}/${user}`;
}

/** Applies changes to a map keyed by scramKey(); returns the same map. */
export function applyScramChanges(map: Map<string, ScramCredentialRecord>, changes: readonly ScramCredentialChange[]): Map<string, ScramCredentialRecord> {
  for (const c of changes) {
    if (c.kind === 'upsert') map.set(scramKey(c.credential.user, c.credential.mechanism), { ...c.credential });
    else map.delete(scramKey(c.user, c.mechanism));
  }
  return map;
}
