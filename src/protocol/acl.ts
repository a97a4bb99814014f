/**
 * ACL vocabulary as Kafka puts it on the wire (org.apache.kafka.common.acl / .resource): resource
 * types, pattern types, operations and permission types with their codes and names; bindings
 * (a resource pattern plus an access-control entry), filters over them and their matching rules.
 *
 * Matching rules (Kafka's ResourcePatternFilter / AccessControlEntryFilter):
 * - a filter field ANY (or a null name, principal or host) matches everything;
 * - pattern type MATCH matches LITERAL patterns with the same name or the wildcard "*", and
 *   PREFIXED patterns the name starts with; ANY or a concrete type compares names exactly;
 * - a code outside an enumeration reads as UNKNOWN (Kafka's fromCode), which no binding or
 *   filter may contain.
 */

export const ResourceType = {
  UNKNOWN: 0, ANY: 1, TOPIC: 2, GROUP: 3, CLUSTER: 4, TRANSACTIONAL_ID: 5, DELEGATION_TOKEN: 6, USER: 7,
} as const;
export const PatternType = { UNKNOWN: 0, ANY: 1, MATCH: 2, LITERAL: 3, PREFIXED: 4 } as const;
export const AclOperation = {
  UNKNOWN: 0, ANY: 1, ALL: 2, READ: 3, WRITE: 4, CREATE: 5, DELETE: 6, ALTER: 7, DESCRIBE: 8, CLUSTER_ACTION: 9,
  DESCRIBE_CONFIGS: 10, ALTER_CONFIGS: 11, IDEMPOTENT_WRITE: 12, CREATE_TOKENS: 13, DESCRIBE_TOKENS: 14, TWO_PHASE_COMMIT: 15,
} as const;
export const AclPermissionType = { UNKNOWN: 0, ANY: 1, DENY: 2, ALLOW: 3 } as const;

export type ResourceTypeCode = number;
export type OperationCode = number;

/** The name of the single CLUSTER resource (Kafka's Resource.CLUSTER_NAME). */
export const CLUSTER_NAME = 'kafka-cluster';
/** The resource name and host that match any (Kafka's ResourcePattern.WILDCARD_RESOURCE). */
export const WILDCARD = '*';
/** The principal an ACL names to match every user. */
export const WILDCARD_PRINCIPAL = 'User:*';

function namesOf(e: Record<string, number>): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(e)) out[v] = k;
  return out;
}
const RESOURCE_NAMES = namesOf(ResourceType);
const PATTERN_NAMES = namesOf(PatternType);
const OPERATION_NAMES = namesOf(AclOperation);
const PERMISSION_NAMES = namesOf(AclPermissionType);

/** Kafka's fromCode: a code outside the enumeration is UNKNOWN (0). */
export function known(code: number, names: readonly string[]): number {
  return code > 0 && code < names.length ? code : 0;
}
export const resourceTypeName = (c: number): string => RESOURCE_NAMES[known(c, RESOURCE_NAMES)];
export const patternTypeName = (c: number): string => PATTERN_NAMES[known(c, PATTERN_NAMES)];
export const operationName = (c: number): string => OPERATION_NAMES[known(c, OPERATION_NAMES)];
export const permissionName = (c: number): string => PERMISSION_NAMES[known(c, PERMISSION_NAMES)];

/** One ACL: who (principal, host) may or may not do what (operation) on which resources (pattern). */
export interface AclBinding {
  resourceType: number;
  resourceName: string;
  patternType: number;
  principal: string;
  host: string;
  operation: number;
  permissionType: number;
}

/** A filter over bindings (DescribeAcls, DeleteAcls); null strings match anything. */
export interface AclBindingFilter {
  resourceType: number;
  resourceName: string | null;
  patternType: number;
  principal: string | null;
  host: string | null;
  operation: number;
  permissionType: number;
}

/** Bindings and filters with every code read through fromCode (unknown codes become UNKNOWN). */
export function normalizeBinding<T extends AclBinding | AclBindingFilter>(b: T): T {
  return {
    ...b,
    resourceType: known(b.resourceType, RESOURCE_NAMES),
    patternType: known(b.patternType, PATTERN_NAMES),
    operation: known(b.operation, OPERATION_NAMES),
    permissionType: known(b.permissionType, PERMISSION_NAMES),
  };
}

/**
 * Whether any code on the wire is 0 (UNKNOWN): Kafka's request parsing refuses that and closes the
 * connection. Codes outside an enumeration pass the parse and read as UNKNOWN afterwards.
 */
export function hasUnknown(b: AclBinding | AclBindingFilter): boolean {
  return b.resourceType === 0 || b.patternType === 0 || b.operation === 0 || b.permissionType === 0;
}

/** Kafka's check of a DeleteAcls filter (the controller's validateFilter): null or the INVALID_REQUEST message. */
export function validateFilter(f: AclBindingFilter): string | null {
  if (f.resourceType === 0 || f.patternType === 0) return 'Unknown patternFilter.';
  if (f.operation === 0 || f.permissionType === 0) return 'Unknown entryFilter.';
  return null;
}

export function patternMatches(f: AclBindingFilter, b: AclBinding): boolean {
  if (f.resourceType !== ResourceType.ANY && f.resourceType !== b.resourceType) return false;
  if (f.patternType !== PatternType.ANY && f.patternType !== PatternType.MATCH && f.patternType !== b.patternType) return false;
  if (f.resourceName === null) return true;
  if (f.patternType !== PatternType.MATCH) return f.resourceName === b.resourceName;
  switch (b.patternType) {
    case PatternType.LITERAL: return f.resourceName === b.resourceName || b.resourceName === WILDCARD;
    case PatternType.PREFIXED: return f.resourceName.startsWith(b.resourceName);
    default: return false;
  }
}

export function entryMatches(f: AclBindingFilter, b: AclBinding): boolean {
  if (f.principal !== null && f.principal !== b.principal) return false;
  if (f.host !== null && f.host !== b.host) return false;
  if (f.operation !== AclOperation.ANY && f.operation !== b.operation) return false;
  return f.permissionType === AclPermissionType.ANY || f.permissionType === b.permissionType;
}

export function filterMatches(f: AclBindingFilter, b: AclBinding): boolean {
  return patternMatches(f, b) && entryMatches(f, b);
}

/** Identity of a binding, for de-duplication (Kafka keeps each distinct ACL once). */
export function bindingKey(b: AclBinding): string {
  return [b.resourceType, b.patternType, b.operation, b.permissionType, b.resourceName, b.principal, b.host].join('\u0000');
}

/**
 * Kafka's checks on a new ACL (the broker's AclApis, then the controller's validateNewAcl), for a
 * binding whose codes went through fromCode: null when valid, else the error code and message.
 * A filter-only value (ANY, MATCH) fails as Kafka 4.4 fails building the binding:
 * UNKNOWN_SERVER_ERROR without a message; an UNKNOWN code (outside the enumeration) is
 * INVALID_REQUEST "Invalid <field> UNKNOWN".
 */
export function validateNewAcl(b: AclBinding): { errorCode: number; message: string | null } | null {
  const invalid = (message: string) => ({ errorCode: 42, message });
  if (b.resourceType === ResourceType.CLUSTER && b.resourceName !== CLUSTER_NAME) {
    return invalid(`The only valid name for the CLUSTER resource is ${CLUSTER_NAME}`);
  }
  if (b.resourceName === '') return invalid('Invalid empty resource name');
  if (b.resourceType === ResourceType.ANY || b.patternType === PatternType.ANY || b.patternType === PatternType.MATCH
    || b.operation === AclOperation.ANY || b.permissionType === AclPermissionType.ANY) {
    return { errorCode: -1, message: null };
  }
  if (b.resourceType === ResourceType.UNKNOWN) return invalid(`Invalid resourceType ${resourceTypeName(b.resourceType)}`);
  if (b.patternType === PatternType.UNKNOWN) return invalid(`Invalid patternType ${patternTypeName(b.patternType)}`);
  if (b.operation === AclOperation.UNKNOWN) return invalid(`Invalid operation ${operationName(b.operation)}`);
  if (b.permissionType === AclPermissionType.UNKNOWN) return invalid(`Invalid permissionType ${permissionName(b.permissionType)}`);
  return null;
}

/** Kafka's KafkaPrincipal parsing of `Type:name` needs a colon. */
export function principalParses(principal: string): boolean {
  return principal.includes(':');
}

/** The operations each resource type supports (authorized-operations bit fields list these). */
export const SUPPORTED_OPERATIONS: Readonly<Record<number, readonly number[]>> = {
  [ResourceType.TOPIC]: [
    AclOperation.READ, AclOperation.WRITE, AclOperation.CREATE, AclOperation.DELETE, AclOperation.ALTER,
    AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS,
  ],
  [ResourceType.GROUP]: [
    AclOperation.READ, AclOperation.DELETE, AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS,
  ],
  [ResourceType.CLUSTER]: [
    AclOperation.CREATE, AclOperation.ALTER, AclOperation.DESCRIBE, AclOperation.CLUSTER_ACTION,
    AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS, AclOperation.IDEMPOTENT_WRITE,
  ],
  [ResourceType.TRANSACTIONAL_ID]: [AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.TWO_PHASE_COMMIT],
  [ResourceType.DELEGATION_TOKEN]: [AclOperation.DESCRIBE],
  [ResourceType.USER]: [AclOperation.CREATE_TOKENS, AclOperation.DESCRIBE_TOKENS],
};

/** The bit field of a set of operations (bit n = operation code n), as authorized_operations carries it. */
export function operationBits(ops: readonly number[]): number {
  let bits = 0;
  for (const op of ops) bits |= 1 << op;
  return bits;
}
