/**
 * Client quotas (security/quotas.ts): Kafka's precedence of entities, the windowed rate and the
 * throttle time (ManualClock), a throttled fetch's bytes taken back, muting bookkeeping, the
 * entity and value validation messages, and the describe filter.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventEmitter } from 'node:events';
import { ManualClock } from '../../src/clock.js';
import { quotaEntityKey, type ClientQuotaRecord } from '../../src/cluster/metadata-store.js';
import { ClientQuotaManager, describeQuotas, quotaUser, validateEntity, validateQuotaValue } from '../../src/security/quotas.js';

type E = [string, string | null][];
const rec = (entity: E, values: Record<string, number>): ClientQuotaRecord => ({ entity: entity.map(([entityType, entityName]) => ({ entityType, entityName })), values });

function setup(records: ClientQuotaRecord[], samples = 2, windowMs = 1000) {
  const cache = Object.assign(new EventEmitter(), { quotas: new Map(records.map((r) => [quotaEntityKey(r.entity), r])) });
  const clock = new ManualClock();
  const q = new ClientQuotaManager(cache as never, samples, windowMs, clock);
  return { q, clock, cache };
}

test('no byte-rate quota: inactive, nothing throttled', () => {
  const { q } = setup([rec([['user', 'a']], { request_percentage: 50 })]);
  assert.is(q.active, false);
  assert.is(q.record('producer_byte_rate', 'User:a', 'c', 1e9), 0);
});

test('precedence: user+client, user+default client, user, default user..., client, default client', () => {
  const { q } = setup([
    rec([['client-id', null]], { producer_byte_rate: 8 }),
    rec([['client-id', 'app']], { producer_byte_rate: 7 }),
    rec([['user', null]], { producer_byte_rate: 6 }),
    rec([['user', 'alice']], { producer_byte_rate: 3 }),
    rec([['user', 'alice'], ['client-id', null]], { producer_byte_rate: 2 }),
    rec([['user', 'alice'], ['client-id', 'app']], { producer_byte_rate: 1 }),
  ]);
  const quota = (principal: string, clientId: string) => (q as any).quotaFor('producer_byte_rate', quotaUser(principal), clientId)?.quota;
  assert.is(quota('User:alice', 'app'), 1);
  assert.is(quota('User:alice', 'other'), 2);
  assert.is(quota('User:bob', 'app'), 6);
  const clientsOnly = setup([rec([['client-id', null]], { producer_byte_rate: 8 }), rec([['client-id', 'app']], { producer_byte_rate: 7 })]).q;
  assert.is((clientsOnly as any).quotaFor('producer_byte_rate', 'bob', 'app').quota, 7);
  assert.is((clientsOnly as any).quotaFor('producer_byte_rate', 'bob', 'x').quota, 8);
  assert.is(quotaUser('User:ANONYMOUS'), 'ANONYMOUS');
});

test('rate over the window; throttle = (rate - quota) / quota x window, at most one sample', () => {
  const { q, clock } = setup([rec([['client-id', 'c']], { producer_byte_rate: 1000 })], 2, 1000);
  assert.is(q.active, true);
  // 500 bytes over the padded 1 s window: 500 B/s, within the quota.
  assert.is(q.record('producer_byte_rate', 'User:x', 'c', 500), 0);
  // 1500 bytes within the first second: 1500 B/s → (1500-1000)/1000 x 1000 ms = 500 ms.
  assert.is(q.record('producer_byte_rate', 'User:x', 'c', 1000), 500);
  // Far above: capped at one sample (1000 ms).
  assert.is(q.record('producer_byte_rate', 'User:x', 'c', 100_000), 1000);
  // Two windows later the old samples are gone.
  clock.advance(2500);
  assert.is(q.record('producer_byte_rate', 'User:x', 'c', 100), 0);
  // Another client id has no quota.
  assert.is(q.record('producer_byte_rate', 'User:x', 'other', 1e9), 0);
});

test('a throttled fetch does not count; mutes are taken once per connection', () => {
  const { q } = setup([rec([['client-id', 'c']], { consumer_byte_rate: 1000 })], 2, 1000);
  assert.ok(q.record('consumer_byte_rate', 'User:x', 'c', 5000, false) > 0);
  // The 5000 bytes were taken back: 900 more are within the quota.
  assert.is(q.record('consumer_byte_rate', 'User:x', 'c', 900, false), 0);
  q.throttle(7, 300);
  q.throttle(7, 200);
  assert.is(q.takeThrottle(7), 300);
  assert.is(q.takeThrottle(7), 0);
  assert.is(q.takeThrottle(8), 0);
});

test('request_percentage: handler time as a percentage of the window; parking and exempt APIs are not counted', () => {
  const { q } = setup([rec([['client-id', 'c']], { request_percentage: 1 })], 2, 1000);
  assert.is(q.active, false);
  assert.is(q.requestActive, true);
  // 1% of the (padded) 1 s window is 10 ms.
  assert.is(q.recordRequestTime(3, 'User:x', 'c', 5), 0);
  for (const api of [1, 11, 14, 17, 18, 36]) assert.is(q.recordRequestTime(api, 'User:x', 'c', 1000), 0, `api ${api}`);
  // 5 + 10 ms = 1.5% → (1.5 - 1) / 1 x 1000 ms = 500 ms.
  assert.is(q.recordRequestTime(32, 'User:x', 'c', 10), 500);
});

test('controller_mutation_rate: a token bucket; strict refuses below zero, permissive accepts and throttles', () => {
  const { q, clock } = setup([rec([['client-id', 'c']], { controller_mutation_rate: 2 })]);
  q.mutationBurstSeconds = 2; // 4 tokens
  assert.equal(q.mutate('User:x', 'c', 3, true), { accepted: true, throttleMs: 0 }); // 1 left
  assert.equal(q.mutate('User:x', 'c', 3, true), { accepted: true, throttleMs: 0 }); // -2
  assert.equal(q.mutate('User:x', 'c', 1, true), { accepted: false, throttleMs: 1000 }); // 2 tokens to refill at 2/s
  clock.advance(500);
  assert.is(q.mutationThrottle('User:x', 'c'), 500);
  clock.advance(600); // refilled to 0.2
  assert.equal(q.mutate('User:x', 'c', 1, false), { accepted: true, throttleMs: 400 }); // -0.8 → 0.4 s
  assert.equal(q.mutate('User:x', 'c', 3, false), { accepted: true, throttleMs: 1900 }); // -3.8 → 1.9 s
  // Other clients have no quota.
  assert.equal(q.mutate('User:x', 'other', 100, true), { accepted: true, throttleMs: 0 });
});

test('changes in the cache are picked up', () => {
  const { q, cache } = setup([]);
  assert.is(q.active, false);
  const r = rec([['client-id', 'c']], { producer_byte_rate: 10 });
  cache.quotas.set(quotaEntityKey(r.entity), r);
  cache.emit('change', { events: [{ kind: 'quota' }], resynced: false });
  assert.is(q.active, true);
  assert.ok(q.record('producer_byte_rate', 'User:x', 'c', 1000) > 0);
});

test('validation messages', () => {
  const e = (x: E) => x.map(([entityType, entityName]) => ({ entityType, entityName }));
  assert.equal(validateEntity([]), { error: 'Invalid empty client quota entity' });
  assert.equal(validateEntity(e([['user', 'a'], ['user', 'b']])), { error: 'Invalid empty client quota entity, duplicate entity entry user' });
  assert.equal(validateEntity(e([['topic', 't']])), { error: 'Unhandled client quota entity type: topic' });
  assert.equal(validateEntity(e([['client-id', '']])), { error: 'Empty client-id not supported' });
  assert.equal(validateEntity(e([['ip', '10.0.0.1'], ['user', 'a']])), { error: 'Invalid empty client quota entity' });
  const keys = (validateEntity(e([['user', 'a']])) as { keys: Record<string, 'long' | 'double'> }).keys;
  assert.is(validateQuotaValue(keys, 'producer_byte_rate', 10), null);
  assert.is(validateQuotaValue(keys, 'request_percentage', 12.5), null);
  assert.is(validateQuotaValue(keys, 'producer_byte_rate', 10.5), 'producer_byte_rate cannot be a fractional value.');
  assert.is(validateQuotaValue(keys, 'connection_creation_rate', 1), 'Invalid configuration key connection_creation_rate');
});

test('describe filter: exact, default, any, strict', () => {
  const all = [rec([['user', 'a']], { producer_byte_rate: 1 }), rec([['user', 'a'], ['client-id', 'c']], { producer_byte_rate: 2 }), rec([['user', null]], { producer_byte_rate: 3 })];
  const names = (r: ReturnType<typeof describeQuotas>) => ('entries' in r ? r.entries.map((x) => quotaEntityKey(x.entity)) : r);
  assert.equal((names(describeQuotas(all, [{ entityType: 'user', matchType: 0, match: 'a' }], false)) as string[]).length, 2);
  assert.equal(names(describeQuotas(all, [{ entityType: 'user', matchType: 0, match: 'a' }], true)), [quotaEntityKey(all[0].entity)]);
  assert.equal(names(describeQuotas(all, [{ entityType: 'user', matchType: 1, match: null }], false)), [quotaEntityKey(all[2].entity)]);
  assert.equal(names(describeQuotas(all, [{ entityType: 'client-id', matchType: 2, match: null }], false)), [quotaEntityKey(all[1].entity)]);
  assert.equal(describeQuotas(all, [{ entityType: 'ip', matchType: 2, match: null }, { entityType: 'user', matchType: 2, match: null }], false),
    { errorCode: 42, message: 'Invalid entity filter component combination, IP filter component should not be used with user or clientId filter component.' });
});

test.run();
