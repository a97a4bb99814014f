/**
 * Kafka-named configuration: every broker setting Samsa understands (by Kafka's property name, with
 * Kafka's type, default and validation), the topic-level configs with the broker settings they
 * inherit from, loading from a .properties file / `--override` flags / `KAFKA_*` environment
 * variables, and the DescribeConfigs view (value, source, synonyms, type code) of both.
 *
 * Conventions
 * - A setting's default is kept in Kafka's text form (what DescribeConfigs shows); typed values
 *   come from parsing that text the same way as a value from a file.
 * - Types map to TypeScript as: boolean → boolean; int/short/long/double → number; list →
 *   string[]; string/password → string. `null` only where Kafka's default is null and nothing
 *   derives a value (e.g. `advertised.listeners`, `cluster.id`).
 * - long values: Kafka's Long.MAX_VALUE (9223372036854775807, "never" for flush/compaction
 *   settings) does not fit a double. Any long at or beyond ±Number.MAX_SAFE_INTEGER is clamped to
 *   ±Number.MAX_SAFE_INTEGER (`LONG_MAX` below), which still reads as "practically infinite" (285
 *   000 years in ms) and is rendered back as Long.MAX_VALUE / Long.MIN_VALUE in DescribeConfigs.
 * - Settings that Kafka derives from a group of synonyms hold the *effective* value in
 *   `BrokerConfig`: `log.retention.ms` (← `log.retention.minutes` ← `log.retention.hours`,
 *   negative → -1 = unlimited), `log.roll.ms` (← `log.roll.hours`), `log.roll.jitter.ms`
 *   (← `log.roll.jitter.hours`), `log.flush.interval.ms` (← `log.flush.scheduler.interval.ms`;
 *   LONG_MAX = "no time-based flush"), `node.id` (← `broker.id`), `log.dirs` (← `log.dir`). The
 *   lower-priority synonyms keep their own raw values. `BrokerConfig.explicit` says what was set
 *   and where; DescribeConfigs shows null for the unset ones, as Kafka does.
 * - Precedence of sources for one key: --override flags > KAFKA_* environment > properties file >
 *   default. Synonym groups are resolved after that merge, with Kafka's precedence inside the group
 *   (so a file's `log.retention.ms` beats an environment `KAFKA_LOG_RETENTION_HOURS`, as it would
 *   in Kafka's docker image, which writes the environment into the file).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from './errors.js';
import {
  BROKER_SETTINGS, TOPIC_CONFIGS, ConfigSource, ConfigType, LONG_MAX, LONG_MAX_TEXT, LONG_MIN_TEXT,
  type BrokerConfig, type BrokerSettingName, type ConfigTypeCode, type SettingOrigin, type SettingSpec, type SettingType,
  type TopicConfig, type TopicConfigName, type ExplicitSetting,
} from './config/settings.js';
import { brokerListeners, parseListeners, parseSecurityProtocolMap, SECURITY_PROTOCOLS } from './config/listeners.js';
import { parseConfigArgs, parseProperties, envVarToSetting } from './config/properties.js';
import { listenerScopedBase } from './config/security-settings.js';
import { DYNAMIC_ONLY_CONFIGS } from './config/dynamic-settings.js';

export * from './config/settings.js';
export * from './config/listeners.js';
export * from './config/properties.js';

// ---------------------------------------------------------------------------------------------
// Parsing values

function specOf(table: Record<string, SettingSpec>, name: string): SettingSpec | undefined {
  return Object.prototype.hasOwnProperty.call(table, name) ? table[name] : undefined;
}

const BROKER: Record<string, SettingSpec> = BROKER_SETTINGS;
const TOPIC: Record<string, SettingSpec> = TOPIC_CONFIGS;

const TYPE_LABEL: Record<SettingType, string> = {
  boolean: 'BOOLEAN', string: 'STRING', int: 'INT', short: 'SHORT', long: 'LONG', double: 'DOUBLE', list: 'LIST', password: 'PASSWORD',
};

const TYPE_CODE: Record<SettingType, ConfigTypeCode> = {
  boolean: ConfigType.BOOLEAN, string: ConfigType.STRING, int: ConfigType.INT, short: ConfigType.SHORT,
  long: ConfigType.LONG, double: ConfigType.DOUBLE, list: ConfigType.LIST, password: ConfigType.PASSWORD,
};

/** Parses and validates one value; returns the typed value or an error message in Kafka's wording. */
function parseValue(spec: SettingSpec, text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  const t = text.trim();
  let value: unknown;
  switch (spec.type) {
    case 'boolean': {
      const l = t.toLowerCase();
      if (l !== 'true' && l !== 'false') return { ok: false, error: 'Expected value to be either true or false' };
      value = l === 'true';
      break;
    }
    case 'int':
    case 'short': {
      const bits = spec.type === 'int' ? 31 : 15;
      if (!/^[+-]?\d+$/.test(t)) return { ok: false, error: `Not a number of type ${TYPE_LABEL[spec.type]}` };
      const n = Number(t);
      if (n < -(2 ** bits) || n > 2 ** bits - 1) return { ok: false, error: `Not a number of type ${TYPE_LABEL[spec.type]}` };
      value = n;
      break;
    }
    case 'long': {
      if (!/^[+-]?\d+$/.test(t)) return { ok: false, error: 'Not a number of type LONG' };
      const b = BigInt(t);
      if (b < -(2n ** 63n) || b > 2n ** 63n - 1n) return { ok: false, error: 'Not a number of type LONG' };
      value = b >= BigInt(LONG_MAX) ? LONG_MAX : b <= -BigInt(LONG_MAX) ? -LONG_MAX : Number(b);
      break;
    }
    case 'double': {
      const n = t === '' ? NaN : Number(t);
      if (!Number.isFinite(n)) return { ok: false, error: 'Not a number of type DOUBLE' };
      value = n;
      break;
    }
    case 'list':
      value = t === '' ? [] : t.split(',').map((s) => s.trim());
      break;
    case 'string':
      // An empty value for a setting without default means "not set" (e.g. `advertised.listeners=`).
      value = t === '' && spec.default === null ? null : t;
      break;
    case 'password':
      value = t;
      break;
  }
  const err = validateTyped(spec, value);
  return err === null ? { ok: true, value } : { ok: false, error: err };
}

function validateTyped(spec: SettingSpec, value: unknown): string | null {
  if (typeof value === 'number') {
    if (spec.min !== undefined && value < spec.min) return `Value must be at least ${spec.min}`;
    if (spec.max !== undefined && value > spec.max) return `Value must be no more than ${spec.max}`;
  }
  if (spec.oneOf) {
    const allowed = spec.oneOf;
    const ok = (s: string) => allowed.includes(s) || (spec.caseInsensitive === true && allowed.some((a) => a.toLowerCase() === s.toLowerCase()));
    const items = Array.isArray(value) ? (value as string[]) : typeof value === 'string' ? [value] : [];
    if (items.some((s) => !ok(s))) return `String must be one of: ${allowed.join(', ')}`;
  }
  if (spec.check) return spec.check(value as never);
  return null;
}

/** Kafka's ConfigDef.convertToString of a typed value. */
function render(spec: SettingSpec, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (spec.type === 'password') return null;
  if (Array.isArray(value)) return value.join(',');
  if (spec.type === 'long' && value === LONG_MAX) return LONG_MAX_TEXT;
  if (spec.type === 'long' && value === -LONG_MAX) return LONG_MIN_TEXT;
  if (spec.type === 'double' && typeof value === 'number') return javaDoubleString(value);
  return String(value);
}

/** Java's Double.toString: "0.5", "15.0", "1.0E7", "1.7976931348623157E308". */
export function javaDoubleString(d: number): string {
  if (Number.isNaN(d)) return 'NaN';
  if (!Number.isFinite(d)) return d > 0 ? 'Infinity' : '-Infinity';
  const abs = Math.abs(d);
  if (abs === 0) return Object.is(d, -0) ? '-0.0' : '0.0';
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(d);
    return s.includes('.') ? s : `${s}.0`;
  }
  const [mantissa, exponent] = d.toExponential().split('e');
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${Number(exponent)}`;
}

/** The spec of a broker setting or of a dynamic-only broker config (the throttle rates), else undefined. */
export function brokerConfigSpec(name: string): SettingSpec | undefined {
  return specOf(BROKER, name) ?? specOf(DYNAMIC_ONLY_CONFIGS, name);
}

/** Parses and validates a setting's text as a properties file would (Kafka's messages on failure). */
export function parseSettingText(spec: SettingSpec, text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  return parseValue(spec, text);
}

/** A typed value in Kafka's text form (DescribeConfigs); null for passwords and unset values. */
export function renderSettingValue(spec: SettingSpec, value: unknown): string | null {
  return render(spec, value);
}

/** The default of a broker setting, typed (null when it has none). */
export function brokerSettingDefault(name: string): unknown {
  return Object.prototype.hasOwnProperty.call(BROKER_DEFAULTS, name) ? BROKER_DEFAULTS[name] : null;
}

/** Kafka's config type code of a spec. */
export function configTypeCode(spec: SettingSpec): ConfigTypeCode {
  return TYPE_CODE[spec.type];
}

function parseDefault(name: string, spec: SettingSpec): unknown {
  if (spec.default === null) return null;
  const r = parseValue(spec, spec.default);
  if (!r.ok) throw new Error(`bad default for ${name}: ${r.error}`);
  return r.value;
}

const BROKER_DEFAULTS: Record<string, unknown> = Object.fromEntries(
  Object.entries(BROKER).map(([n, s]) => [n, parseDefault(n, s)]),
);
const TOPIC_DEFAULTS: Record<string, unknown> = Object.fromEntries(
  Object.entries(TOPIC).map(([n, s]) => [n, parseDefault(n, s)]),
);

// ---------------------------------------------------------------------------------------------
// Loading

export interface LoadConfigOptions {
  /** The broker's own arguments (see parseConfigArgs), without node and script names. Default none. */
  argv?: readonly string[];
  /** Environment to read KAFKA_* (and CLUSTER_ID) from. Default: none, so that tests are hermetic; the CLI passes process.env. */
  env?: NodeJS.ProcessEnv;
  /** Base of relative paths (config file, log.dirs). Default process.cwd(). */
  cwd?: string;
}

function levenshtein(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}

/** The closest known name (or null), for "did you mean" hints. */
function closest(name: string, candidates: Iterable<string>): string | null {
  let best: string | null = null;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = levenshtein(name, c);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best !== null && bestD <= Math.max(2, Math.floor(name.length / 4)) ? best : null;
}

function unknownSettingMessage(name: string, from: string): string {
  let msg = `unknown setting '${name}' (from ${from})`;
  const topic = specOf(TOPIC, name);
  if (topic?.synonyms && !specOf(BROKER, name)) {
    return `${msg}; '${name}' is a topic-level config, its broker-wide default is '${topic.synonyms[0]}'`;
  }
  const hint = closest(name, Object.keys(BROKER));
  if (hint) msg += `; did you mean '${hint}'?`;
  return msg;
}

function describeOrigin(origin: SettingOrigin, where: string): string {
  switch (origin) {
    case 'flag': return '--override';
    case 'env': return `environment variable ${where}`;
    case 'file': return where;
  }
}

/**
 * Loads the broker configuration from (highest precedence first) `--override` flags, `KAFKA_*`
 * environment variables, the properties file named by `--config`, and the defaults. Throws
 * ConfigError naming the setting and its source for unknown settings or invalid values.
 */
export function loadConfig(options: LoadConfigOptions = {}): BrokerConfig {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? {};
  const args = parseConfigArgs(options.argv ?? []);

  const explicit: Record<string, ExplicitSetting> = {};
  const put = (key: string, raw: string, origin: SettingOrigin, where: string) => {
    const from = describeOrigin(origin, where);
    const scoped = listenerScopedBase(key);
    const spec = specOf(BROKER, scoped ? scoped.base : key);
    if (!spec) throw new ConfigError(unknownSettingMessage(key, from));
    const r = parseValue(spec, raw);
    if (!r.ok) throw new ConfigError(`invalid value '${raw.trim()}' for setting '${key}' (from ${from}): ${r.error}`);
    explicit[key] = { raw, value: r.value, origin, where };
  };

  // Lowest precedence first; later puts replace earlier ones.
  let configFile: string | null = null;
  if (args.configFile !== null) {
    configFile = path.resolve(cwd, args.configFile);
    let text: string;
    try {
      text = readFileSync(configFile, 'utf8');
    } catch (e) {
      throw new ConfigError(`cannot read config file '${configFile}': ${(e as Error).message}`);
    }
    for (const p of parseProperties(text)) put(p.key, p.value, 'file', `${configFile}:${p.line}`);
  }
  if (env.CLUSTER_ID !== undefined && env.KAFKA_CLUSTER_ID === undefined) put('cluster.id', env.CLUSTER_ID, 'env', 'CLUSTER_ID');
  for (const varName of Object.keys(env).sort()) {
    const key = envVarToSetting(varName);
    if (key === null) continue;
    put(key, env[varName] ?? '', 'env', varName);
  }
  for (const o of args.overrides) put(o.key, o.value, 'flag', '--override');

  // Typed values: explicit or default, then synonym groups.
  const values: Record<string, unknown> = {};
  for (const name of Object.keys(BROKER)) values[name] = name in explicit ? explicit[name]!.value : BROKER_DEFAULTS[name];
  for (const [name, spec] of Object.entries(BROKER)) {
    if (!spec.fallbacks) continue;
    const group = [name, ...spec.fallbacks];
    const setOne = group.find((n) => n in explicit);
    const chosen = setOne ?? group.find((n) => BROKER_DEFAULTS[n] !== null)!;
    let v = setOne !== undefined ? explicit[chosen]!.value : BROKER_DEFAULTS[chosen];
    const scale = BROKER[chosen]!.scale;
    if (scale !== undefined && typeof v === 'number') v = Math.min(LONG_MAX, v * scale);
    if (name === 'log.dirs' && typeof v === 'string') v = [v];
    values[name] = v;
  }
  if (typeof values['log.retention.ms'] === 'number' && (values['log.retention.ms'] as number) < 0) values['log.retention.ms'] = -1;
  values['log.dirs'] = (values['log.dirs'] as string[]).map((d) => path.resolve(cwd, d));

  const config = { ...values, explicit, configFile } as unknown as BrokerConfig;
  crossValidate(config);
  return Object.freeze(config);
}

function crossValidate(config: BrokerConfig): void {
  const e = config.explicit;
  const from = (name: BrokerSettingName) => {
    const x = e[name];
    return x ? describeOrigin(x.origin, x.where) : 'default';
  };
  if (e['node.id'] && e['broker.id'] && e['node.id'].value !== e['broker.id'].value) {
    throw new ConfigError(
      `setting 'broker.id' (${String(e['broker.id'].value)}, from ${from('broker.id')}) must equal 'node.id' (${String(e['node.id'].value)}, from ${from('node.id')})`,
    );
  }
  if (config['group.min.session.timeout.ms'] > config['group.max.session.timeout.ms']) {
    throw new ConfigError(
      `setting 'group.min.session.timeout.ms' (${config['group.min.session.timeout.ms']}, from ${from('group.min.session.timeout.ms')}) must not exceed 'group.max.session.timeout.ms' (${config['group.max.session.timeout.ms']})`,
    );
  }
  const map = parseSecurityProtocolMap(config['listener.security.protocol.map']);
  const check = (name: 'listeners' | 'advertised.listeners') => {
    const text = config[name];
    if (text === null) return;
    for (const l of parseListeners(text)) {
      if (!map.has(l.name) && !(SECURITY_PROTOCOLS as readonly string[]).includes(l.name)) {
        throw new ConfigError(
          `setting '${name}' (from ${from(name)}): no security protocol defined for listener ${l.name}; add it to 'listener.security.protocol.map'`,
        );
      }
    }
  };
  check('listeners');
  check('advertised.listeners');
  if (config['advertised.listeners'] !== null) {
    for (const l of parseListeners(config['advertised.listeners'])) {
      if (l.host === '0.0.0.0' || l.host === '::') {
        throw new ConfigError(
          `setting 'advertised.listeners' (from ${from('advertised.listeners')}) cannot use the nonroutable meta-address ${l.host} for listener ${l.name}`,
        );
      }
    }
  }
  if (brokerListeners(config).length === 0) {
    throw new ConfigError(`setting 'listeners' (from ${from('listeners')}) has no listener for clients`);
  }
}

// ---------------------------------------------------------------------------------------------
// DescribeConfigs views

export interface ConfigSynonym {
  name: string;
  value: string | null;
  source: number;
}

/** One DescribeConfigs entry; structurally compatible with the generated DescribeConfigsResourceResult. */
export interface ConfigEntry {
  name: string;
  value: string | null;
  readOnly: boolean;
  /** v0's is_default: the value comes from a default. */
  isDefault: boolean;
  configSource: number;
  isSensitive: boolean;
  /** Highest priority first. Callers drop these unless the request asked for include_synonyms. */
  synonyms: ConfigSynonym[];
  configType: number;
  documentation: string | null;
}

/**
 * Kafka's broker synonym list (ConfigHelper.configSynonyms): level by level, each over the names
 * in order — dynamic per-broker (DYNAMIC_BROKER_CONFIG), dynamic cluster default
 * (DYNAMIC_DEFAULT_BROKER_CONFIG), set at start-up (STATIC_BROKER_CONFIG), non-null defaults.
 */
export function brokerSynonymList(broker: BrokerConfig, names: readonly string[], sensitive: boolean, described: string | undefined = names[0]): ConfigSynonym[] {
  const out: ConfigSynonym[] = [];
  const dynamic = broker.dynamic;
  if (dynamic) {
    for (const n of names) if (dynamic.perBroker[n] !== undefined) out.push({ name: n, value: sensitive ? null : dynamic.perBroker[n], source: ConfigSource.DYNAMIC_BROKER_CONFIG });
    for (const n of names) if (dynamic.clusterDefault[n] !== undefined) out.push({ name: n, value: sensitive ? null : dynamic.clusterDefault[n], source: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG });
  }
  for (const n of names) {
    const x = broker.explicit[n as BrokerSettingName];
    if (x) out.push({ name: n, value: sensitive ? null : render(BROKER[n] ?? BROKER[listenerScopedBase(n)?.base ?? '']!, x.value), source: ConfigSource.STATIC_BROKER_CONFIG });
  }
  for (const n of names) {
    const d = BROKER[n]?.default ?? null;
    if (d !== null) out.push({ name: n, value: sensitive ? null : render(BROKER[n]!, BROKER_DEFAULTS[n]), source: ConfigSource.DEFAULT_CONFIG });
  }
  // Kafka's ConfigHelper.configSynonyms keeps the list from the first entry of the primary name
  // on (dropWhile): retention.ms lists no log.retention.hours default, and then reports
  // DEFAULT_CONFIG as its source.
  const first = out.findIndex((s) => s.name === described);
  return first < 0 ? [] : out.slice(first);
}

/** One DescribeConfigs entry; its source is that of the first synonym (the one in effect). */
function configEntry(name: string, spec: SettingSpec, value: string | null, readOnly: boolean, synonyms: ConfigSynonym[]): ConfigEntry {
  const configSource = synonyms[0]?.source ?? ConfigSource.DEFAULT_CONFIG;
  return {
    name,
    value,
    readOnly,
    isDefault: configSource === ConfigSource.DEFAULT_CONFIG,
    configSource,
    isSensitive: spec.type === 'password',
    synonyms,
    configType: TYPE_CODE[spec.type],
    documentation: spec.doc,
  };
}

/**
 * The static broker configuration as DescribeConfigs would report it without any dynamic broker
 * config, every entry read-only, sorted by name. The broker itself answers with
 * config/dynamic-broker-view.ts describeBrokerResource.
 */
export function describeBrokerConfig(broker: BrokerConfig): ConfigEntry[] {
  const out: ConfigEntry[] = [];
  for (const name of Object.keys(BROKER).sort()) {
    const spec = BROKER[name]!;
    const sensitive = spec.type === 'password';
    const x = broker.explicit[name as BrokerSettingName];
    let value: string | null;
    if (x) value = render(spec, name === 'log.dirs' ? broker['log.dirs'] : x.value);
    else value = spec.default === null ? null : render(spec, name === 'log.dirs' ? broker['log.dirs'] : BROKER_DEFAULTS[name]);
    if (sensitive) value = null;
    const synonyms = brokerSynonymList(broker, [name, ...(spec.fallbacks ?? [])], sensitive);
    out.push(configEntry(name, spec, value, true, synonyms));
  }
  return out;
}

/** The broker-derived value of a topic config (its first synonym's effective value). */
function topicValueFromBroker(broker: BrokerConfig, name: TopicConfigName): unknown {
  const head: string | undefined = TOPIC_CONFIGS[name].synonyms[0];
  if (head === undefined) return TOPIC_DEFAULTS[name];
  const v = (broker as unknown as Record<string, unknown>)[head];
  return v === null || v === undefined ? TOPIC_DEFAULTS[name] : v;
}

export interface ResolvedTopicConfig {
  /** Effective typed values, by Kafka name. */
  values: TopicConfig;
  /** DescribeConfigs (resource type TOPIC) entries, sorted by name; what CreateTopics v5+ returns too. */
  entries: ConfigEntry[];
}

/**
 * The effective configuration of a topic: its overrides (validated; an invalid or unknown one is a
 * ConfigError naming it) over the broker settings they inherit from, over Kafka's defaults, with
 * each entry's source and synonyms as Kafka's DescribeConfigs reports them.
 */
export function resolveTopicConfig(broker: BrokerConfig, overrides: Readonly<Record<string, string>> = {}): ResolvedTopicConfig {
  const parsed: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(overrides)) {
    const err = validateTopicConfig(name, raw);
    if (err !== null) throw new ConfigError(`topic config '${name}': ${err}`);
    const r = parseValue(TOPIC[name]!, raw);
    if (r.ok) parsed[name] = r.value;
  }
  const values: Record<string, unknown> = {};
  const entries: ConfigEntry[] = [];
  for (const name of Object.keys(TOPIC).sort() as TopicConfigName[]) {
    const spec: SettingSpec = TOPIC_CONFIGS[name];
    const overridden = Object.prototype.hasOwnProperty.call(parsed, name);
    const value = overridden ? parsed[name] : topicValueFromBroker(broker, name);
    values[name] = value;
    // Samsa-only topic configs (views, schedule topics) appear only where set (settings.ts describedWhenSet).
    if (spec.describedWhenSet && !overridden) continue;
    const sensitive = spec.type === 'password';
    const rendered = sensitive ? null : render(spec, value);
    const synonyms = brokerSynonymList(broker, spec.synonyms ?? [], sensitive);
    if (overridden) synonyms.unshift({ name, value: rendered, source: ConfigSource.DYNAMIC_TOPIC_CONFIG });
    entries.push(configEntry(name, spec, rendered, false, synonyms));
  }
  return { values: values as TopicConfig, entries };
}

/**
 * Validates one topic config from CreateTopics / AlterConfigs / IncrementalAlterConfigs. Returns
 * null when valid, else the message to send with INVALID_CONFIG (40), in Kafka's wording.
 */
export function validateTopicConfig(name: string, value: string | null): string | null {
  const spec = specOf(TOPIC, name);
  if (!spec) return `Unknown topic config name: ${name}`;
  if (value === null) return `Null value not supported for topic configs: ${name}`;
  const r = parseValue(spec, value);
  return r.ok ? null : `Invalid value ${value} for configuration ${name}: ${r.error}`;
}

/** Whether `name` is a topic config Samsa knows. */
export function isTopicConfigName(name: string): name is TopicConfigName {
  return specOf(TOPIC, name) !== undefined;
}

/** Whether `name` is a broker setting Samsa knows. */
export function isBrokerSettingName(name: string): name is BrokerSettingName {
  return specOf(BROKER, name) !== undefined;
}

/** Kafka's config type code of a topic config or broker setting (UNKNOWN when neither). */
export function configTypeOf(name: string, resource: 'topic' | 'broker'): ConfigTypeCode {
  const spec = specOf(resource === 'topic' ? TOPIC : BROKER, name);
  return spec ? TYPE_CODE[spec.type] : ConfigType.UNKNOWN;
}
