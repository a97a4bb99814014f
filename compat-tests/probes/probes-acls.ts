/**
 * Probes: DescribeAcls, CreateAcls, DeleteAcls (A1-A9) on brokers without an authorizer (the
 * suite's settings): SECURITY_DISABLED at the lowest and highest advertised versions, and the
 * requests Kafka cannot parse (a code 0 in a binding or filter: the connection closes). What an
 * authorizer decides is compared with real Kafka in compat-tests/acls-differential.test.ts.
 */
import type { Probe } from './runner.js';

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
