/**
 * Group configs: the per-group settings set on GROUP resources (resource type 32) with
 * IncrementalAlterConfigs / AlterConfigs and read with DescribeConfigs (Kafka's GroupConfig,
 * KIP-848 / KIP-932 / KIP-1071 / KIP-1191, as Kafka 4.4 defines them), and their effective values
 * for a group (Kafka's GroupConfigManager).
 *
 * - GROUP_CONFIGS is Kafka 4.4's GroupConfig.CONFIG_DEF: name, type, default, ConfigDef lower
 *   bound, whether it is internal (described only when set), and the broker setting it overrides
 *   (ALL_GROUP_CONFIG_SYNONYMS), whose value is the group's default.
 * - validateGroupConfigs checks a group's whole new override set in Kafka's order: names
 *   ("Unknown group config name: X"), then each value as ConfigDef parses it ("Invalid value V for
 *   configuration X: ..."), then the broker's min/max bounds and the session > heartbeat rule
 *   (GroupConfig.validateValues), each an INVALID_CONFIG.
 * - GroupConfigManager follows the overrides in the cluster metadata (MetadataImage.groupConfigs)
 *   and resolves a group's effective values: the override, capped to the broker's current bounds
 *   as Kafka 4.4's GroupConfig.evaluate caps it, else the broker setting, else the default.
 *
 * Broker settings Samsa does not define (most group.share.* and group.streams.* ones) are read as
 * Kafka 4.4's defaults until the settings table gains them; the lookup then finds them there.
 */
import { KafkaApiError } from '../../errors.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { ConfigSource, ConfigType, type ConfigEntry, type ConfigSynonym } from '../../config.js';

type GroupConfigType = 'int' | 'long' | 'boolean' | 'string' | 'list';

export interface GroupConfigDef {
  type: GroupConfigType;
  /** Kafka's default as text (null: none; the broker synonym always supplies one). */
  default: string | null;
  /** ConfigDef.Range.atLeast. */
  atLeast?: number;
  /** ConfigDef.ValidString.in. */
  oneOf?: readonly string[];
  /** Defined with defineInternal: DescribeConfigs lists it only where a group sets it. */
  internal?: boolean;
  /** The broker setting whose value is every group's default (GroupConfig.ALL_GROUP_CONFIG_SYNONYMS). */
  broker?: string;
  /** GroupConfig.validateValues: broker settings bounding an override (min, max; either may be absent). */
  bounds?: { min?: string; max?: string };
  doc: string;
}

/** Kafka 4.4's GroupConfig.CONFIG_DEF, in its definition order. */
export const GROUP_CONFIGS = {
  'consumer.session.timeout.ms': {
    type: 'int', default: '45000', atLeast: 1, broker: 'group.consumer.session.timeout.ms',
    bounds: { min: 'group.consumer.min.session.timeout.ms', max: 'group.consumer.max.session.timeout.ms' },
    doc: 'Session timeout of this consumer group\'s members (consumer protocol): a member that sends no heartbeat for this long is removed.',
  },
  'consumer.heartbeat.interval.ms': {
    type: 'int', default: '5000', atLeast: 1, broker: 'group.consumer.heartbeat.interval.ms',
    bounds: { min: 'group.consumer.min.heartbeat.interval.ms', max: 'group.consumer.max.heartbeat.interval.ms' },
    doc: 'Heartbeat interval given to this consumer group\'s members.',
  },
  'consumer.assignment.interval.ms': {
    type: 'int', default: '1000', atLeast: 0, broker: 'group.consumer.assignment.interval.ms',
    bounds: { min: 'group.consumer.min.assignment.interval.ms', max: 'group.consumer.max.assignment.interval.ms' },
    doc: 'Least time between two target assignments of this consumer group.',
  },
  'consumer.assignor.offload.enable': {
    type: 'boolean', default: 'true', internal: true, broker: 'group.consumer.assignor.offload.enable',
    doc: 'Whether the assignor of this consumer group runs off the coordinator thread.',
  },
  'share.session.timeout.ms': {
    type: 'int', default: '45000', atLeast: 1, broker: 'group.share.session.timeout.ms',
    bounds: { min: 'group.share.min.session.timeout.ms', max: 'group.share.max.session.timeout.ms' },
    doc: 'Session timeout of this share group\'s members.',
  },
  'share.heartbeat.interval.ms': {
    type: 'int', default: '5000', atLeast: 1, broker: 'group.share.heartbeat.interval.ms',
    bounds: { min: 'group.share.min.heartbeat.interval.ms', max: 'group.share.max.heartbeat.interval.ms' },
    doc: 'Heartbeat interval given to this share group\'s members.',
  },
  'share.record.lock.duration.ms': {
    type: 'int', default: '30000', atLeast: 1000, broker: 'group.share.record.lock.duration.ms',
    bounds: { min: 'group.share.min.record.lock.duration.ms', max: 'group.share.max.record.lock.duration.ms' },
    doc: 'How long a record delivered to a member of this share group stays acquired by it.',
  },
  'share.delivery.count.limit': {
    type: 'int', default: '5', atLeast: 2, broker: 'group.share.delivery.count.limit',
    bounds: { min: 'group.share.min.delivery.count.limit', max: 'group.share.max.delivery.count.limit' },
    doc: 'Delivery attempts of a record to this share group before it is archived.',
  },
  'share.partition.max.record.locks': {
    type: 'int', default: '2000', atLeast: 100, broker: 'group.share.partition.max.record.locks',
    bounds: { min: 'group.share.min.partition.max.record.locks', max: 'group.share.max.partition.max.record.locks' },
    doc: 'Records of one share-partition that may be acquired at the same time.',
  },
  'share.auto.offset.reset': {
    type: 'string', default: 'latest',
    doc: 'Where a share-partition starts: earliest, latest, or by_duration:<ISO-8601 duration> before now.',
  },
  'share.isolation.level': {
    type: 'string', default: 'read_uncommitted', oneOf: ['read_committed', 'read_uncommitted'],
    doc: 'read_committed: the share group receives committed transactional records only; read_uncommitted: all records.',
  },
  'share.renew.acknowledge.enable': {
    type: 'boolean', default: 'true',
    doc: 'Whether members of this share group may renew their acquisition locks (the RENEW acknowledgement).',
  },
  'share.assignment.interval.ms': {
    type: 'int', default: '1000', atLeast: 0, broker: 'group.share.assignment.interval.ms',
    bounds: { min: 'group.share.min.assignment.interval.ms', max: 'group.share.max.assignment.interval.ms' },
    doc: 'Least time between two target assignments of this share group.',
  },
  'share.assignor.offload.enable': {
    type: 'boolean', default: 'true', internal: true, broker: 'group.share.assignor.offload.enable',
    doc: 'Whether the assignor of this share group runs off the coordinator thread.',
  },
  'streams.session.timeout.ms': {
    type: 'int', default: '45000', atLeast: 1, broker: 'group.streams.session.timeout.ms',
    bounds: { min: 'group.streams.min.session.timeout.ms', max: 'group.streams.max.session.timeout.ms' },
    doc: 'Session timeout of this streams group\'s members.',
  },
  'streams.heartbeat.interval.ms': {
    type: 'int', default: '5000', atLeast: 1, broker: 'group.streams.heartbeat.interval.ms',
    bounds: { min: 'group.streams.min.heartbeat.interval.ms', max: 'group.streams.max.heartbeat.interval.ms' },
    doc: 'Heartbeat interval given to this streams group\'s members.',
  },
  'streams.num.standby.replicas': {
    type: 'int', default: '0', atLeast: 0, broker: 'group.streams.num.standby.replicas',
    bounds: { max: 'group.streams.max.standby.replicas' },
    doc: 'Standby replicas of each task of this streams group.',
  },
  'streams.initial.rebalance.delay.ms': {
    type: 'int', default: '3000', atLeast: 0, broker: 'group.streams.initial.rebalance.delay.ms',
    doc: 'How long a new streams group waits for more members before its first assignment.',
  },
  'streams.assignment.interval.ms': {
    type: 'int', default: '1000', atLeast: 0, broker: 'group.streams.assignment.interval.ms',
    bounds: { min: 'group.streams.min.assignment.interval.ms', max: 'group.streams.max.assignment.interval.ms' },
    doc: 'Least time between two target assignments of this streams group.',
  },
  'streams.assignor.offload.enable': {
    type: 'boolean', default: 'true', internal: true, broker: 'group.streams.assignor.offload.enable',
    doc: 'Whether the assignor of this streams group runs off the coordinator thread.',
  },
  'streams.task.offset.interval.ms': {
    type: 'int', default: '60000', atLeast: 1, internal: true, broker: 'group.streams.task.offset.interval.ms',
    bounds: { min: 'group.streams.min.task.offset.interval.ms' },
    doc: 'How often members of this streams group report their warm-up tasks\' changelog offsets.',
  },
  'streams.num.warmup.replicas': {
    type: 'int', default: '2', atLeast: 0, internal: true, broker: 'group.streams.num.warmup.replicas',
    bounds: { max: 'group.streams.max.warmup.replicas' },
    doc: 'Warm-up task replicas of this streams group.',
  },
  'streams.rack.aware.assignment.tags': {
    type: 'list', default: '', broker: 'group.streams.rack.aware.assignment.tags',
    doc: 'Client tag keys across which standby replicas of this streams group are spread.',
  },
  'streams.acceptable.recovery.lag': {
    type: 'long', default: '10000', atLeast: 0, internal: true, broker: 'group.streams.acceptable.recovery.lag',
    doc: 'Offsets a member of this streams group may lag behind and still count as caught up.',
  },
  'streams.assignor.name': {
    type: 'string', default: null, broker: 'group.streams.assignors',
    doc: 'Task assignor of this streams group, by short name among group.streams.assignors (default: the first).',
  },
  'errors.deadletterqueue.topic.name': {
    type: 'string', default: '',
    doc: 'Dead-letter queue topic of this share group (blank: none).',
  },
  'errors.deadletterqueue.copy.record.enable': {
    type: 'boolean', default: 'false',
    doc: 'Whether a record sent to the dead-letter queue carries the original record or only the context headers.',
  },
  // Samsa only (issue 14): the redelivery backoff of share groups (coordinator/share/share-partition.ts);
  // internal, so DescribeConfigs lists them only where a group sets them (as Kafka lists its own).
  'samsa.share.redelivery.backoff.ms': {
    type: 'int', default: '0', atLeast: 0, internal: true,
    doc: 'Samsa only: a record released or timed out after its n-th delivery is offered again after this x 2^(n-1) ms (0: at once, as Kafka).',
  },
  'samsa.share.redelivery.backoff.max.ms': {
    type: 'int', default: '60000', atLeast: 0, internal: true,
    doc: 'Samsa only: the longest redelivery backoff of this share group.',
  },
} as const satisfies Record<string, GroupConfigDef>;

export type GroupConfigName = keyof typeof GROUP_CONFIGS;

type ValueOf<T extends GroupConfigType> = T extends 'int' | 'long' ? number : T extends 'boolean' ? boolean : T extends 'list' ? string[] : string;

/** Every group config's effective value for one group, by Kafka's names (ints and longs as numbers). */
export type ResolvedGroupConfig = { readonly [K in GroupConfigName]: ValueOf<(typeof GROUP_CONFIGS)[K]['type']> };

const DEFS: Record<string, GroupConfigDef> = GROUP_CONFIGS;
const NAMES = Object.keys(GROUP_CONFIGS) as GroupConfigName[];

export function isGroupConfigName(name: string): name is GroupConfigName {
  return Object.prototype.hasOwnProperty.call(GROUP_CONFIGS, name);
}

/**
 * Kafka 4.4's defaults of the broker settings group configs default to or are bounded by
 * (GroupCoordinatorConfig, ShareGroupConfig), for those Samsa's settings table does not define.
 */
const KAFKA_BROKER_DEFAULTS: Record<string, string> = {
  'group.consumer.session.timeout.ms': '45000', 'group.consumer.min.session.timeout.ms': '45000', 'group.consumer.max.session.timeout.ms': '60000',
  'group.consumer.heartbeat.interval.ms': '5000', 'group.consumer.min.heartbeat.interval.ms': '5000', 'group.consumer.max.heartbeat.interval.ms': '15000',
  'group.consumer.assignment.interval.ms': '1000', 'group.consumer.min.assignment.interval.ms': '0', 'group.consumer.max.assignment.interval.ms': '15000',
  'group.consumer.assignor.offload.enable': 'true',
  'group.share.session.timeout.ms': '45000', 'group.share.min.session.timeout.ms': '45000', 'group.share.max.session.timeout.ms': '60000',
  'group.share.heartbeat.interval.ms': '5000', 'group.share.min.heartbeat.interval.ms': '5000', 'group.share.max.heartbeat.interval.ms': '15000',
  'group.share.record.lock.duration.ms': '30000', 'group.share.min.record.lock.duration.ms': '15000', 'group.share.max.record.lock.duration.ms': '60000',
  'group.share.delivery.count.limit': '5', 'group.share.min.delivery.count.limit': '2', 'group.share.max.delivery.count.limit': '10',
  'group.share.partition.max.record.locks': '2000', 'group.share.min.partition.max.record.locks': '100', 'group.share.max.partition.max.record.locks': '4000',
  'group.share.assignment.interval.ms': '1000', 'group.share.min.assignment.interval.ms': '0', 'group.share.max.assignment.interval.ms': '15000',
  'group.share.assignor.offload.enable': 'true',
  'group.streams.session.timeout.ms': '45000', 'group.streams.min.session.timeout.ms': '45000', 'group.streams.max.session.timeout.ms': '60000',
  'group.streams.heartbeat.interval.ms': '5000', 'group.streams.min.heartbeat.interval.ms': '5000', 'group.streams.max.heartbeat.interval.ms': '15000',
  'group.streams.num.standby.replicas': '0', 'group.streams.max.standby.replicas': '2', 'group.streams.initial.rebalance.delay.ms': '3000',
  'group.streams.assignment.interval.ms': '1000', 'group.streams.min.assignment.interval.ms': '0', 'group.streams.max.assignment.interval.ms': '15000',
  'group.streams.assignor.offload.enable': 'true', 'group.streams.task.offset.interval.ms': '60000', 'group.streams.min.task.offset.interval.ms': '15000',
  'group.streams.num.warmup.replicas': '2', 'group.streams.max.warmup.replicas': '20', 'group.streams.rack.aware.assignment.tags': '',
  'group.streams.acceptable.recovery.lag': '10000', 'group.streams.assignors': 'sticky',
};

/** The broker's settings as the group configs read them (BrokerConfig fits; tests pass plain objects). */
export interface GroupConfigBroker {
  readonly [name: string]: unknown;
  readonly explicit?: Readonly<Record<string, unknown>>;
}

function brokerText(v: unknown): string {
  return Array.isArray(v) ? v.map(String).join(',') : String(v);
}

/** A broker setting's value as text, and whether the broker's configuration sets it. */
export function brokerSetting(broker: GroupConfigBroker, name: string): { value: string; explicit: boolean } {
  const v = broker[name];
  if (v !== undefined && v !== null) return { value: brokerText(v), explicit: broker.explicit?.[name] !== undefined };
  return { value: KAFKA_BROKER_DEFAULTS[name] ?? '', explicit: false };
}

/** The value a group config has without an override: its broker setting's, else Kafka's default. */
function inheritedValue(broker: GroupConfigBroker, name: GroupConfigName): string {
  const def = DEFS[name];
  if (def.broker === undefined) return def.default ?? '';
  const { value } = brokerSetting(broker, def.broker);
  // streams.assignor.name defaults to the first of group.streams.assignors.
  return name === 'streams.assignor.name' ? value.split(',')[0].trim() : value;
}

/** A broker with no settings: every group.* setting at Kafka 4.4's default. */
const KAFKA_DEFAULTS_ONLY: GroupConfigBroker = {};

function brokerInt(broker: GroupConfigBroker, name: string): number {
  return Number(brokerSetting(broker, name).value);
}

// ---------------------------------------------------------------------------------------------
// Parsing and validation (ConfigDef.parse, GroupConfig.validate)

const invalid = (message: string) => new KafkaApiError(ErrorCode.INVALID_CONFIG, message);
const INT_RE = /^[+-]?\d+$/;
/** java.time.Duration.parse's accepted form, without signs (Kafka refuses negative durations). */
const DURATION_RE = /^P(?:\d+D)?(?:T(?=\d)(?:\d+H)?(?:\d+M)?(?:\d+(?:[.,]\d{1,9})?S)?)?$/i;

function validAutoOffsetReset(v: string): boolean {
  if (v === 'earliest' || v === 'latest') return true;
  if (!v.startsWith('by_duration:')) return false;
  const d = v.slice('by_duration:'.length);
  return d !== 'P' && DURATION_RE.test(d);
}

/** One value as Kafka's ConfigDef parses and validates it; returns the typed value or throws INVALID_CONFIG. */
function parseValue(name: GroupConfigName, raw: string): number | boolean | string | string[] {
  const def = DEFS[name];
  const bad = (reason: string) => invalid(`Invalid value ${raw} for configuration ${name}: ${reason}`);
  const v = raw.trim();
  switch (def.type) {
    case 'int':
    case 'long': {
      const type = def.type === 'int' ? 'INT' : 'LONG';
      if (!INT_RE.test(v)) throw bad(`Not a number of type ${type}`);
      const n = BigInt(v);
      const [lo, hi] = def.type === 'int' ? [-(2n ** 31n), 2n ** 31n - 1n] : [-(2n ** 63n), 2n ** 63n - 1n];
      if (n < lo || n > hi) throw bad(`Not a number of type ${type}`);
      if (def.atLeast !== undefined && n < BigInt(def.atLeast)) throw bad(`Value must be at least ${def.atLeast}`);
      return Number(n);
    }
    case 'boolean':
      if (v.toLowerCase() === 'true') return true;
      if (v.toLowerCase() === 'false') return false;
      throw bad('Expected value to be either true or false');
    case 'list':
      return v === '' ? [] : v.split(',').map((s) => s.trim());
    case 'string':
      if (def.oneOf && !def.oneOf.includes(v)) throw bad(`String must be one of: ${def.oneOf.join(', ')}`);
      if (name === 'share.auto.offset.reset' && !validAutoOffsetReset(v)) {
        throw bad(`Invalid value \`${v}\` for configuration ${name}. The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'.`);
      }
      return v;
  }
}

/** The session timeout / heartbeat interval pairs GroupConfig.validateValues compares. */
const SESSION_PAIRS: [GroupConfigName, GroupConfigName][] = [
  ['consumer.session.timeout.ms', 'consumer.heartbeat.interval.ms'],
  ['share.session.timeout.ms', 'share.heartbeat.interval.ms'],
  ['streams.session.timeout.ms', 'streams.heartbeat.interval.ms'],
];

/** GroupConfig.validateValues's order of the bounded configs. */
const BOUND_ORDER: GroupConfigName[] = [
  'consumer.heartbeat.interval.ms', 'consumer.session.timeout.ms', 'consumer.assignment.interval.ms',
  'share.heartbeat.interval.ms', 'share.session.timeout.ms', 'share.record.lock.duration.ms', 'share.delivery.count.limit',
  'share.partition.max.record.locks', 'share.assignment.interval.ms',
  'streams.heartbeat.interval.ms', 'streams.session.timeout.ms', 'streams.num.standby.replicas', 'streams.assignment.interval.ms',
  'streams.task.offset.interval.ms', 'streams.num.warmup.replicas',
];

/** A parsed value as Kafka stores it (ConfigDef.convertToString): "TRUE" → "true", " 5 " → "5", "a, b" → "a,b". */
function valueText(v: number | boolean | string | string[]): string {
  return Array.isArray(v) ? v.join(',') : String(v);
}

/**
 * Validates a group's whole new override set (Kafka's GroupConfig.validate) and returns it as
 * Kafka stores it (each value in its parsed form); throws KafkaApiError(INVALID_CONFIG) with Kafka
 * 4.4's message for the first problem. Null values are the caller's to refuse (INVALID_REQUEST).
 */
export function validateGroupConfigs(overrides: Readonly<Record<string, string>>, broker: GroupConfigBroker): Record<string, string> {
  for (const name of Object.keys(overrides)) if (!isGroupConfigName(name)) throw invalid(`Unknown group config name: ${name}`);
  const parsed = new Map<GroupConfigName, number | boolean | string | string[]>();
  for (const name of NAMES) if (Object.prototype.hasOwnProperty.call(overrides, name)) parsed.set(name, parseValue(name, overrides[name]));
  for (const name of BOUND_ORDER) {
    const value = parsed.get(name) as number | undefined;
    const bounds = DEFS[name].bounds;
    if (value === undefined || !bounds) continue;
    const min = bounds.min === undefined ? undefined : brokerInt(broker, bounds.min);
    const max = bounds.max === undefined ? undefined : brokerInt(broker, bounds.max);
    if (min !== undefined && max !== undefined) {
      if (value < min || value > max) throw invalid(`${name} must be in the range ${min} to ${max} inclusive.`);
    } else if (max !== undefined && value > max) {
      throw invalid(`${name} must be less than or equal to ${max}`);
    } else if (min !== undefined && value < min) {
      throw invalid(`${name} must be greater than or equal to ${min}`);
    }
  }
  const tags = parsed.get('streams.rack.aware.assignment.tags') as string[] | undefined;
  if (tags && new Set(tags).size !== tags.length) throw invalid('streams.rack.aware.assignment.tags must not contain duplicate tag keys.');
  for (const [session, heartbeat] of SESSION_PAIRS) {
    if (!parsed.has(session) && !parsed.has(heartbeat)) continue;
    const s = (parsed.get(session) as number | undefined) ?? Number(inheritedValue(broker, session));
    const h = (parsed.get(heartbeat) as number | undefined) ?? Number(inheritedValue(broker, heartbeat));
    if (s <= h) throw invalid(`${session} must be greater than ${heartbeat}`);
  }
  const dlq = parsed.get('errors.deadletterqueue.topic.name') as string | undefined;
  if (dlq && dlq.startsWith('__')) throw invalid("errors.deadletterqueue.topic.name: DLQ topic name must not start with '__'");
  const out: Record<string, string> = {};
  for (const name of Object.keys(overrides)) out[name] = valueText(parsed.get(name as GroupConfigName)!);
  return out;
}

/**
 * Effective values of every group config for a group with these overrides: an override capped to
 * the broker's current bounds (Kafka 4.4's GroupConfig.evaluate: bounds may have narrowed since it
 * was set), else the broker setting, else Kafka's default.
 */
export function resolveGroupConfig(overrides: Readonly<Record<string, string>>, broker: GroupConfigBroker): ResolvedGroupConfig {
  const out: Record<string, unknown> = {};
  for (const name of NAMES) {
    let value: number | boolean | string | string[];
    const own = overrides[name];
    try {
      value = parseValue(name, own ?? inheritedValue(broker, name));
    } catch {
      // A stored value is validated when set; a broker setting Samsa's table checks. Fall back.
      value = parseValue(name, DEFS[name].default ?? '');
    }
    const bounds = DEFS[name].bounds;
    if (own !== undefined && bounds && typeof value === 'number') {
      if (bounds.min !== undefined) value = Math.max(value, brokerInt(broker, bounds.min));
      if (bounds.max !== undefined) value = Math.min(value, brokerInt(broker, bounds.max));
    }
    out[name] = value;
  }
  return out as ResolvedGroupConfig;
}

const TYPE_CODE: Record<GroupConfigType, number> = {
  int: ConfigType.INT, long: ConfigType.LONG, boolean: ConfigType.BOOLEAN, string: ConfigType.STRING, list: ConfigType.LIST,
};

/**
 * A group's configs as DescribeConfigs lists them (Kafka's ConfigHelper for GROUP resources),
 * sorted by name: every config but the internal ones not set; an override is
 * DYNAMIC_GROUP_CONFIG (8), then the broker setting as synonyms (STATIC_BROKER_CONFIG when the
 * broker's configuration sets it, followed by the setting's default as DEFAULT_CONFIG, else only
 * DEFAULT_CONFIG); a config without a broker setting has itself at its default as that synonym.
 * The entry's source is its first synonym's.
 */
export function describeGroupConfigs(overrides: Readonly<Record<string, string>>, broker: GroupConfigBroker): ConfigEntry[] {
  const out: ConfigEntry[] = [];
  for (const name of [...NAMES].sort()) {
    const def = DEFS[name];
    const own = overrides[name];
    if (def.internal && own === undefined) continue;
    const synonyms: ConfigSynonym[] = [];
    if (own !== undefined) synonyms.push({ name, value: own, source: ConfigSource.GROUP_CONFIG });
    if (def.broker !== undefined) {
      const b = brokerSetting(broker, def.broker);
      if (b.explicit) {
        // As Kafka 4.4 lists it: the static setting, then the setting's default.
        synonyms.push({ name: def.broker, value: inheritedValue(broker, name), source: ConfigSource.STATIC_BROKER_CONFIG });
        synonyms.push({ name: def.broker, value: inheritedValue(KAFKA_DEFAULTS_ONLY, name), source: ConfigSource.DEFAULT_CONFIG });
      } else {
        synonyms.push({ name: def.broker, value: inheritedValue(broker, name), source: ConfigSource.DEFAULT_CONFIG });
      }
    } else {
      synonyms.push({ name, value: def.default, source: ConfigSource.DEFAULT_CONFIG });
    }
    out.push({
      name, value: synonyms[0].value, readOnly: false, isDefault: false, configSource: synonyms[0].source, isSensitive: false,
      synonyms, configType: TYPE_CODE[def.type], documentation: def.doc,
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// GroupConfigManager

/** What the coordinators need: a group's effective values (GroupConfigManager fits; tests pass a fake). */
export interface GroupConfigLookup {
  resolve(groupId: string): ResolvedGroupConfig;
}

/** Where the overrides live: the metadata cache (MetadataCache fits). */
export interface GroupConfigSource {
  readonly groupConfigs: ReadonlyMap<string, Readonly<Record<string, string>>>;
  on(event: 'change', listener: (change: { events: readonly { kind: string; groupId?: string }[]; resynced: boolean }) => void): unknown;
  off(event: 'change', listener: (...args: any[]) => void): unknown;
}

/** Called with the group whose overrides changed, or null when any group's may have (a resync). */
export type GroupConfigListener = (groupId: string | null) => void;

const NONE: Readonly<Record<string, string>> = Object.freeze({});

/**
 * Every group's configs on this broker (Kafka's GroupConfigManager), following the cluster
 * metadata, so every broker of a cluster sees the same overrides and they survive restarts.
 *
 *   const c = broker.groupConfigs.resolve('my-share-group');
 *   c['share.record.lock.duration.ms'];  // number, broker default filled in
 *   const stop = broker.groupConfigs.onChange((groupId) => { ... });
 *
 * resolve() is cached per group until its overrides change.
 */
export class GroupConfigManager implements GroupConfigLookup {
  private readonly resolved = new Map<string, ResolvedGroupConfig>();
  private readonly listeners = new Set<GroupConfigListener>();
  private readonly onCacheChange = (change: { events: readonly { kind: string; groupId?: string }[]; resynced: boolean }) => {
    if (change.resynced) {
      this.resolved.clear();
      this.emit(null);
      return;
    }
    for (const e of change.events) {
      if (e.kind !== 'groupConfig' || e.groupId === undefined) continue;
      this.resolved.delete(e.groupId);
      this.emit(e.groupId);
    }
  };

  constructor(readonly broker: GroupConfigBroker, private readonly source: GroupConfigSource) {
    source.on('change', this.onCacheChange);
  }

  /** The overrides set on a group (empty when none). */
  overrides(groupId: string): Readonly<Record<string, string>> {
    return this.source.groupConfigs.get(groupId) ?? NONE;
  }

  /** The effective value of every group config for a group, broker defaults filled in. */
  resolve(groupId: string): ResolvedGroupConfig {
    let r = this.resolved.get(groupId);
    if (!r) {
      r = resolveGroupConfig(this.overrides(groupId), this.broker);
      this.resolved.set(groupId, r);
    }
    return r;
  }

  /** DescribeConfigs entries of a group. */
  describe(groupId: string): ConfigEntry[] {
    return describeGroupConfigs(this.overrides(groupId), this.broker);
  }

  /** Subscribes to override changes; returns the unsubscribe function. */
  onChange(listener: GroupConfigListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  close(): void {
    this.source.off('change', this.onCacheChange);
    this.listeners.clear();
  }

  private emit(groupId: string | null): void {
    for (const l of this.listeners) {
      try {
        l(groupId);
      } catch {
        // A listener's failure is its own; the others still hear of the change.
      }
    }
  }
}
