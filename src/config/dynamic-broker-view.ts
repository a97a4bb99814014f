/**
 * Dynamic broker configs as the broker sees them (Kafka's DynamicBrokerConfig.updateCurrentConfig
 * and ConfigHelper's BROKER branch of DescribeConfigs):
 * - effectiveBrokerConfig: the static configuration with the cluster-wide defaults and then this
 *   broker's own dynamic configs over it (only the names Kafka marks dynamic take effect; stored
 *   listener-prefixed and unknown names are kept for DescribeConfigs only);
 * - describeBrokerResource: DescribeConfigs of a BROKER resource, "" (the cluster defaults that
 *   are set) or this broker's id (every setting, with the sources and synonyms Kafka reports).
 */
import {
  brokerConfigSpec, brokerSettingDefault, brokerSynonymList, configTypeCode, parseSettingText, renderSettingValue,
  ConfigSource, ConfigType, type BrokerConfig, type ConfigEntry, type ConfigSynonym, type SettingSpec,
} from '../config.js';
import { DYNAMIC_ONLY_CONFIGS } from './dynamic-settings.js';
import { BROKER_SETTINGS } from './settings.js';
import { brokerConfigSynonyms, isDynamicBrokerConfig, listenerConfigBase } from './dynamic-broker-names.js';

/** Kafka's KafkaConfig.logRetentionTimeMillis: a negative value means unlimited (-1). */
function normalised(name: string, value: unknown): unknown {
  return name === 'log.retention.ms' && typeof value === 'number' && value < 0 ? -1 : value;
}

/**
 * The broker's configuration with dynamic broker configs in effect: cluster defaults over the
 * static settings, this broker's own over both. `base` may itself be an effective configuration
 * (its static one is used). With no dynamic configs at all the static configuration comes back.
 */
export function effectiveBrokerConfig(
  base: BrokerConfig,
  clusterDefault: Readonly<Record<string, string>>,
  perBroker: Readonly<Record<string, string>>,
): BrokerConfig {
  const statics = base.dynamic?.static ?? base;
  if (Object.keys(clusterDefault).length === 0 && Object.keys(perBroker).length === 0) return statics;
  const values: Record<string, unknown> = { ...statics };
  for (const layer of [clusterDefault, perBroker]) {
    for (const [name, raw] of Object.entries(layer)) {
      if (!isDynamicBrokerConfig(name) || !Object.prototype.hasOwnProperty.call(BROKER_SETTINGS, name)) continue;
      // The type only: bounds were checked when the value was stored (some as Kafka's, not Samsa's).
      const parsed = parseSettingText({ ...brokerConfigSpec(name)!, min: undefined, max: undefined, check: undefined }, raw);
      // Kafka ignores a stored value that no longer parses (DynamicBrokerConfig.removeInvalidConfigs).
      if (parsed.ok) values[name] = normalised(name, parsed.value);
    }
  }
  values.dynamic = { static: statics, clusterDefault: { ...clusterDefault }, perBroker: { ...perBroker } };
  return Object.freeze(values) as unknown as BrokerConfig;
}

/** The type of a config DescribeConfigs reports: its own, a listener config's base one, else unknown. */
function specForDescribe(name: string): SettingSpec | undefined {
  return brokerConfigSpec(name) ?? brokerConfigSpec(listenerConfigBase(name) ?? '');
}

function sortedByName(entries: ConfigEntry[]): ConfigEntry[] {
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The value DescribeConfigs shows for a broker setting in this broker's view. */
function perBrokerValue(config: BrokerConfig, name: string, spec: SettingSpec, dynamicRaw: string | undefined): string | null {
  if (spec.type === 'password') return null;
  if (dynamicRaw !== undefined) {
    if (!Object.prototype.hasOwnProperty.call(BROKER_SETTINGS, name)) return dynamicRaw;
    const parsed = parseSettingText(spec, dynamicRaw);
    return parsed.ok ? renderSettingValue(spec, normalised(name, parsed.value)) : dynamicRaw;
  }
  const statics = config.dynamic?.static ?? config;
  const x = (statics.explicit as Record<string, { value: unknown } | undefined>)[name];
  const values = statics as unknown as Record<string, unknown>;
  // Synonym-group heads (log.retention.ms …) hold their group's effective value: show only what was set.
  if (x) return renderSettingValue(spec, name === 'log.dirs' ? values[name] : x.value);
  return spec.default === null ? null : renderSettingValue(spec, name === 'log.dirs' ? values[name] : brokerSettingDefault(name));
}

function entry(name: string, value: string | null, synonyms: ConfigSynonym[], spec: SettingSpec | undefined): ConfigEntry {
  const configSource = synonyms[0]?.source ?? ConfigSource.DEFAULT_CONFIG;
  return {
    name,
    value,
    readOnly: !isDynamicBrokerConfig(name),
    isDefault: configSource === ConfigSource.DEFAULT_CONFIG,
    configSource,
    // Kafka treats a config of unknown type as sensitive (KafkaConfig.maybeSensitive).
    isSensitive: spec === undefined || spec.type === 'password',
    synonyms,
    configType: spec ? configTypeCode(spec) : ConfigType.UNKNOWN,
    documentation: spec?.doc ?? null,
  };
}

/**
 * DescribeConfigs of a BROKER resource on this broker. `perBroker` true: this broker's id — every
 * broker setting plus every dynamic config stored for this broker or the cluster (listener
 * configs, unknown names, the throttle rates), each with Kafka's source and synonyms.
 * false: "" — the cluster-wide defaults that are set, with only their default synonyms.
 */
export function describeBrokerResource(config: BrokerConfig, perBroker: boolean): ConfigEntry[] {
  const dyn = config.dynamic;
  const own = perBroker ? dyn?.perBroker ?? {} : {};
  const defaults = dyn?.clusterDefault ?? {};
  const names = new Set<string>(Object.keys(defaults));
  if (perBroker) {
    for (const n of Object.keys(BROKER_SETTINGS)) names.add(n);
    for (const n of Object.keys(own)) names.add(n);
  }
  const out: ConfigEntry[] = [];
  for (const name of names) {
    const spec = specForDescribe(name);
    const sensitive = spec === undefined || spec.type === 'password';
    // ConfigHelper.configSynonyms drops what comes before the described name (log.retention.ms
    // before log.retention.hours).
    const synonyms = brokerSynonymList(config, brokerConfigSynonyms(name, true), sensitive, name)
      .filter((s) => perBroker || s.source === ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);
    let value: string | null;
    if (!perBroker) value = sensitive ? null : defaults[name];
    else if (Object.prototype.hasOwnProperty.call(BROKER_SETTINGS, name)) value = perBrokerValue(config, name, spec!, own[name] ?? defaults[name]);
    else value = sensitive ? null : own[name] ?? defaults[name] ?? null;
    out.push(entry(name, value, synonyms, spec));
  }
  return sortedByName(out);
}

/** Whether a dynamic-only config (a throttle rate) is known. */
export function isDynamicOnlyConfig(name: string): boolean {
  return Object.prototype.hasOwnProperty.call(DYNAMIC_ONLY_CONFIGS, name);
}
