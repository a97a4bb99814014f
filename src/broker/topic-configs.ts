/**
 * Topic config overrides as the admin APIs handle them (CreateTopics, AlterConfigs,
 * IncrementalAlterConfigs, DescribeConfigs), in Kafka's words.
 *
 * The config table itself (names, types, defaults, value validation, DescribeConfigs entries)
 * lives in src/config.ts; this module only applies Kafka's request-level rules on top of it:
 * - validateTopicConfigs: Kafka's controller order (null values first, then unknown names, then
 *   values), each failing with INVALID_CONFIG and the controller's message.
 * - applyIncrementalOps: SET / DELETE / APPEND / SUBTRACT over the current overrides
 *   (ConfigurationControlManager.incrementalAlterConfigResource).
 * - alterConfigResources: both alter APIs, resource by resource.
 */
import { KafkaApiError } from '../errors.js';
import { ErrorCode, errorName } from '../protocol/generated/error-codes.js';
import { TOPIC_CONFIGS, isTopicConfigName, resolveTopicConfig, validateTopicConfig } from '../config.js';
import { checkViewFilter } from '../views/filter.js';
import { topicNameProblem } from '../cluster/topic-names.js';
import { checkViewAlter } from '../views/views.js';
import { checkScheduleAlter, checkScheduleConfigs } from '../schedule/schedule-config.js';
import { DEFAULT_BROKER_CONFIGS } from '../cluster/metadata-store.js';
import { prepareBrokerConfigs, validateBrokerConfigs } from '../config/dynamic-broker-configs.js';
import { loadConfig, type BrokerConfig } from '../config.js';
import { brokerSetting, validateGroupConfigs, type GroupConfigBroker } from '../coordinator/group/group-configs.js';

/**
 * Validates topic config overrides; returns the same map without nulls (there are none when it
 * returns). Throws KafkaApiError(INVALID_CONFIG) with Kafka's message:
 * "Null value not supported for topic configs: X", "Unknown topic config name: X", or
 * "Invalid value V for configuration X: reason".
 */
export function validateTopicConfigs(configs: Record<string, string | null>, broker?: BrokerConfig, current?: Readonly<Record<string, string>>): Record<string, string> {
  const names = Object.keys(configs);
  for (const name of names) {
    if (configs[name] === null) throw new KafkaApiError(ErrorCode.INVALID_CONFIG, `Null value not supported for topic configs: ${name}`);
  }
  for (const name of names) {
    if (!isTopicConfigName(name)) throw new KafkaApiError(ErrorCode.INVALID_CONFIG, `Unknown topic config name: ${name}`);
  }
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = configs[name] as string;
    const problem = validateTopicConfig(name, value) ?? featureConfigProblem(name, value);
    if (problem !== null) throw new KafkaApiError(ErrorCode.INVALID_CONFIG, problem);
    out[name] = value;
  }
  if (broker) {
    const problem = tieredStorageProblem(out, broker, current);
    if (problem !== null) throw new KafkaApiError(ErrorCode.INVALID_CONFIG, problem);
  }
  return out;
}

/**
 * Kafka 4.4's tiered-storage checks of a topic's configs (LogConfig.validate with remote storage),
 * with its messages: the broker must have remote.log.storage.system.enable, the topic
 * cleanup.policy=delete only, local.retention.* no larger than retention.*, remote.copy.lag.* no
 * larger than the effective local retention, and with remote.log.copy.disable local retention equal
 * to total retention. Turning tiered storage off needs remote.log.delete.on.disable=true (the
 * remote data is then deleted, KIP-950).
 */
function tieredStorageProblem(configs: Record<string, string>, broker: BrokerConfig, current?: Readonly<Record<string, string>>): string | null {
  const v = resolveTopicConfig(broker, configs).values as Record<string, unknown>;
  const was = current?.['remote.storage.enable'] === 'true';
  if (v['remote.storage.enable'] !== true) {
    if (!was || v['remote.log.delete.on.disable'] === true) return null;
    return 'It is invalid to disable remote storage without deleting remote data. If you want to keep the remote data and turn to read only, please set `remote.storage.enable=true,remote.log.copy.disable=true`. If you want to disable remote storage and delete all remote data, please set `remote.storage.enable=false,remote.log.delete.on.disable=true`.';
  }
  if (!broker['remote.log.storage.system.enable']) return 'Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.';
  const policy = String(v['cleanup.policy'] ?? '');
  if (policy.includes('compact')) return 'Remote log storage only supports topics with cleanup.policy=delete or cleanup.policy being an empty list.';
  const localMs = Number(v['local.retention.ms']);
  const ms = Number(v['retention.ms']);
  const localBytes = Number(v['local.retention.bytes']);
  const bytes = Number(v['retention.bytes']);
  if (localBytes !== -2 && bytes !== -1 && (localBytes === -1 || localBytes > bytes)) {
    return `Invalid value ${localBytes} for configuration local.retention.bytes: Value must not be ${localBytes === -1 ? `-1 as retention.bytes value is set as ${bytes}` : `more than retention.bytes property value: ${bytes}`}`;
  }
  if (localMs !== -2 && ms !== -1 && (localMs === -1 || localMs > ms)) {
    return `Invalid value ${localMs} for configuration local.retention.ms: Value must not be ${localMs === -1 ? `-1 as retention.ms value is set as ${ms}` : `more than retention.ms property value: ${ms}`}`;
  }
  const lagProblem = (name: string, lag: number, localName: string, effective: number) =>
    lag > 0 && effective >= 0 && lag > effective ? `Invalid value ${lag} for configuration ${name}: Value must not exceed ${localName} (effective value: ${effective})` : null;
  const lag = lagProblem('remote.copy.lag.bytes', Number(v['remote.copy.lag.bytes']), 'local.retention.bytes', localBytes === -2 ? bytes : localBytes)
    ?? lagProblem('remote.copy.lag.ms', Number(v['remote.copy.lag.ms']), 'local.retention.ms', localMs === -2 ? ms : localMs);
  if (lag !== null) return lag;
  if (v['remote.log.copy.disable'] === true) {
    const identical = (what: string) => `When \`remote.log.copy.disable\` is set to true, the \`local.retention.${what}\` and \`retention.${what}\` must be set to the identical value because there will be no more logs copied to the remote storage.`;
    if (localBytes !== -2 && localBytes !== bytes) return identical('bytes');
    if (localMs !== -2 && localMs !== ms) return identical('ms');
  }
  return null;
}

/**
 * What the settings table cannot check because the language lives with a topic feature above
 * config/: a view's header filter (views/filter.ts).
 */
function featureConfigProblem(name: string, value: string): string | null {
  if (name !== 'samsa.view.filter') return null;
  const problem = checkViewFilter(value);
  return problem === null ? null : `Invalid value ${value} for configuration ${name}: ${problem}`;
}

/** IncrementalAlterConfigs operation codes. */
export const OpType = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;
const OP_NAMES = ['SET', 'DELETE', 'APPEND', 'SUBTRACT'];

export interface IncrementalOp {
  name: string;
  configOperation: number;
  value: string | null;
}

/**
 * Applies incremental operations to a copy of `current` (a topic's overrides). APPEND/SUBTRACT
 * work on list configs only, starting from the override or else the topic config's default;
 * APPEND adds values not yet present, SUBTRACT removes every listed value. Throws KafkaApiError:
 * INVALID_CONFIG "Can't APPEND to key K because its
 * type is not LIST."; an unknown operation code is UNKNOWN_SERVER_ERROR without a message (what
 * Kafka 4.4 answers). The result still needs validateTopicConfigs.
 */
export function applyIncrementalOps(current: Readonly<Record<string, string>>, ops: readonly IncrementalOp[]): Record<string, string> {
  const next: Record<string, string> = { ...current };
  for (const op of ops) {
    switch (op.configOperation) {
      case OpType.SET:
        next[op.name] = op.value as string;
        break;
      case OpType.DELETE:
        delete next[op.name];
        break;
      case OpType.APPEND:
      case OpType.SUBTRACT: {
        const opName = OP_NAMES[op.configOperation];
        if (!isTopicConfigName(op.name) || TOPIC_CONFIGS[op.name].type !== 'list') {
          throw new KafkaApiError(ErrorCode.INVALID_CONFIG, `Can't ${opName} to key ${op.name} because its type is not LIST.`);
        }
        const base = Object.prototype.hasOwnProperty.call(next, op.name) ? next[op.name] : TOPIC_CONFIGS[op.name].default;
        const parts = (base ?? '').split(',').filter((s) => s !== '');
        const given = (op.value ?? '').split(',');
        if (op.configOperation === OpType.APPEND) {
          for (const v of given) if (!parts.includes(v)) parts.push(v);
        } else {
          for (const v of given) {
            const i = parts.indexOf(v);
            if (i >= 0) parts.splice(i, 1);
          }
        }
        next[op.name] = parts.join(',');
        break;
      }
      default:
        // Kafka 4.4 has no check for this: the unknown operation fails inside its controller,
        // answered UNKNOWN_SERVER_ERROR without a message.
        throw new KafkaApiError(ErrorCode.UNKNOWN_SERVER_ERROR);
    }
  }
  return next;
}

/** ConfigResource.Type ids. */
export const ResourceType = { UNKNOWN: 0, TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8, CLIENT_METRICS: 16, GROUP: 32 } as const;

/** Kafka's enum name of a resource type id (UNKNOWN for ids it does not define). */
export function resourceTypeName(id: number): string {
  switch (id) {
    case ResourceType.TOPIC: return 'TOPIC';
    case ResourceType.BROKER: return 'BROKER';
    case ResourceType.BROKER_LOGGER: return 'BROKER_LOGGER';
    case ResourceType.CLIENT_METRICS: return 'CLIENT_METRICS';
    case ResourceType.GROUP: return 'GROUP';
    default: return 'UNKNOWN';
  }
}

/** Java's Integer.parseInt acceptance (optional sign, decimal digits, int32 range), else null. */
export function parseJavaInt(s: string): number | null {
  if (!/^[+-]?\d+$/.test(s)) return null;
  const n = Number(s);
  return n >= -2147483648 && n <= 2147483647 ? n : null;
}

/** The message of a KafkaApiError as Kafka's ApiError.message() gives it: null when none was set. */
export function apiErrorMessage(err: KafkaApiError): string | null {
  return err.message === '' || err.message === errorName(err.errorCode) ? null : err.message;
}

// ---------------------------------------------------------------------------------------------
// AlterConfigs / IncrementalAlterConfigs

export interface AlterResourceRequest {
  resourceType: number;
  resourceName: string;
  /** Legacy AlterConfigs entries arrive here as SET operations. */
  configs: IncrementalOp[];
}

export interface AlterResourceResult {
  errorCode: number;
  errorMessage: string | null;
  resourceType: number;
  resourceName: string;
}

/** What the alter path needs of the broker (a structural slice of Broker, easy to fake in tests). */
export interface ConfigAlterTarget {
  readonly nodeId: number;
  /** The broker's configuration with its dynamic broker configs in effect (absent: the defaults). */
  readonly rawConfig?: BrokerConfig;
  readonly metadataCache: { topic(name: string): { configs: Record<string, string> } | undefined };
  /** Replaces a topic's overrides (in a cluster: written to the metadata store, awaited). */
  setTopicConfigs(name: string, configs: Record<string, string>): void | Promise<void>;
  /** The dynamic broker configs of a broker id or DEFAULT_BROKER_CONFIGS (absent: none). */
  dynamicBrokerConfigs?(key: string): Readonly<Record<string, string>>;
  /** Replaces them (written to the metadata store, awaited until this broker's cache shows them). */
  setBrokerConfigs?(key: string, configs: Record<string, string>): Promise<void>;
  /** A group's config overrides and the broker settings bounding them (absent: GROUP resources unsupported). */
  readonly groupConfigs?: { overrides(groupId: string): Readonly<Record<string, string>>; readonly broker: GroupConfigBroker };
  /** Replaces a group's overrides (written to the metadata store, awaited until this broker's cache shows them). */
  setGroupConfigs?(groupId: string, configs: Record<string, string>): Promise<void>;
}

/**
 * Both alter APIs, resource by resource in request order, following Kafka 4's broker-side
 * ConfigAdminManager.preprocess and then the controller (ControllerConfigurationValidator,
 * ConfigurationControlManager):
 * - the same (type, name) twice: INVALID_REQUEST "Each resource must appear at most once." for each;
 * - a config name twice: INVALID_REQUEST "Error due to duplicate config keys";
 * - null values (legacy: any; incremental: other than DELETE): INVALID_REQUEST
 *   "Null value not supported for : a, b";
 * - TOPIC: "" → INVALID_REQUEST "Default topic resources are not allowed."; illegal name →
 *   INVALID_TOPIC_EXCEPTION; then the new override set (legacy: exactly the listed configs;
 *   incremental: the operations applied to the current overrides) is validated (INVALID_CONFIG);
 *   then an unknown topic is UNKNOWN_TOPIC_OR_PARTITION "The topic 'T' does not exist.";
 *   validate_only stops there;
 * - BROKER: a non-empty name must be this node's id (INVALID_REQUEST "Node id must be an integer,
 *   but it is: X" / "Unexpected broker id, expected N, but received X"); "" is the cluster-wide
 *   default. Every config Kafka 4.4 marks dynamic may be set, checked as Kafka checks it
 *   (config/dynamic-broker-configs.ts: INVALID_REQUEST "Cannot update these configs dynamically:
 *   [a, b]" for the others, "Invalid value V for configuration K: …" for bad values, …);
 * - GROUP: "" → INVALID_REQUEST "Default group resources are not allowed."; the new override set
 *   (legacy: exactly the listed configs; incremental: SET / DELETE applied to the current ones,
 *   DELETE of a name not set a no-op; APPEND / SUBTRACT INVALID_CONFIG "Can't APPEND to key K
 *   because its type is not LIST." for every group config, as Kafka 4.4 answers) is validated
 *   (group-configs.ts validateGroupConfigs: INVALID_CONFIG); the group need not exist;
 * - BROKER_LOGGER (incremental), CLIENT_METRICS: INVALID_REQUEST "Resource type X is not
 *   supported by this broker" (Kafka serves them; Samsa has none); any other type (and
 *   BROKER_LOGGER in legacy AlterConfigs, as in Kafka): INVALID_REQUEST "Unknown resource type N".
 */
export async function alterConfigResources(
  broker: ConfigAlterTarget,
  resources: readonly AlterResourceRequest[],
  opts: { validateOnly: boolean; incremental: boolean },
): Promise<AlterResourceResult[]> {
  const seen = new Map<string, number>();
  const key = (r: AlterResourceRequest) => `${r.resourceType}\u0000${r.resourceName}`;
  for (const r of resources) seen.set(key(r), (seen.get(key(r)) ?? 0) + 1);
  const results: AlterResourceResult[] = [];
  for (const r of resources) {
    const base = { resourceType: r.resourceType, resourceName: r.resourceName };
    try {
      if (seen.get(key(r))! > 1) throw new KafkaApiError(ErrorCode.INVALID_REQUEST, 'Each resource must appear at most once.');
      await alterOne(broker, r, opts);
      results.push({ ...base, errorCode: ErrorCode.NONE, errorMessage: null });
    } catch (err) {
      if (!(err instanceof KafkaApiError)) throw err;
      results.push({ ...base, errorCode: err.errorCode, errorMessage: apiErrorMessage(err) });
    }
  }
  return results;
}

/**
 * One BROKER resource: the resource's dynamic configs after the request (legacy AlterConfigs:
 * exactly the listed ones; incremental: the operations over the stored ones), checked as Kafka
 * 4.4 checks them (config/dynamic-broker-configs.ts), then stored unless validate_only.
 */
async function alterBrokerConfigs(broker: ConfigAlterTarget, r: AlterResourceRequest, opts: { validateOnly: boolean; incremental: boolean }): Promise<void> {
  const key = r.resourceName === '' ? DEFAULT_BROKER_CONFIGS : r.resourceName;
  const current = broker.dynamicBrokerConfigs?.(key) ?? {};
  const next = prepareBrokerConfigs(current, r.configs, opts.incremental);
  validateBrokerConfigs({ config: broker.rawConfig ?? (defaultConfig ??= loadConfig()), perBroker: r.resourceName !== '' }, next);
  if (opts.validateOnly || !broker.setBrokerConfigs) return;
  if (JSON.stringify(next) === JSON.stringify(current)) return;
  await broker.setBrokerConfigs(key, next);
}

/** The configuration validation falls back on for a target that has none (tests' fakes). */
let defaultConfig: BrokerConfig | undefined;

/**
 * Samsa, stricter than Kafka 4.4 (which accepts any name and skips the copy at write time, with a
 * log line): a share group's dead-letter topic must have the broker's
 * errors.deadletterqueue.topic.name.prefix, and an existing topic must allow it
 * (errors.deadletterqueue.group.enable=true). INVALID_CONFIG otherwise.
 */
function checkDeadLetterTopic(broker: ConfigAlterTarget, name: string): void {
  const prefix = brokerSetting(broker.groupConfigs!.broker, 'errors.deadletterqueue.topic.name.prefix').value;
  if (prefix !== '' && !name.startsWith(prefix)) {
    throw new KafkaApiError(ErrorCode.INVALID_CONFIG, `errors.deadletterqueue.topic.name: DLQ topic name must start with '${prefix}' (errors.deadletterqueue.topic.name.prefix)`);
  }
  const topic = broker.metadataCache.topic(name);
  if (topic && topic.configs['errors.deadletterqueue.group.enable'] !== 'true') {
    throw new KafkaApiError(ErrorCode.INVALID_CONFIG, `errors.deadletterqueue.topic.name: topic ${name} does not allow share groups' dead letters (errors.deadletterqueue.group.enable=false)`);
  }
}

/** One GROUP resource (Kafka's ConfigurationControlManager with GroupConfig.validate). */
async function alterGroupConfigs(broker: ConfigAlterTarget, r: AlterResourceRequest, opts: { validateOnly: boolean; incremental: boolean }): Promise<void> {
  const groups = broker.groupConfigs!;
  if (r.resourceName === '') throw new KafkaApiError(ErrorCode.INVALID_REQUEST, 'Default group resources are not allowed.');
  const current = groups.overrides(r.resourceName);
  const next: Record<string, string> = opts.incremental ? { ...current } : {};
  for (const c of r.configs) {
    const op = opts.incremental ? c.configOperation : OpType.SET;
    if (op === OpType.SET) next[c.name] = c.value as string;
    else if (op === OpType.DELETE) delete next[c.name];
    else if (op === OpType.APPEND || op === OpType.SUBTRACT) {
      // Kafka 4.4 finds no list type among group configs here (its broker-side type lookup).
      throw new KafkaApiError(ErrorCode.INVALID_CONFIG, `Can't ${OP_NAMES[op]} to key ${c.name} because its type is not LIST.`);
    } else {
      throw new KafkaApiError(ErrorCode.UNKNOWN_SERVER_ERROR);
    }
  }
  // Stored as Kafka stores them: each value in its parsed form ("TRUE" → "true").
  const valid = validateGroupConfigs(next, groups.broker);
  const dlq = valid['errors.deadletterqueue.topic.name'];
  if (dlq && dlq !== current['errors.deadletterqueue.topic.name']) checkDeadLetterTopic(broker, dlq);
  if (opts.validateOnly || !broker.setGroupConfigs) return;
  if (JSON.stringify(valid) === JSON.stringify(current)) return;
  await broker.setGroupConfigs(r.resourceName, valid);
}

async function alterOne(broker: ConfigAlterTarget, r: AlterResourceRequest, opts: { validateOnly: boolean; incremental: boolean }): Promise<void> {
  const names = new Set<string>();
  for (const c of r.configs) {
    if (names.has(c.name)) throw new KafkaApiError(ErrorCode.INVALID_REQUEST, 'Error due to duplicate config keys');
    names.add(c.name);
  }
  const nulls = r.configs.filter((c) => c.value === null && (!opts.incremental || c.configOperation !== OpType.DELETE)).map((c) => c.name);
  if (nulls.length > 0) throw new KafkaApiError(ErrorCode.INVALID_REQUEST, `Null value not supported for : ${nulls.join(', ')}`);
  switch (r.resourceType) {
    case ResourceType.TOPIC: {
      const name = r.resourceName;
      if (name === '') throw new KafkaApiError(ErrorCode.INVALID_REQUEST, 'Default topic resources are not allowed.');
      const problem = topicNameProblem(name);
      if (problem) throw new KafkaApiError(ErrorCode.INVALID_TOPIC_EXCEPTION, problem);
      const info = broker.metadataCache.topic(name);
      let next: Record<string, string | null>;
      if (opts.incremental) {
        next = applyIncrementalOps(info?.configs ?? {}, r.configs);
      } else {
        next = {};
        for (const c of r.configs) next[c.name] = c.value;
      }
      const valid = validateTopicConfigs(next, broker.rawConfig, info?.configs);
      if (!info) throw new KafkaApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${name}' does not exist.`);
      // A view's source is fixed at creation (src/views/views.ts).
      checkViewAlter(info.configs, valid);
      checkScheduleAlter(info.configs, valid);
      checkScheduleConfigs(name, valid, broker.metadataCache);
      if (!opts.validateOnly) await broker.setTopicConfigs(name, valid);
      return;
    }
    case ResourceType.BROKER: {
      if (r.resourceName !== '') {
        const id = parseJavaInt(r.resourceName);
        if (id === null) throw new KafkaApiError(ErrorCode.INVALID_REQUEST, `Node id must be an integer, but it is: ${r.resourceName}`);
        if (id !== broker.nodeId) throw new KafkaApiError(ErrorCode.INVALID_REQUEST, `Unexpected broker id, expected ${broker.nodeId}, but received ${r.resourceName}`);
      }
      await alterBrokerConfigs(broker, r, opts);
      return;
    }
    case ResourceType.GROUP:
      if (broker.groupConfigs) {
        await alterGroupConfigs(broker, r, opts);
        return;
      }
      throw new KafkaApiError(ErrorCode.INVALID_REQUEST, `Resource type ${resourceTypeName(r.resourceType)} is not supported by this broker`);
    case ResourceType.BROKER_LOGGER:
    case ResourceType.CLIENT_METRICS:
      if (r.resourceType !== ResourceType.BROKER_LOGGER || opts.incremental) {
        throw new KafkaApiError(ErrorCode.INVALID_REQUEST, `Resource type ${resourceTypeName(r.resourceType)} is not supported by this broker`);
      }
  }
  throw new KafkaApiError(ErrorCode.INVALID_REQUEST, `Unknown resource type ${r.resourceType}`);
}
