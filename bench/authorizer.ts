/**
 * Cost of an ACL check (security/authorizer.ts): a memoised decision, and a first decision over
 * 1000 literal and 200 prefixed ACLs. Prints ns per check.
 *
 *   npx tsx bench/authorizer.ts
 */
import { EventEmitter } from 'node:events';
import { StandardAuthorizer } from '../src/security/authorizer.js';
import type { AclBinding } from '../src/protocol/acl.js';

const cache = Object.assign(new EventEmitter(), { acls: new Map<string, AclBinding>() });
for (let i = 0; i < 1000; i++) {
  cache.acls.set(`l${i}`, { resourceType: 2, resourceName: `topic-${i}`, patternType: 3, principal: `User:u${i % 50}`, host: '*', operation: 3, permissionType: 3 });
}
for (let i = 0; i < 200; i++) {
  cache.acls.set(`p${i}`, { resourceType: 2, resourceName: `pre-${i}-`, patternType: 4, principal: 'User:*', host: '*', operation: 4, permissionType: 3 });
}
const auth = new StandardAuthorizer(new Set(), false, cache as never);
const N = 1_000_000;
let t = process.hrtime.bigint();
let allowed = 0;
for (let i = 0; i < N; i++) if (auth.authorize('User:u7', '10.1.2.3:45678', 3, 2, 'topic-7')) allowed++;
const hit = Number(process.hrtime.bigint() - t) / N;
const M = 20_000;
t = process.hrtime.bigint();
for (let i = 0; i < M; i++) {
  auth.reload(); // forget the memo: every check below is a first decision
  if (auth.authorize('User:u7', '10.1.2.3:45678', 4, 2, 'pre-150-x')) allowed++;
}
const miss = Number(process.hrtime.bigint() - t) / M;
console.log(`memoised check: ${hit.toFixed(0)} ns; first decision (with a re-index of 1200 ACLs): ${(miss / 1000).toFixed(1)} µs; allowed ${allowed}`);
