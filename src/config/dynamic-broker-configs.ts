/**
 * Which broker configs may change at runtime, and the checks AlterConfigs /
 * IncrementalAlterConfigs make on a BROKER resource before storing them, in Kafka 4.4's order and
 * words (ConfigAdminManager.validateBrokerConfigChange → DynamicBrokerConfig.validate):
 *
 * 1. incremental operations over the resource's stored configs (prepareBrokerConfigs): an
 *    operation outside 0-3 is INVALID_REQUEST "Unknown operations type N"; APPEND / SUBTRACT only
 *    on list-typed broker settings (INVALID_CONFIG "Unknown config name: K" for names that are not
 *    broker settings, "Config value append is not allowed for config key: K" for other types);
 * 2. validateBrokerConfigs, INVALID_REQUEST each:
 *    - "Cannot update these configs dynamically: [..]": broker settings Kafka does not mark dynamic
 *      (num.partitions, log.retention.hours, advertised.listeners, Samsa's own samsa.*);
 *    - "These security configs can be dynamically updated only per-listener using the listener
 *      prefix: [..]": keystores and truststores without listener.name.<l>.;
 *    - "Invalid value V for configuration K: reason": the type and bounds of each value (a
 *      listener config's by its base name);
 *    - for "" only, "Cannot update these configs at default cluster level, broker id must be
 *      specified: [..]": the per-broker configs (TLS and SASL settings, listener configs other
 *      than connection limits and network threads);
 *    - then the whole new configuration (KafkaConfig's requirements: log.retention.ms, log.roll.ms,
 *      1 MB of dedupe buffer per cleaner thread, …; and what each reconfigurable component checks:
 *      thread pools at most doubled or halved at once, the cleaner's threads likewise, the
 *      tiered-storage retention bounds, class names), the latter wrapped as Kafka wraps them:
 *      "Invalid value <exception>: <message> for configuration Invalid dynamic configuration".
 *
 * Names Kafka does not know are accepted and stored as they are (Kafka keeps them as custom
 * configs), as are listener configs (listener.name.<l>.<config>) for any listener name.
 */
import { KafkaApiError } from '../errors.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import {
  brokerConfigSpec, javaDoubleString, parseSettingText, type BrokerConfig, type SettingSpec,
} from '../config.js';
import { BROKER_SETTINGS } from './settings.js';
import { effectiveBrokerConfig } from './dynamic-broker-view.js';
import {
  ALL_DYNAMIC, CLEANER_CONFIGS, CLUSTER_LEVEL_LISTENER_CONFIGS, KAFKA_STATIC_SETTINGS, LOG_CONFIGS, NOT_KAFKA_SETTINGS,
  PER_BROKER, SSL_STORE_CONFIGS, THREAD_POOLS, listenerConfigBase,
} from './dynamic-broker-names.js';

export { isDynamicBrokerConfig, listenerConfigBase, brokerConfigSynonyms } from './dynamic-broker-names.js';

function refuse(message: string): never {
  throw new KafkaApiError(ErrorCode.INVALID_REQUEST, message);
}

/** A failure of a reconfigurable component's check, as Kafka 4.4 words it when it wraps one. */
function refuseReconfiguration(message: string): never {
  refuse(`Invalid value org.apache.kafka.common.config.ConfigException: ${message} for configuration Invalid dynamic configuration`);
}

const nameList = (names: Iterable<string>) => `[${[...names].sort().join(', ')}]`;

// ---------------------------------------------------------------------------------------------
// 1. Incremental operations

export interface BrokerConfigOp {
  name: string;
  /** 0 SET, 1 DELETE, 2 APPEND, 3 SUBTRACT (legacy AlterConfigs entries arrive as SET). */
  configOperation: number;
  value: string | null;
}

/** Java's String.split(","): trailing empty strings dropped, "" gives [""]. */
function javaSplit(s: string): string[] {
  const parts = s.split(',');
  while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/**
 * The resource's configs after the request (Kafka's ConfigAdminManager.prepareIncrementalConfigs):
 * legacy AlterConfigs replaces them with the listed ones; incremental operations change the
 * stored ones in order.
 */
export function prepareBrokerConfigs(current: Readonly<Record<string, string>>, ops: readonly BrokerConfigOp[], incremental: boolean): Record<string, string> {
  if (!incremental) return Object.fromEntries(ops.map((o) => [o.name, o.value as string]));
  const bad = ops.find((o) => !(o.configOperation >= 0 && o.configOperation <= 3));
  if (bad) refuse(`Unknown operations type ${bad.configOperation}`);
  const next: Record<string, string> = { ...current };
  for (const op of ops) {
    if (op.configOperation === 0) next[op.name] = op.value as string;
    else if (op.configOperation === 1) delete next[op.name];
    else {
      const verb = op.configOperation === 2 ? 'append' : 'subtract';
      const spec = Object.prototype.hasOwnProperty.call(BROKER_SETTINGS, op.name) ? brokerConfigSpec(op.name) : undefined;
      if (!spec && !KAFKA_STATIC_SETTINGS.has(op.name)) throw new KafkaApiError(ErrorCode.INVALID_CONFIG, `Unknown config name: ${op.name}`);
      if (spec?.type !== 'list') throw new KafkaApiError(ErrorCode.INVALID_CONFIG, `Config value ${verb} is not allowed for config key: ${op.name}`);
      const old = javaSplit(next[op.name] ?? spec.default ?? '');
      const given = javaSplit(op.value ?? '');
      const merged = op.configOperation === 2 ? [...old, ...given.filter((v) => !old.includes(v))] : old.filter((v) => !given.includes(v));
      next[op.name] = merged.join(',');
    }
  }
  return next;
}

// ---------------------------------------------------------------------------------------------
// 2. Validation

/**
 * Kafka 4.4's own bounds where Samsa's table differs from them (Samsa's allow what its tests need
 * at start-up, such as small segments), or where Kafka checks later than the type
 * (KafkaConfig's requirements: log.roll.ms, log.retention.ms …): the alter APIs check Kafka's.
 */
const KAFKA_BOUNDS: Readonly<Record<string, { min?: number; max?: number }>> = {
  'log.roll.ms': {}, 'log.roll.jitter.ms': {}, 'log.retention.ms': {}, 'log.retention.bytes': {},
  'log.cleaner.dedupe.buffer.size': {}, 'log.cleaner.io.buffer.load.factor': {}, 'log.cleaner.io.max.bytes.per.second': {},
  'log.segment.bytes': { min: 1048576 },
};

/** The value as Kafka's ConfigException shows it: the parsed value (a double in Java's form). */
function shownValue(spec: SettingSpec, raw: string): string {
  const t = raw.trim();
  if (spec.type === 'double') {
    const n = Number(t);
    if (t !== '' && Number.isFinite(n)) return javaDoubleString(n);
  }
  if (/^[+-]?\d+$/.test(t)) return BigInt(t).toString();
  return t;
}

/** Kafka's ConfigDef.parse of one value: null when valid, else the message. */
function typeProblem(name: string, raw: string): string | null {
  let spec = brokerConfigSpec(name);
  if (!spec) return null;
  const bounds = KAFKA_BOUNDS[name];
  if (bounds) spec = { ...spec, min: bounds.min, max: bounds.max };
  const parsed = parseSettingText(spec, raw);
  if (parsed.ok) {
    if (name === 'principal.builder.class' || name === 'ssl.engine.factory.class') return classProblem(name, raw.trim());
    return null;
  }
  const numeric = ['int', 'short', 'long', 'double'].includes(spec.type) && !parsed.error.startsWith('Not a number');
  return `Invalid value ${numeric ? shownValue(spec, raw) : raw.trim()} for configuration ${name}: ${parsed.error}`;
}

/** Class-typed settings: Samsa can load none but Kafka's own implementations of them. */
const KNOWN_CLASSES: Readonly<Record<string, readonly string[]>> = {
  'principal.builder.class': ['org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder'],
  'ssl.engine.factory.class': ['org.apache.kafka.common.security.ssl.DefaultSslEngineFactory'],
};

function classProblem(name: string, value: string): string | null {
  if (value === '' || KNOWN_CLASSES[name]!.includes(value)) return null;
  return `Invalid value ${value} for configuration ${name}: Class ${value} could not be found.`;
}

export interface BrokerAlterEnv {
  /** The broker's configuration now (static, with the dynamic broker configs in effect). */
  config: BrokerConfig;
  /** true: the resource is this broker's id; false: "" (the cluster-wide defaults). */
  perBroker: boolean;
}

/**
 * Checks the configs a BROKER resource would hold after the request (all of them, not only the
 * changed ones). Throws KafkaApiError(INVALID_REQUEST) with Kafka 4.4's message.
 */
export function validateBrokerConfigs(env: BrokerAlterEnv, next: Readonly<Record<string, string>>): void {
  const names = Object.keys(next);
  const fixed = names.filter((n) => (n.startsWith('samsa.') || n === 'cluster.id' || KAFKA_STATIC_SETTINGS.has(n)
    || (Object.prototype.hasOwnProperty.call(BROKER_SETTINGS, n) && !NOT_KAFKA_SETTINGS.has(n))) && !ALL_DYNAMIC.has(n));
  if (fixed.length > 0) refuse(`Cannot update these configs dynamically: ${nameList(fixed)}`);
  const stores = names.filter((n) => SSL_STORE_CONFIGS.includes(n));
  if (stores.length > 0) refuse(`These security configs can be dynamically updated only per-listener using the listener prefix: ${nameList(stores)}`);
  for (const n of names) {
    const problem = typeProblem(listenerConfigBase(n) ?? n, next[n]);
    if (problem) refuse(problem);
  }
  if (!env.perBroker) {
    const perBroker = names.filter((n) => PER_BROKER.has(n) || (listenerConfigBase(n) !== null && !CLUSTER_LEVEL_LISTENER_CONFIGS.includes(listenerConfigBase(n)!)));
    if (perBroker.length > 0) refuse(`Cannot update these configs at default cluster level, broker id must be specified: ${nameList(perBroker)}`);
  }
  const layers = env.config.dynamic;
  const proposed = env.perBroker
    ? effectiveBrokerConfig(env.config, layers?.clusterDefault ?? {}, next)
    : effectiveBrokerConfig(env.config, next, layers?.perBroker ?? {});
  checkRequirements(env.config, proposed);
  checkReconfiguration(env.config, proposed);
}

type Values = Record<string, unknown>;
const num = (c: BrokerConfig, name: string) => Number((c as unknown as Values)[name]);
const differs = (a: BrokerConfig, b: BrokerConfig, name: string) => JSON.stringify((a as unknown as Values)[name]) !== JSON.stringify((b as unknown as Values)[name]);

/**
 * KafkaConfig's constructor requirements ("requirement failed: ..."), which Kafka does not wrap.
 * Kafka checks the whole configuration (a static one breaking them never starts); Samsa checks
 * those whose inputs the request changes, so an odd static setting does not block every alter.
 */
function checkRequirements(now: BrokerConfig, c: BrokerConfig): void {
  const changed = (...names: string[]) => names.some((n) => differs(now, c, n));
  const retention = num(c, 'log.retention.ms');
  if (changed('log.retention.ms') && !(retention >= 1 || retention === -1)) refuse('requirement failed: log.retention.ms must be unlimited (-1) or, greater than or equal to 1');
  if (changed('log.roll.ms') && num(c, 'log.roll.ms') < 1) refuse('requirement failed: log.roll.ms must be greater than or equal to 1');
  if (changed('log.roll.jitter.ms') && num(c, 'log.roll.jitter.ms') < 0) refuse('requirement failed: log.roll.jitter.ms must be greater than or equal to 0');
  if (changed('log.cleaner.threads', 'log.cleaner.dedupe.buffer.size')) {
    const threads = num(c, 'log.cleaner.threads');
    // Kafka divides the dedupe buffer by the thread count before any check of the count.
    if (threads === 0) refuse('/ by zero');
    if (!(Math.trunc(num(c, 'log.cleaner.dedupe.buffer.size') / threads) > 1024 * 1024)) {
      refuse('requirement failed: log.cleaner.dedupe.buffer.size must be at least 1MB per cleaner thread.');
    }
  }
  const overrides = String((c as unknown as Values)['max.connections.per.ip.overrides']);
  if (changed('max.connections.per.ip', 'max.connections.per.ip.overrides') && num(c, 'max.connections.per.ip') === 0 && overrides.trim() === '') {
    refuse('requirement failed: max.connections.per.ip can be set to zero only if max.connections.per.ip.overrides property is set.');
  }
  if (changed('max.connections.per.ip.overrides') && overrides.trim() !== '') {
    for (const raw of overrides.split(',')) {
      const item = raw.trim();
      const colon = item.lastIndexOf(':');
      if (colon < 0) refuse(`Error parsing configuration property 'max.connections.per.ip.overrides': begin 0, end -1, length ${item.length}`);
      const count = item.slice(colon + 1).trim();
      if (!/^[+-]?\d+$/.test(count)) refuse(`For input string: "${count}"`);
    }
  }
  const dirs = ((c as unknown as Values)['log.dirs'] as string[]) ?? [];
  const cordoned = ((c as unknown as Values)['cordoned.log.dirs'] as string[] | undefined) ?? [];
  const missing = cordoned.filter((d) => !dirs.includes(d));
  if (changed('cordoned.log.dirs') && missing.length > 0) refuse(`requirement failed: All entries in cordoned.log.dirs must be present in log.dirs or log.dir. Missing entries : ${missing.join(',')}`);
}

/** The thread count a listener runs (its own num.network.threads, else the broker's). */
function networkThreads(c: BrokerConfig, listener: string): number {
  const own = c.dynamic?.perBroker[`listener.name.${listener}.num.network.threads`] ?? c.dynamic?.clusterDefault[`listener.name.${listener}.num.network.threads`];
  return own !== undefined ? Number(own) : num(c, 'num.network.threads');
}

function checkThreadCount(name: string, now: number, next: number): void {
  if (next === now) return;
  const what = `Dynamic thread count update validation failed for ${name}=${next}`;
  if (next <= 0) refuseReconfiguration(`${what}, value should be at least 1`);
  if (next < Math.trunc(now / 2)) refuseReconfiguration(`${what}, value should be at least half the current value ${now}`);
  if (next > now * 2) refuseReconfiguration(`${what}, value should not be greater than double the current value ${now}`);
}

/** What Kafka's reconfigurable components check of a new configuration, compared with the current one. */
function checkReconfiguration(now: BrokerConfig, next: BrokerConfig): void {
  const changed = (name: string) => differs(now, next, name);
  // Listener components first: their network threads and connection limits.
  const listeners = new Set<string>();
  for (const layer of [next.dynamic?.perBroker ?? {}, next.dynamic?.clusterDefault ?? {}]) {
    for (const n of Object.keys(layer)) {
      const m = /^listener\.name\.([^.]*)\.(max\.connections|max\.connection\.creation\.rate)$/.exec(n);
      if (m && Number(layer[n]) === 0) refuseReconfiguration(`Invalid ${m[2]} 0`);
      const t = /^listener\.name\.([^.]*)\.num\.network\.threads$/.exec(n);
      if (t) listeners.add(t[1]!);
    }
  }
  for (const l of listeners) checkThreadCount('num.network.threads', networkThreads(now, l), networkThreads(next, l));
  checkThreadCount('num.network.threads', num(now, 'num.network.threads'), num(next, 'num.network.threads'));
  const reporters = (next as unknown as Values)['metric.reporters'] as string[];
  if (changed('metric.reporters') && reporters.some((r) => r !== 'org.apache.kafka.common.metrics.JmxReporter')) {
    refuseReconfiguration('Validation of dynamic config update of Set(metric.reporters) failed with class class kafka.server.DynamicMetricsReporters');
  }
  // The log cleaner.
  if (CLEANER_CONFIGS.some(changed)) {
    const was = num(now, 'log.cleaner.threads');
    const threads = num(next, 'log.cleaner.threads');
    if (threads < 1) refuseReconfiguration('Log cleaner threads should be at least 1');
    if (threads < Math.trunc(was / 2)) refuseReconfiguration(`Log cleaner threads cannot be reduced to less than half the current value ${was}`);
    if (threads > was * 2) refuseReconfiguration(`Log cleaner threads cannot be increased to more than double the current value ${was}`);
  }
  // Thread pools.
  for (const pool of THREAD_POOLS) checkThreadCount(pool, num(now, pool), num(next, pool));
  // Log defaults: tiered-storage bounds against retention (DynamicLogConfig, DynamicRemoteLogConfig).
  if (LOG_CONFIGS.some(changed)) checkLocalRetention(next);
}

function checkLocalRetention(c: BrokerConfig): void {
  const retentionMs = num(c, 'log.retention.ms');
  const localMs = num(c, 'log.local.retention.ms');
  if (retentionMs !== -1 && localMs !== -2) {
    if (localMs === -1) refuseReconfiguration(`Invalid value -1 for configuration log.local.retention.ms: Value must not be -1 as log.retention.ms value is set as ${retentionMs}.`);
    if (localMs > retentionMs) refuseReconfiguration(`Invalid value ${localMs} for configuration log.local.retention.ms: Value must not be more than log.retention.ms property value: ${retentionMs}`);
  }
  const retentionBytes = num(c, 'log.retention.bytes');
  const localBytes = num(c, 'log.local.retention.bytes');
  if (retentionBytes > -1 && localBytes !== -2) {
    if (localBytes === -1) refuseReconfiguration(`Invalid value -1 for configuration log.local.retention.bytes: Value must not be -1 as log.retention.bytes value is set as ${retentionBytes}.`);
    if (localBytes > retentionBytes) refuseReconfiguration(`Invalid value ${localBytes} for configuration log.local.retention.bytes: Value must not be more than log.retention.bytes property value: ${retentionBytes}`);
  }
  const effectiveLocalMs = localMs === -2 ? retentionMs : localMs;
  const lagMs = num(c, 'log.remote.copy.lag.ms');
  if (lagMs >= 0 && effectiveLocalMs >= 0 && lagMs > effectiveLocalMs) {
    refuseReconfiguration(`Invalid value ${lagMs} for configuration log.remote.copy.lag.ms: Value must not exceed log.local.retention.ms (effective value: ${effectiveLocalMs})`);
  }
  const effectiveLocalBytes = localBytes === -2 ? retentionBytes : localBytes;
  const lagBytes = num(c, 'log.remote.copy.lag.bytes');
  if (lagBytes >= 0 && effectiveLocalBytes >= 0 && lagBytes > effectiveLocalBytes) {
    refuseReconfiguration(`Invalid value ${lagBytes} for configuration log.remote.copy.lag.bytes: Value must not exceed log.local.retention.bytes (effective value: ${effectiveLocalBytes})`);
  }
}
