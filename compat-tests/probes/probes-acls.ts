/**
 * Probes: client quotas (Q1-Q8: AlterClientQuotas and DescribeClientQuotas, Kafka's validation).
 * DescribeAcls, CreateAcls, DeleteAcls (A1-A9) on brokers without an authorizer (the
 * suite's settings): SECURITY_DISABLED at the lowest and highest advertised versions, and the
 * requests Kafka cannot parse (a code 0 in a binding or filter: the connection closes). What an
 * authorizer decides is compared with real Kafka in compat-tests/acls-differential.test.ts.
 */
import { sortAt, type Json } from './normalise.js';
import type { Probe, ProbeCtx } from './runner.js';

const ANY = 1;
const anyFilter = { resourceTypeFilter: ANY, resourceNameFilter: null, patternTypeFilter: ANY, principalFilter: null, hostFilter: null, operation: ANY, permissionType: ANY };
const creation = (o: Record<string, unknown> = {}) => ({
  resourceType: 2, resourceName: 'acl-topic', resourcePatternType: 3, principal: 'User:alice', host: '*', operation: 3, permissionType: 3, ...o,
});

function probe(api: number, id: string, version: number, about: string, body: Record<string, unknown>): Probe {
  return { id: `acls/${id}`, api, version, about, body };
}

export function aclProbes(): Probe[] {
  return [
    probe(29, 'describe-v1-disabled', 1, 'DescribeAcls without an authorizer: SECURITY_DISABLED (A1)', anyFilter),
    probe(29, 'describe-v3-disabled', 3, 'DescribeAcls v3 (flexible) without an authorizer (A1)', { ...anyFilter, resourceTypeFilter: 2, resourceNameFilter: 't', patternTypeFilter: 2 }),
    probe(29, 'describe-v3-unknown', 3, 'a filter with operation 0 (UNKNOWN) is unparseable (A2)', { ...anyFilter, operation: 0 }),
    probe(30, 'create-v1-disabled', 1, 'CreateAcls without an authorizer: SECURITY_DISABLED per creation (A3)', { creations: [creation(), creation({ resourceName: 'other' })] }),
    probe(30, 'create-v3-disabled', 3, 'CreateAcls v3 without an authorizer (A3)', { creations: [creation({ resourcePatternType: 4 })] }),
    probe(30, 'create-v3-unknown', 3, 'a creation with resource type 0 is unparseable (A4)', { creations: [creation({ resourceType: 0 })] }),
    probe(31, 'delete-v1-disabled', 1, 'DeleteAcls without an authorizer: SECURITY_DISABLED per filter (A5)', { filters: [anyFilter] }),
    probe(31, 'delete-v3-disabled', 3, 'DeleteAcls v3 without an authorizer (A5)', { filters: [anyFilter, { ...anyFilter, patternTypeFilter: 2, resourceNameFilter: 'x' }] }),
    probe(31, 'delete-v3-unknown', 3, 'a filter with permission 0 is unparseable (A6)', { filters: [{ ...anyFilter, permissionType: 0 }] }),
  ];
}

const ent = (...pairs: [string, string | null][]) => pairs.map(([entityType, entityName]) => ({ entityType, entityName }));
const setOp = (key: string, value: number) => ({ key, value, remove: false });

/** Kafka answers quota entities and values in its hash maps' order: compare them sorted. */
function sortQuotas(j: Json): Json {
  sortAt(j, 'entries.[].entity', 'entityType');
  sortAt(j, 'entries.[].values', 'key');
  return sortAt(j, 'entries', (x) => JSON.stringify((x as Record<string, Json>).entity));
}

/**
 * Kafka applies AlterClientQuotas through its metadata log, so a describe right after may see the
 * old values: wait until `components` match `count` entities before the next probe.
 */
const quotasSettled = (components: unknown[], count: number, strict = false) => (ctx: ProbeCtx) =>
  ctx.waitFor(`quotas: ${count} entities for ${JSON.stringify(components)}`, async () => {
    const r = await ctx.call(48, 1, { components, strict });
    return (r.entries?.length ?? 0) === count;
  });

export function quotaProbes(): Probe[] {
  const alter = (id: string, version: number, about: string, entries: unknown[], validateOnly = false, after?: (ctx: ProbeCtx) => Promise<void>): Probe =>
    ({ id: `quotas/${id}`, api: 49, version, about, body: { entries, validateOnly }, normalise: sortQuotas, ...(after ? { after } : {}) });
  const probeQ = [{ entityType: 'client-id', matchType: 0, match: 'probe-q' }];
  const defaultClient = [{ entityType: 'client-id', matchType: 1, match: null }];
  const describe = (id: string, version: number, about: string, components: unknown[], strict = false): Probe =>
    ({ id: `quotas/${id}`, api: 48, version, about, body: { components, strict }, normalise: sortQuotas });
  return [
    alter('alter-v0-set', 0, 'set a client-id quota and a user+client quota (Q1)', [
      { entity: ent(['client-id', 'probe-q']), ops: [setOp('producer_byte_rate', 1048576), setOp('consumer_byte_rate', 2097152)] },
      { entity: ent(['user', 'probe-u'], ['client-id', 'probe-q']), ops: [setOp('request_percentage', 25)] },
    ], false, quotasSettled(probeQ, 2)),
    alter('alter-v1-default', 1, 'the default client-id entity (Q2)', [{ entity: ent(['client-id', null]), ops: [setOp('consumer_byte_rate', 4194304)] }], false, quotasSettled(defaultClient, 1, true)),
    alter('alter-v1-invalid', 1, 'invalid entities and keys, one error each (Q3)', [
      { entity: ent(['user', '']), ops: [setOp('producer_byte_rate', 1)] },
      { entity: ent(['group', 'g']), ops: [setOp('producer_byte_rate', 1)] },
      { entity: ent(['user', 'probe-v']), ops: [setOp('no_such_quota', 1)] },
      { entity: ent(['user', 'probe-w']), ops: [setOp('producer_byte_rate', 1.5)] },
    ]),
    alter('alter-v1-validate-only', 1, 'validate_only stores nothing (Q4)', [{ entity: ent(['user', 'probe-x']), ops: [setOp('producer_byte_rate', 10)] }], true),
    describe('describe-v0-exact', 0, 'exact client-id match, not strict (Q5)', [{ entityType: 'client-id', matchType: 0, match: 'probe-q' }]),
    describe('describe-v1-strict', 1, 'strict exact match (Q6)', [{ entityType: 'client-id', matchType: 0, match: 'probe-q' }], true),
    describe('describe-v1-default', 1, 'the default client-id entity (Q7)', [{ entityType: 'client-id', matchType: 1, match: null }], true),
    describe('describe-v1-validate-only-left-nothing', 1, 'after validate_only (Q4)', [{ entityType: 'user', matchType: 0, match: 'probe-x' }]),
    describe('describe-v1-duplicate-type', 1, 'a type twice in the filter (Q8)', [{ entityType: 'user', matchType: 2, match: null }, { entityType: 'user', matchType: 1, match: null }]),
    describe('describe-v1-unsupported-type', 1, 'an unknown entity type (Q8)', [{ entityType: 'topic', matchType: 2, match: null }]),
    alter('alter-v1-remove', 1, 'remove every key: the entities are gone (Q1)', [
      { entity: ent(['client-id', 'probe-q']), ops: [{ key: 'producer_byte_rate', value: 0, remove: true }, { key: 'consumer_byte_rate', value: 0, remove: true }] },
      { entity: ent(['user', 'probe-u'], ['client-id', 'probe-q']), ops: [{ key: 'request_percentage', value: 0, remove: true }] },
      { entity: ent(['client-id', null]), ops: [{ key: 'consumer_byte_rate', value: 0, remove: true }] },
    ], false, async (ctx) => { await quotasSettled(probeQ, 0)(ctx); await quotasSettled(defaultClient, 0, true)(ctx); }),
    describe('describe-v1-after-remove', 1, 'nothing left for probe-q (Q1)', [{ entityType: 'client-id', matchType: 0, match: 'probe-q' }]),
  ];
}
