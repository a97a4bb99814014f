/**
 * Probes: DescribeUserScramCredentials (50) and AlterUserScramCredentials (51), v0, on brokers
 * without an authorizer: listing with no credentials, unknown and duplicated users, Kafka's
 * validation of upsertions and deletions (empty name, unknown mechanism, too few / too many
 * iterations, a user twice, deleting what does not exist), then an upsert seen by describe and
 * deleted again. Results are compared sorted by user (Kafka answers in hash-map order).
 */
import { createHash } from 'node:crypto';
import { sortAt, type Json } from './normalise.js';
import type { Probe, ProbeCtx } from './runner.js';

const byUser = (j: Json): Json => sortAt(j, 'results', 'user');
const salt = createHash('sha256').update('probe-salt').digest().subarray(0, 16);
// Any 32 bytes do as a salted password: the broker derives StoredKey and ServerKey from it.
const salted = createHash('sha256').update('probe-password').digest();
const upsert = (name: string, mechanism = 1, iterations = 4096) => ({ name, mechanism, iterations, salt, saltedPassword: salted });

async function waitDescribed(ctx: ProbeCtx, user: string, present: boolean): Promise<void> {
  await ctx.waitFor(`${user} ${present ? 'described' : 'gone'}`, async () => {
    const r = await ctx.call(50, 0, { users: [{ name: user }] });
    return (r.results?.[0]?.errorCode === 0) === present;
  });
}

function probe(api: number, id: string, about: string, body: Record<string, unknown>, extra: Partial<Probe> = {}): Probe {
  return { id: `scram/${id}`, api, version: 0, about, body, normalise: byUser, ...extra };
}

export function scramProbes(): Probe[] {
  return [
    probe(50, 'describe-all-none', 'DescribeUserScramCredentials of every user before any exists', { users: null }),
    probe(50, 'describe-unknown', 'an unknown user: RESOURCE_NOT_FOUND with the user in the message', { users: [{ name: 'ps-nobody' }] }),
    probe(50, 'describe-duplicate', 'a user named twice: DUPLICATE_RESOURCE', { users: [{ name: 'ps-twice' }, { name: 'ps-twice' }, { name: 'ps-nobody' }] }),
    probe(51, 'alter-invalid', 'validation of deletions and upsertions, one result per user', {
      deletions: [{ name: 'ps-ghost', mechanism: 1 }, { name: '', mechanism: 1 }, { name: 'ps-mech', mechanism: 7 }],
      upsertions: [upsert('ps-few', 1, 1024), upsert('ps-many', 2, 20000), upsert('ps-dup'), upsert('ps-dup', 2)],
    }),
    probe(51, 'alter-upsert', 'a SCRAM-SHA-256 and a SCRAM-SHA-512 user', { deletions: [], upsertions: [upsert('ps-alice'), upsert('ps-bob', 2, 8192)] }, {
      after: async (ctx) => {
        await waitDescribed(ctx, 'ps-alice', true);
        await waitDescribed(ctx, 'ps-bob', true);
      },
    }),
    probe(50, 'describe-users', 'the users just created, with mechanism and iterations', { users: [{ name: 'ps-alice' }, { name: 'ps-bob' }] }),
    probe(51, 'alter-delete', 'deleting one credential, and one of a mechanism the user does not have', { deletions: [{ name: 'ps-alice', mechanism: 1 }, { name: 'ps-bob', mechanism: 1 }], upsertions: [] }, {
      after: (ctx) => waitDescribed(ctx, 'ps-alice', false),
    }),
  ];
}
