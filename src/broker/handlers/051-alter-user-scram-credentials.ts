/**
 * AlterUserScramCredentials (key 51), version 0 (KIP-554).
 *
 * Behavior (Kafka's ScramControlManager.alterCredentials, ALTER on the cluster first):
 * - Upsertions carry the salt, iteration count and salted password the client computed; the
 *   broker keeps salt, StoredKey, ServerKey and iterations (never the salted password).
 * - A user may appear once per request: a second deletion or upsertion of the same user, in
 *   either list, answers DUPLICATE_RESOURCE ("A user credential cannot be altered twice in the
 *   same request") and drops that user's changes.
 * - An empty name is UNACCEPTABLE_CREDENTIAL "Username must not be empty"; an unknown mechanism
 *   UNSUPPORTED_SASL_MECHANISM "Unknown SCRAM mechanism"; iterations below 4096 "Too few
 *   iterations", above 16384 "Too many iterations" (UNACCEPTABLE_CREDENTIAL); deleting a missing
 *   credential RESOURCE_NOT_FOUND "Attempt to delete a user credential that does not exist".
 * - The valid changes are stored atomically with the cluster metadata (survive restarts), then
 *   answered per user: deletions, upsertions, errors.
 * - Not authorized: CLUSTER_AUTHORIZATION_FAILED for every user.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { AclOperation, requireCluster } from './auth-helper.js';
import { SCRAM_MECHANISMS, scramCredentialFromSaltedPassword, scramMechanismByType } from '../../security/sasl/scram.js';
import { scramKey, type ScramCredentialChange, type ScramMechanismName } from '../../cluster/scram-credentials.js';

type ApiError = { code: number; message: string };
const DUPLICATE: ApiError = { code: ErrorCode.DUPLICATE_RESOURCE, message: 'A user credential cannot be altered twice in the same request' };

function validateName(name: string, mechanism: ScramMechanismName | null): ApiError | null {
  if (name === '') return { code: ErrorCode.UNACCEPTABLE_CREDENTIAL, message: 'Username must not be empty' };
  if (mechanism === null) return { code: ErrorCode.UNSUPPORTED_SASL_MECHANISM, message: 'Unknown SCRAM mechanism' };
  return null;
}

export const alterUserScramCredentialsHandler = defineHandler({
  apiKey: 51,
  async handle(ctx, req) {
    requireCluster(ctx, AclOperation.ALTER);
    const store = ctx.broker.cluster.store;
    const existing = new Set((await store.listScramCredentials()).map((c) => scramKey(c.user, c.mechanism)));
    const deletions = new Map<string, ScramCredentialChange>();
    const upserts = new Map<string, ScramCredentialChange>();
    const errors = new Map<string, ApiError>();
    for (const d of req.deletions) {
      if (errors.has(d.name)) continue;
      if (deletions.delete(d.name)) {
        errors.set(d.name, DUPLICATE);
        continue;
      }
      const mechanism = scramMechanismByType(d.mechanism);
      const err = validateName(d.name, mechanism)
        ?? (existing.has(scramKey(d.name, mechanism!)) ? null : { code: ErrorCode.RESOURCE_NOT_FOUND, message: 'Attempt to delete a user credential that does not exist' });
      if (err) errors.set(d.name, err);
      else deletions.set(d.name, { kind: 'delete', user: d.name, mechanism: mechanism! });
    }
    for (const u of req.upsertions) {
      if (errors.has(u.name)) continue;
      if (deletions.delete(u.name) || upserts.delete(u.name)) {
        errors.set(u.name, DUPLICATE);
        continue;
      }
      const mechanism = scramMechanismByType(u.mechanism);
      let err = validateName(u.name, mechanism);
      if (!err) {
        const spec = SCRAM_MECHANISMS[mechanism!];
        if (u.iterations < spec.minIterations) err = { code: ErrorCode.UNACCEPTABLE_CREDENTIAL, message: 'Too few iterations' };
        else if (u.iterations > spec.maxIterations) err = { code: ErrorCode.UNACCEPTABLE_CREDENTIAL, message: 'Too many iterations' };
      }
      if (err) errors.set(u.name, err);
      else upserts.set(u.name, { kind: 'upsert', credential: scramCredentialFromSaltedPassword(u.name, mechanism!, u.salt, u.saltedPassword, u.iterations) });
    }
    const changes = [...deletions.values(), ...upserts.values()];
    if (changes.length > 0) {
      await store.alterScramCredentials(changes, ctx.broker.metadataWriter.fence);
    }
    const ok = (user: string) => ({ user, errorCode: ErrorCode.NONE, errorMessage: null });
    return {
      throttleTimeMs: 0,
      results: [
        ...[...deletions.keys()].map(ok),
        ...[...upserts.keys()].map(ok),
        ...[...errors].map(([user, e]) => ({ user, errorCode: e.code, errorMessage: e.message })),
      ],
    };
  },
  errorResponse(req, errorCode) {
    const users = new Set([...req.deletions.map((d) => d.name), ...req.upsertions.map((u) => u.name)]);
    return { throttleTimeMs: 0, results: [...users].map((user) => ({ user, errorCode, errorMessage: null })) };
  },
});
