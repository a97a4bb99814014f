/**
 * DescribeUserScramCredentials (key 50), version 0 (KIP-554).
 *
 * Behavior (Kafka's ScramImage.describe, DESCRIBE on the cluster first):
 * - No users (null or empty): every user with a credential, each with its mechanisms and
 *   iteration counts (never salts or keys).
 * - Named users: a user named twice gets DUPLICATE_RESOURCE ("Cannot describe SCRAM credentials
 *   for the same user twice in a single request: <user>"), one without credentials
 *   RESOURCE_NOT_FOUND ("Attempt to describe a user credential that does not exist: <user>").
 * - Not authorized: CLUSTER_AUTHORIZATION_FAILED at the top level.
 * - Success messages are "" rather than null, at the top and per user, as Kafka writes them.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { AclOperation, requireCluster } from './auth-helper.js';
import { SCRAM_MECHANISMS } from '../../security/sasl/scram.js';
import type { ScramCredentialRecord } from '../../cluster/scram-credentials.js';

export const describeUserScramCredentialsHandler = defineHandler({
  apiKey: 50,
  async handle(ctx, req) {
    requireCluster(ctx, AclOperation.DESCRIBE);
    const all = await ctx.broker.cluster.store.listScramCredentials();
    const byUser = new Map<string, ScramCredentialRecord[]>();
    for (const c of all) {
      let list = byUser.get(c.user);
      if (!list) byUser.set(c.user, (list = []));
      list.push(c);
    }
    const infos = (user: string) => (byUser.get(user) ?? [])
      .map((c) => ({ mechanism: SCRAM_MECHANISMS[c.mechanism].type, iterations: c.iterations }))
      .sort((a, b) => a.mechanism - b.mechanism);
    const results = [];
    if (req.users === null || req.users.length === 0) {
      for (const user of [...byUser.keys()].sort()) results.push({ user, errorCode: ErrorCode.NONE, errorMessage: '', credentialInfos: infos(user) });
    } else {
      const counts = new Map<string, number>();
      for (const u of req.users) counts.set(u.name, (counts.get(u.name) ?? 0) + 1);
      for (const [user, n] of counts) {
        if (n > 1) {
          results.push({ user, errorCode: ErrorCode.DUPLICATE_RESOURCE, errorMessage: `Cannot describe SCRAM credentials for the same user twice in a single request: ${user}`, credentialInfos: [] });
        } else if (!byUser.has(user)) {
          results.push({ user, errorCode: ErrorCode.RESOURCE_NOT_FOUND, errorMessage: `Attempt to describe a user credential that does not exist: ${user}`, credentialInfos: [] });
        } else {
          results.push({ user, errorCode: ErrorCode.NONE, errorMessage: '', credentialInfos: infos(user) });
        }
      }
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: '', results };
  },
  errorResponse(_req, errorCode) {
    return { throttleTimeMs: 0, errorCode, errorMessage: null, results: [] };
  },
});
