/**
 * Probes: CreateTopics (CT1-CT13), DeleteTopics (DT1-DT6), CreatePartitions (CP1-CP5),
 * DescribeConfigs / AlterConfigs / IncrementalAlterConfigs (C1-C11), AlterReplicaLogDirs,
 * DescribeLogDirs and DescribeCluster.
 */
import { createTopic, produce, batch, waitTopic, waitTopicGone, topicId } from './fixtures.js';
import { filterAt, keyedAt, sortAt, type Json } from './normalise.js';
import type { Probe, ProbeCtx } from './runner.js';
import type { Outcome } from './wire.js';

type Body = Record<string, unknown> | ((ctx: ProbeCtx) => Record<string, unknown>);

function probe(prefix: string, api: number, id: string, version: number, about: string, body: Body, extra: Partial<Probe> = {}): Probe {
  return { id: `${prefix}/${id}`, api, version, about, body, ...extra };
}

// ---- CreateTopics ------------------------------------------------------------------------------

const topicSpec = (name: string, o: Record<string, unknown> = {}) => ({ name, numPartitions: 1, replicationFactor: 1, ...o });

/** Successful creations list every effective topic config (CT13): compare them sorted by name. */
const sortConfigs = (j: Json): Json => keyedAt(j, 'topics.[].configs');

function createTopicsProbes(): Probe[] {
  const ct = (id: string, version: number, about: string, topics: Record<string, unknown>[], extra: Partial<Probe> & { validateOnly?: boolean } = {}): Probe => {
    const { validateOnly, ...rest } = extra;
    return probe('create-topics', 19, id, version, about, { topics, timeoutMs: 30_000, validateOnly: validateOnly ?? false }, {
      normalise: sortConfigs,
      // A created topic must be usable on both before the next probe.
      after: async (ctx) => {
        for (const t of topics) if (typeof t.name === 'string' && t.name.startsWith('pc-ok-') && !validateOnly) await waitTopic(ctx, t.name, (t.numPartitions as number) > 0 ? (t.numPartitions as number) : 1);
      },
      ...rest,
    });
  };
  return [
    ct('v2-min', 2, 'success at the oldest advertised version', [topicSpec('pc-ok-v2')]),
    ct('v4', 4, 'success (librdkafka 2.0.2 version)', [topicSpec('pc-ok-v4', { numPartitions: 3 })]),
    ct('v5-first-flexible', 5, 'success with configs in the answer (CT13)', [topicSpec('pc-ok-v5')]),
    ct('v7-max', 7, 'success with topic id and configs (CT13)', [topicSpec('pc-ok-v7', { configs: [{ name: 'retention.ms', value: '3600000' }, { name: 'cleanup.policy', value: 'compact' }] })]),
    ct('v7-exists', 7, 'name already exists (CT1): TOPIC_ALREADY_EXISTS', [topicSpec('pc-exists')], { setup: (ctx) => createTopic(ctx, 'pc-exists', 1) }),
    ct('v7-invalid-char', 7, 'illegal character (CT2): INVALID_TOPIC_EXCEPTION', [topicSpec('bad name')]),
    ct('v7-empty-name', 7, 'name "" (CT2)', [topicSpec('')]),
    ct('v7-dot', 7, 'name "." (CT2)', [topicSpec('.')]),
    ct('v7-dot-dot', 7, 'name ".." (CT2)', [topicSpec('..')]),
    ct('v7-name-250', 7, '250 characters (CT2)', [topicSpec('p'.repeat(250))]),
    ct('v7-name-249', 7, 'exactly 249 characters is fine (CT2)', [topicSpec(`pc-ok-${'q'.repeat(243)}`)]),
    ct('v7-collides', 7, 'collides with an existing name once . and _ are equal (CT3)', [topicSpec('pc_coll')], { setup: (ctx) => createTopic(ctx, 'pc.coll', 1) }),
    ct('v7-rf-3', 7, 'replication factor 3 on one broker (CT4): INVALID_REPLICATION_FACTOR', [topicSpec('pc-rf3', { replicationFactor: 3 })]),
    ct('v7-rf-0', 7, 'replication factor 0 (CT5)', [topicSpec('pc-rf0', { replicationFactor: 0 })]),
    ct('v7-rf-minus-2', 7, 'replication factor -2 (CT5)', [topicSpec('pc-rfm2', { replicationFactor: -2 })]),
    ct('v7-partitions-0', 7, 'num_partitions 0 (CT6): INVALID_PARTITIONS', [topicSpec('pc-p0', { numPartitions: 0 })]),
    ct('v7-partitions-minus-2', 7, 'num_partitions -2 (CT6)', [topicSpec('pc-pm2', { numPartitions: -2 })]),
    ct('v7-defaults', 7, 'num_partitions and replication_factor -1 (CT7): broker defaults', [topicSpec('pc-ok-defaults', { numPartitions: -1, replicationFactor: -1 })]),
    ct('v7-duplicate', 7, 'same name twice (CT8): INVALID_REQUEST, nothing created', [topicSpec('pc-dup'), topicSpec('pc-dup')]),
    ct('v7-cluster-metadata', 7, '__cluster_metadata (CT9): INVALID_REQUEST', [topicSpec('__cluster_metadata')]),
    ct('v7-assignment-with-count', 7, 'assignments with num_partitions != -1 (CT10): INVALID_REQUEST', [topicSpec('pc-asg1', { assignments: [{ partitionIndex: 0, brokerIds: [1] }] })]),
    ct('v7-assignment-gap', 7, 'assignment indexes not 0..n-1 (CT10): INVALID_REPLICA_ASSIGNMENT', [topicSpec('pc-asg2', { numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 1, brokerIds: [1] }] })]),
    ct('v7-assignment-ok', 7, 'a valid manual assignment', [topicSpec('pc-ok-asg', { numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [1] }, { partitionIndex: 1, brokerIds: [1] }] })], {
      after: (ctx) => waitTopic(ctx, 'pc-ok-asg', 2),
    }),
    ct('v7-assignment-unknown-broker', 7, 'assignment to a broker that does not exist', [topicSpec('pc-asg3', { numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [7] }] })]),
    ct('v7-unknown-config', 7, 'unknown config name (CT11): INVALID_CONFIG', [topicSpec('pc-cfg1', { configs: [{ name: 'no.such.config', value: '1' }] })]),
    ct('v7-null-config-value', 7, 'null config value (CT11)', [topicSpec('pc-cfg2', { configs: [{ name: 'retention.ms', value: null }] })]),
    ct('v7-bad-config-value', 7, 'unparsable config value (CT11)', [topicSpec('pc-cfg3', { configs: [{ name: 'retention.ms', value: 'soon' }] })]),
    ct('v7-validate-only', 7, 'validate_only (CT12): real results, nothing created', [topicSpec('pc-validate', { numPartitions: 2 })], { validateOnly: true }),
    ct('v7-validate-only-then-metadata', 7, 'after validate_only the topic does not exist', [topicSpec('pc-validate', { numPartitions: 2 })], { validateOnly: true }),
    ct('v3-partial-failure', 3, 'one good and one bad topic in one request', [topicSpec('pc-ok-partial'), topicSpec('bad*name')]),
  ];
}

// ---- DeleteTopics ------------------------------------------------------------------------------

/** Kafka shuffles DeleteTopics results on purpose (DT6). */
const sortDeleted = (j: Json): Json => sortAt(j, 'responses', (x) => String((x as any).name));

function deleteTopicsProbes(): Probe[] {
  const dt = (id: string, version: number, about: string, body: Body, create: string[] = [], extra: Partial<Probe> = {}): Probe =>
    probe('delete-topics', 20, id, version, about, body, {
      setup: async (ctx) => {
        for (const t of create) await createTopic(ctx, t, 1);
        ctx.state.deleteIds = {} as Record<string, string>;
        for (const t of create) ctx.state.deleteIds[t] = await topicId(ctx, t);
      },
      after: async (ctx) => {
        for (const t of create) await waitTopicGone(ctx, t);
      },
      normalise: sortDeleted,
      ...extra,
    });
  return [
    dt('v1-min', 1, 'delete by name at the oldest advertised version', { topicNames: ['pdt-v1'], timeoutMs: 30_000 }, ['pdt-v1']),
    dt('v4-first-flexible', 4, 'delete by name', { topicNames: ['pdt-v4'], timeoutMs: 30_000 }, ['pdt-v4']),
    dt('v6-by-name', 6, 'delete by name at v6', { topics: [{ name: 'pdt-v6' }], timeoutMs: 30_000 }, ['pdt-v6']),
    dt('v6-by-id', 6, 'delete by topic id at v6', (ctx) => ({ topics: [{ name: null, topicId: ctx.state.deleteIds['pdt-v6-id'] }], timeoutMs: 30_000 }), ['pdt-v6-id']),
    dt('v1-unknown', 1, 'unknown name (DT1): UNKNOWN_TOPIC_OR_PARTITION', { topicNames: ['pdt-missing'], timeoutMs: 30_000 }),
    dt('v6-unknown-name', 6, 'unknown name at v6 (DT1)', { topics: [{ name: 'pdt-missing' }], timeoutMs: 30_000 }),
    dt('v6-unknown-id', 6, 'unknown topic id (DT2): UNKNOWN_TOPIC_ID', { topics: [{ name: null, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' }], timeoutMs: 30_000 }),
    dt('v6-name-and-id', 6, 'both name and id (DT3): INVALID_REQUEST', { topics: [{ name: 'pdt-both', topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' }], timeoutMs: 30_000 }),
    dt('v6-neither', 6, 'neither name nor id (DT3)', { topics: [{ name: null }], timeoutMs: 30_000 }),
    dt('v5-duplicate', 5, 'same name twice (DT4): INVALID_REQUEST', { topicNames: ['pdt-dup', 'pdt-dup'], timeoutMs: 30_000 }, [], {
      setup: (ctx) => createTopic(ctx, 'pdt-dup', 1),
      after: async () => {},
    }),
    dt('v5-invalid-name', 5, 'an illegal name', { topicNames: ['bad name'], timeoutMs: 30_000 }),
  ];
}

// ---- CreatePartitions --------------------------------------------------------------------------

function createPartitionsProbes(): Probe[] {
  const cp = (id: string, version: number, about: string, topics: Record<string, unknown>[], extra: Partial<Probe> & { validateOnly?: boolean; grows?: [string, number] } = {}): Probe => {
    const { validateOnly, grows, ...rest } = extra;
    return probe('create-partitions', 37, id, version, about, { topics, timeoutMs: 30_000, validateOnly: validateOnly ?? false }, {
      setup: async (ctx) => {
        for (const t of topics) if (typeof t.name === 'string' && t.name.startsWith('pcp-')) await ctx.once(`cp:${t.name}`, () => createTopic(ctx, t.name as string, 2));
      },
      after: async (ctx) => {
        if (grows) await waitTopic(ctx, grows[0], grows[1]);
      },
      ...rest,
    });
  };
  return [
    cp('v0-min', 0, 'grow 2 -> 3', [{ name: 'pcp-v0', count: 3, assignments: null }], { grows: ['pcp-v0', 3] }),
    cp('v3-max', 3, 'grow 2 -> 4 at v3', [{ name: 'pcp-v3', count: 4, assignments: null }], { grows: ['pcp-v3', 4] }),
    cp('v3-decrease', 3, 'count below current (CP1): INVALID_PARTITIONS', [{ name: 'pcp-dec', count: 1, assignments: null }]),
    cp('v3-same', 3, 'count equal to current (CP2)', [{ name: 'pcp-same', count: 2, assignments: null }]),
    cp('v3-unknown', 3, 'unknown topic (CP3)', [{ name: 'pcpx-missing', count: 3, assignments: null }]),
    cp('v3-assignment-count-mismatch', 3, 'assignments for 2 partitions when adding 1 (CP4)', [{ name: 'pcp-asg', count: 3, assignments: [{ brokerIds: [1] }, { brokerIds: [1] }] }]),
    cp('v3-assignment-ok', 3, 'one assignment for the one added partition', [{ name: 'pcp-asg-ok', count: 3, assignments: [{ brokerIds: [1] }] }], { grows: ['pcp-asg-ok', 3] }),
    cp('v3-duplicate', 3, 'same topic twice (CP5): INVALID_REQUEST', [{ name: 'pcp-dup', count: 3, assignments: null }, { name: 'pcp-dup', count: 4, assignments: null }]),
    cp('v3-validate-only', 3, 'validate_only: the answer of a real change, nothing changed', [{ name: 'pcp-val', count: 5, assignments: null }], { validateOnly: true }),
  ];
}

// ---- DescribeConfigs / AlterConfigs / IncrementalAlterConfigs ----------------------------------

const TOPIC = 2;
const BROKER = 4;
/** Topic configs both brokers know; the full lists are compared by the probe without keys. */
const KEYS = ['cleanup.policy', 'retention.ms', 'segment.bytes', 'max.message.bytes', 'min.insync.replicas', 'message.timestamp.type', 'compression.type'];

const sortDescribed = (j: Json): Json => keyedAt(sortAt(j, 'results.[].configs.[].synonyms', 'name'), 'results.[].configs');

function configProbes(): Probe[] {
  const cfgTopic = 'pcfg-topic';
  const setup = (ctx: ProbeCtx) => ctx.once('cfg-topic', () => createTopic(ctx, cfgTopic, 1, { 'retention.ms': '7200000' }));
  const dc = (id: string, version: number, about: string, resources: Record<string, unknown>[], extra: Partial<Probe> & { synonyms?: boolean; docs?: boolean } = {}): Probe => {
    const { synonyms, docs, ...rest } = extra;
    return probe('describe-configs', 32, id, version, about, { resources, includeSynonyms: synonyms ?? false, includeDocumentation: docs ?? false }, { setup, normalise: sortDescribed, ...rest });
  };
  const alterTopic = (name: string) => async (ctx: ProbeCtx) => {
    await setup(ctx);
    await ctx.once(`alter:${name}`, () => createTopic(ctx, name, 1, { 'retention.ms': '7200000', 'segment.bytes': '1048576' }));
    ctx.state[`overrides-before:${name}`] = await overrides(ctx, name);
  };
  /**
   * After an Alter: the topic's overrides as DescribeConfigs shows them, so the effect is compared
   * too. Kafka applies a change through its metadata log, so its DescribeConfigs may show the old
   * overrides for a moment after a successful Alter: while they still equal the ones from before,
   * re-check for up to 3 s (an Alter that changes nothing simply ends the wait).
   */
  const overrides = async (ctx: ProbeCtx, name: string): Promise<string[]> => {
    const r = await ctx.call(32, 4, { resources: [{ resourceType: TOPIC, resourceName: name, configurationKeys: null }] });
    return (r.results[0].configs as any[]).filter((c) => c.configSource === 1).map((c) => `${c.name}=${c.value}`).sort();
  };
  const overridesAfter = (name: string) => async (ctx: ProbeCtx, outcome: Outcome) => {
    const before = ctx.state[`overrides-before:${name}`] as string[] | undefined;
    const body = outcome.kind === 'answered' ? (outcome.body as { responses?: { errorCode: number }[] }) : undefined;
    const applied = (body?.responses ?? []).some((x) => x.errorCode === 0);
    let now = await overrides(ctx, name);
    for (const deadline = Date.now() + 3000; applied && before && String(now) === String(before) && Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 100));
      now = await overrides(ctx, name);
    }
    ctx.state[`overrides:${name}`] = now;
  };
  const withOverrides = (name: string) => (j: Json, ctx: ProbeCtx): Json => ({ ...(j as object), overridesAfter: ctx.state[`overrides:${name}`] ?? null }) as Json;
  const ac = (id: string, version: number, about: string, name: string, resources: Record<string, unknown>[], validateOnly = false, extra: Partial<Probe> = {}): Probe =>
    probe('alter-configs', 33, id, version, about, { resources, validateOnly }, { setup: alterTopic(name), after: overridesAfter(name), normalise: withOverrides(name), ...extra });
  const iac = (id: string, version: number, about: string, name: string, resources: Record<string, unknown>[], validateOnly = false): Probe =>
    probe('incremental-alter-configs', 44, id, version, about, { resources, validateOnly }, { setup: alterTopic(name), after: overridesAfter(name), normalise: withOverrides(name) });
  const res = (name: string, configs: Record<string, unknown>[], type = TOPIC) => ({ resourceType: type, resourceName: name, configs });
  return [
    dc('v1-min-keys', 1, 'chosen topic configs (C5: sources)', [{ resourceType: TOPIC, resourceName: cfgTopic, configurationKeys: KEYS }]),
    dc('v4-max-keys', 4, 'chosen topic configs at v4', [{ resourceType: TOPIC, resourceName: cfgTopic, configurationKeys: KEYS }]),
    dc('v4-all-topic-configs', 4, 'every topic config (names, values, sources)', [{ resourceType: TOPIC, resourceName: cfgTopic, configurationKeys: null }]),
    dc('v1-synonyms', 1, 'include_synonyms (C5)', [{ resourceType: TOPIC, resourceName: cfgTopic, configurationKeys: ['retention.ms', 'cleanup.policy'] }], { synonyms: true }),
    dc('v3-documentation', 3, 'include_documentation and config types', [{ resourceType: TOPIC, resourceName: cfgTopic, configurationKeys: ['retention.ms', 'cleanup.policy'] }], { docs: true, normalise: (j) => {
      // Documentation text is prose of each release; whether it is there is compared.
      for (const r of (j as any).results) for (const c of r.configs) if (typeof c.documentation === 'string' && c.documentation !== '') c.documentation = '<doc>';
      return sortDescribed(j);
    } }),
    dc('v4-unknown-topic', 4, 'well-formed unknown topic (C1): UNKNOWN_TOPIC_OR_PARTITION', [{ resourceType: TOPIC, resourceName: 'pcfg-missing', configurationKeys: null }]),
    dc('v4-illegal-topic', 4, 'illegal topic name (C2): INVALID_TOPIC_EXCEPTION', [{ resourceType: TOPIC, resourceName: 'bad name', configurationKeys: null }]),
    dc('v4-broker-wrong-id', 4, 'broker resource that is not this broker (C3): INVALID_REQUEST', [{ resourceType: BROKER, resourceName: '7', configurationKeys: null }]),
    dc('v4-broker-keys', 4, 'chosen broker configs', [{ resourceType: BROKER, resourceName: '1', configurationKeys: ['num.partitions', 'auto.create.topics.enable', 'log.retention.hours', 'message.max.bytes', 'group.initial.rebalance.delay.ms', 'offsets.topic.replication.factor'] }]),
    dc('v4-broker-default', 4, 'broker resource "" (C3): cluster-wide dynamic defaults only', [{ resourceType: BROKER, resourceName: '', configurationKeys: null }]),
    dc('v4-unknown-keys', 4, 'unknown configuration keys are left out (C4)', [{ resourceType: TOPIC, resourceName: cfgTopic, configurationKeys: ['no.such.key', 'retention.ms'] }]),
    dc('v4-empty-keys', 4, 'configuration_keys [] ', [{ resourceType: TOPIC, resourceName: cfgTopic, configurationKeys: [] }], { normalise: (j) => sortDescribed(j) }),
    dc('v4-unknown-resource-type', 4, 'resource type 9', [{ resourceType: 9, resourceName: 'x', configurationKeys: null }]),
    dc('v4-two-resources', 4, 'a topic and an unknown topic', [
      { resourceType: TOPIC, resourceName: cfgTopic, configurationKeys: ['retention.ms'] },
      { resourceType: TOPIC, resourceName: 'pcfg-missing-2', configurationKeys: ['retention.ms'] },
    ]),
    ac('v0-min', 0, 'legacy set on a topic (C10: replaces the whole set)', 'pcfg-ac0', [res('pcfg-ac0', [{ name: 'retention.ms', value: '3600000' }])]),
    ac('v2-max', 2, 'legacy set at v2', 'pcfg-ac2', [res('pcfg-ac2', [{ name: 'cleanup.policy', value: 'compact' }])]),
    ac('v2-unknown-topic', 2, 'unknown topic (C6): UNKNOWN_TOPIC_OR_PARTITION', 'pcfg-ac-u', [res('pcfg-ac-missing', [{ name: 'retention.ms', value: '1000' }])]),
    ac('v2-unknown-topic-unknown-config', 2, 'unknown topic and unknown config (C6: config checked first)', 'pcfg-ac-u2', [res('pcfg-ac-missing', [{ name: 'no.such', value: '1' }])]),
    ac('v2-unknown-config', 2, 'unknown config on an existing topic (C7): INVALID_CONFIG', 'pcfg-ac-c', [res('pcfg-ac-c', [{ name: 'no.such', value: '1' }])]),
    ac('v2-bad-value', 2, 'bad value (C7)', 'pcfg-ac-v', [res('pcfg-ac-v', [{ name: 'retention.ms', value: 'x' }])]),
    ac('v2-duplicate', 2, 'same resource twice (C9): INVALID_REQUEST', 'pcfg-ac-d', [res('pcfg-ac-d', [{ name: 'retention.ms', value: '1000' }]), res('pcfg-ac-d', [{ name: 'retention.ms', value: '2000' }])], false, {
      // Kafka 4.4 never answers this one (its controller fails the whole request): "timeout".
      deadlineMs: 2000,
    }),
    ac('v2-empty-name', 2, 'topic resource "" (C11): INVALID_REQUEST', 'pcfg-ac-e', [res('', [{ name: 'retention.ms', value: '1000' }])]),
    ac('v2-validate-only', 2, 'validate_only: nothing changes', 'pcfg-ac-val', [res('pcfg-ac-val', [{ name: 'retention.ms', value: '1000' }])], true),
    ac('v2-broker', 2, 'broker resource: a static config', 'pcfg-ac-b', [res('1', [{ name: 'num.partitions', value: '3' }], BROKER)]),
    iac('v0-min', 0, 'SET one key (only it changes)', 'pcfg-iac0', [res('pcfg-iac0', [{ name: 'retention.ms', configOperation: 0, value: '3600000' }])]),
    iac('v1-max', 1, 'SET and DELETE', 'pcfg-iac1', [res('pcfg-iac1', [{ name: 'cleanup.policy', configOperation: 0, value: 'compact' }, { name: 'segment.bytes', configOperation: 1, value: null }])]),
    iac('v1-append-non-list', 1, 'APPEND to a non-list config (C8): INVALID_CONFIG', 'pcfg-iac-a', [res('pcfg-iac-a', [{ name: 'retention.ms', configOperation: 2, value: '5' }])]),
    iac('v1-append-list', 1, 'APPEND to cleanup.policy (a list)', 'pcfg-iac-l', [res('pcfg-iac-l', [{ name: 'cleanup.policy', configOperation: 2, value: 'compact' }])]),
    iac('v1-subtract-list', 1, 'SUBTRACT from cleanup.policy', 'pcfg-iac-s', [res('pcfg-iac-s', [{ name: 'cleanup.policy', configOperation: 3, value: 'delete' }])]),
    iac('v1-bad-operation', 1, 'operation code 9', 'pcfg-iac-o', [res('pcfg-iac-o', [{ name: 'retention.ms', configOperation: 9, value: '5' }])]),
    iac('v1-unknown-topic', 1, 'unknown topic (C6)', 'pcfg-iac-u', [res('pcfg-iac-missing', [{ name: 'retention.ms', configOperation: 0, value: '5' }])]),
    iac('v1-unknown-config', 1, 'unknown config (C7)', 'pcfg-iac-c', [res('pcfg-iac-c', [{ name: 'no.such', configOperation: 0, value: '5' }])]),
    iac('v1-delete-unknown-config', 1, 'DELETE of an unknown config name', 'pcfg-iac-du', [res('pcfg-iac-du', [{ name: 'no.such', configOperation: 1, value: null }])]),
    iac('v1-duplicate', 1, 'same resource twice (C9)', 'pcfg-iac-d', [res('pcfg-iac-d', [{ name: 'retention.ms', configOperation: 0, value: '5' }]), res('pcfg-iac-d', [{ name: 'retention.ms', configOperation: 0, value: '6' }])]),
    iac('v1-broker', 1, 'broker resource: SET a static config', 'pcfg-iac-b', [res('1', [{ name: 'num.partitions', configOperation: 0, value: '3' }], BROKER)]),
    iac('v1-null-set-value', 1, 'SET with a null value', 'pcfg-iac-n', [res('pcfg-iac-n', [{ name: 'retention.ms', configOperation: 0, value: null }])]),
    ...throttleProbes(),
  ];
}

/**
 * Dynamic broker configs: the replication throttle rates (KIP-73) on broker 1 and on the
 * cluster default "", described after each change (sources, synonyms), then removed again.
 */
function throttleProbes(): Probe[] {
  const RATES = ['leader.replication.throttled.rate', 'follower.replication.throttled.rate'];
  const describeBrokers = async (ctx: ProbeCtx) => {
    const r = await ctx.call(32, 4, {
      resources: [{ resourceType: BROKER, resourceName: '1', configurationKeys: RATES }, { resourceType: BROKER, resourceName: '', configurationKeys: RATES }],
      includeSynonyms: true, includeDocumentation: false,
    });
    return (r.results as any[]).map((x) => ({ name: x.resourceName, configs: (x.configs as any[]).map((c) => ({ name: c.name, value: c.value, source: c.configSource, readOnly: c.readOnly, synonyms: c.synonyms })).sort((a, b) => (a.name < b.name ? -1 : 1)) }));
  };
  /** Kafka applies a broker config through its metadata log: wait (up to 3 s) for the described state to change. */
  const after = (key: string) => async (ctx: ProbeCtx, outcome: Outcome) => {
    const before = JSON.stringify(ctx.state['throttle-state'] ?? null);
    const body = outcome.kind === 'answered' ? (outcome.body as { responses?: { errorCode: number }[] }) : undefined;
    const applied = (body?.responses ?? []).some((x) => x.errorCode === 0);
    let now = await describeBrokers(ctx);
    for (const deadline = Date.now() + 3000; applied && JSON.stringify(now) === before && Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 100));
      now = await describeBrokers(ctx);
    }
    // A request changing two resources may show one change before the other: look once more.
    if (applied) {
      await new Promise((r) => setTimeout(r, 500));
      now = await describeBrokers(ctx);
    }
    ctx.state['throttle-state'] = now;
    ctx.state[key] = now;
  };
  const setup = async (ctx: ProbeCtx) => {
    ctx.state['throttle-state'] ??= await describeBrokers(ctx);
  };
  const withState = (key: string) => (j: Json, ctx: ProbeCtx): Json => ({ ...(j as object), describedAfter: (ctx.state[key] ?? null) as Json }) as Json;
  const iacB = (id: string, about: string, resources: Record<string, unknown>[], validateOnly = false): Probe =>
    probe('incremental-alter-configs', 44, id, 1, about, { resources, validateOnly }, { setup, after: after(`t:${id}`), normalise: withState(`t:${id}`) });
  const acB = (id: string, about: string, resources: Record<string, unknown>[]): Probe =>
    probe('alter-configs', 33, id, 2, about, { resources, validateOnly: false }, { setup, after: after(`t:a${id}`), normalise: withState(`t:a${id}`) });
  const b = (name: string, configs: Record<string, unknown>[]) => ({ resourceType: BROKER, resourceName: name, configs });
  const set = (name: string, value: string | null) => ({ name, configOperation: 0, value });
  const del = (name: string) => ({ name, configOperation: 1, value: null });
  return [
    iacB('v1-throttle-rate-broker', 'SET leader.replication.throttled.rate on broker 1 (DYNAMIC_BROKER_CONFIG)', [b('1', [set(RATES[0], '1048576')])]),
    iacB('v1-throttle-rate-default', 'SET follower.replication.throttled.rate on "" (DYNAMIC_DEFAULT_BROKER_CONFIG)', [b('', [set(RATES[1], '2097152')])]),
    iacB('v1-throttle-rate-both-levels', 'the same key on broker 1 and on "": the broker value wins, the default is a synonym', [b('1', [set(RATES[1], '3145728')]), b('', [set(RATES[0], '4194304')])]),
    iacB('v1-throttle-rate-validate-only', 'validate_only on a throttle rate: nothing changes', [b('1', [set(RATES[0], '5')])], true),
    iacB('v1-throttle-rate-bad-value', 'a throttle rate that is not a number', [b('1', [set(RATES[0], 'fast')])]),
    iacB('v1-throttle-rate-negative', 'a negative throttle rate', [b('1', [set(RATES[0], '-1')])]),
    iacB('v1-throttle-rate-append', 'APPEND to a throttle rate (not a list)', [b('1', [{ name: RATES[0], configOperation: 2, value: '5' }])]),
    iacB('v1-throttle-rate-mixed', 'a throttle rate and a static config in one resource', [b('1', [set(RATES[0], '1000'), set('num.partitions', '3')])]),
    probe('describe-configs', 32, 'v4-broker-all-with-throttles', 4, 'every broker config while throttle rates are set (only the rate entries compared)', {
      resources: [{ resourceType: BROKER, resourceName: '1', configurationKeys: null }], includeSynonyms: true, includeDocumentation: false,
    }, { normalise: (j) => {
      for (const r of (j as any).results ?? []) r.configs = (r.configs as any[]).filter((c) => RATES.includes(c.name));
      return sortDescribed(j);
    } }),
    probe('describe-configs', 32, 'v4-broker-default-with-throttles', 4, 'the "" broker resource while a default throttle rate is set', {
      resources: [{ resourceType: BROKER, resourceName: '', configurationKeys: RATES }], includeSynonyms: true, includeDocumentation: false,
    }, { normalise: sortDescribed }),
    acB('v2-throttle-rate-legacy', 'legacy AlterConfigs on broker 1: the listed configs replace the broker\'s dynamic set', [b('1', [{ name: RATES[0], value: '6291456' }])]),
    iacB('v1-throttle-rate-delete', 'DELETE both rates on broker 1 and on ""', [b('1', [del(RATES[0]), del(RATES[1])]), b('', [del(RATES[0]), del(RATES[1])])]),
  ];
}

// ---- AlterReplicaLogDirs -----------------------------------------------------------------------

/** The broker's (first) log dir, learnt through DescribeLogDirs: the probes name it as a client would. */
function alterReplicaLogDirsProbes(topic: string, topicSetup: (ctx: ProbeCtx) => Promise<void>): Probe[] {
  const setup = async (ctx: ProbeCtx) => {
    await topicSetup(ctx);
    ctx.state.logDir ??= (await ctx.call(35, 4, { topics: [] })).results[0].logDir;
  };
  const to = (ctx: ProbeCtx, dir: string | null, topics: { name: string; partitions: number[] }[]) => ({ dirs: [{ path: dir ?? ctx.state.logDir, topics }] });
  const arld = (id: string, version: number, about: string, body: (ctx: ProbeCtx) => Record<string, unknown>) =>
    probe('alter-replica-log-dirs', 34, id, version, about, body, { setup });
  return [
    arld('v1-min', 1, 'a replica to the dir it is in: NONE', (ctx) => to(ctx, null, [{ name: topic, partitions: [0] }])),
    arld('v2-max', 2, 'both partitions to their dir (flexible version)', (ctx) => to(ctx, null, [{ name: topic, partitions: [0, 1] }])),
    arld('v2-unknown-dir', 2, 'a dir not in log.dirs: LOG_DIR_NOT_FOUND', (ctx) => to(ctx, '/no/such/log/dir', [{ name: topic, partitions: [0] }])),
    arld('v2-unknown-partition', 2, 'an unknown topic and an unknown partition: UNKNOWN_TOPIC_OR_PARTITION', (ctx) => to(ctx, null, [{ name: 'pld-missing', partitions: [0] }, { name: topic, partitions: [9] }])),
  ];
}

// ---- DescribeLogDirs / DescribeCluster ---------------------------------------------------------

function logDirsAndClusterProbes(): Probe[] {
  const topic = 'pld-topic';
  const setup = (ctx: ProbeCtx) =>
    ctx.once('logdirs', async () => {
      await createTopic(ctx, topic, 2);
      await produce(ctx, topic, 0, batch({ count: 3, prefix: 'ld' }));
    });
  /** The one log dir's entry, limited to the probe's topic (each broker has other topics). */
  const onlyOurs = (j: Json): Json => {
    for (const r of ((j as any).results ?? []) as Json[]) filterAt(r, 'topics', (t) => (t as any).name === topic || (t as any).name === 'pld-missing');
    return sortAt(j, 'results.[].topics.[].partitions', (x) => String((x as any).partitionIndex));
  };
  return [
    probe('describe-log-dirs', 35, 'v1-min', 1, 'partition sizes of one topic', { topics: [{ topic, partitions: [0, 1] }] }, { setup, normalise: onlyOurs }),
    probe('describe-log-dirs', 35, 'v4-max', 4, 'partition sizes with total/usable bytes', { topics: [{ topic, partitions: [0, 1] }] }, { setup, normalise: onlyOurs }),
    probe('describe-log-dirs', 35, 'v4-all', 4, 'topics null: every partition', { topics: null }, { setup, normalise: onlyOurs }),
    probe('describe-log-dirs', 35, 'v4-unknown-topic', 4, 'an unknown topic is left out', { topics: [{ topic: 'pld-missing', partitions: [0] }] }, { setup, normalise: onlyOurs }),
    probe('describe-log-dirs', 35, 'v4-unknown-partition', 4, 'an unknown partition is left out', { topics: [{ topic, partitions: [7] }] }, { setup, normalise: onlyOurs }),
    ...alterReplicaLogDirsProbes(topic, setup),
    probe('describe-cluster', 60, 'v0-min', 0, 'the cluster', { includeClusterAuthorizedOperations: false }),
    probe('describe-cluster', 60, 'v1-max', 1, 'the cluster with endpoint type (broker)', { includeClusterAuthorizedOperations: false, endpointType: 1 }),
    probe('describe-cluster', 60, 'v1-authorized-operations', 1, 'include_cluster_authorized_operations without an authorizer', { includeClusterAuthorizedOperations: true, endpointType: 1 }),
    probe('describe-cluster', 60, 'v1-controller-endpoints', 1, 'endpoint type 2 (controllers) asked of a broker', { includeClusterAuthorizedOperations: false, endpointType: 2 }),
    probe('describe-cluster', 60, 'v1-unknown-endpoint-type', 1, 'endpoint type 7', { includeClusterAuthorizedOperations: false, endpointType: 7 }),
  ];
}

/** ElectLeaders on one broker: every partition is led by its preferred replica already. */
function electLeadersProbes(): Probe[] {
  const topic = 'pel-topic';
  const setup = (ctx: ProbeCtx) => ctx.once('elect', () => createTopic(ctx, topic, 2));
  const el = (id: string, version: number, about: string, body: Record<string, unknown>) => probe('elect-leaders', 43, id, version, about, { timeoutMs: 30_000, ...body }, {
    setup,
    // Each broker has other topics (the answer to "every partition" lists them all): ours only.
    normalise: (j: Json) => sortAt(filterAt(j, 'replicaElectionResults', (t) => String((t as any).topic).startsWith('pel-')), 'replicaElectionResults.[].partitionResult', (x) => String((x as any).partitionId).padStart(5, '0')),
  });
  return [
    el('v0-min', 0, 'preferred election of a partition its preferred replica leads: ELECTION_NOT_NEEDED', { topicPartitions: [{ topic, partitions: [0, 1] }] }),
    el('v2-preferred', 2, 'the same at v2 (top-level error code)', { electionType: 0, topicPartitions: [{ topic, partitions: [0] }] }),
    el('v2-unclean', 2, 'unclean election with a live leader: ELECTION_NOT_NEEDED', { electionType: 1, topicPartitions: [{ topic, partitions: [1] }] }),
    el('v1-unknown', 1, 'unknown topic and unknown partition: UNKNOWN_TOPIC_OR_PARTITION', { electionType: 0, topicPartitions: [{ topic: 'pel-missing', partitions: [0] }, { topic, partitions: [9] }] }),
    el('v2-all', 2, 'partitions null: every partition, nothing needed', { electionType: 0, topicPartitions: null }),
    el('v2-bad-type', 2, 'election type 5', { electionType: 5, topicPartitions: [{ topic, partitions: [0] }] }),
  ];
}

/** AlterPartitionReassignments / ListPartitionReassignments on one broker (node 1). */
function reassignmentProbes(): Probe[] {
  const topic = 'pra-topic';
  const setup = (ctx: ProbeCtx) => ctx.once('reassign', () => createTopic(ctx, topic, 2));
  const alter = (id: string, about: string, partitions: Record<string, unknown>[], name = topic) =>
    probe('alter-partition-reassignments', 45, id, 0, about, { timeoutMs: 30_000, topics: [{ name, partitions }] }, { setup });
  const list = (id: string, about: string, topics: Record<string, unknown>[] | null) => probe('list-partition-reassignments', 46, id, 0, about, { timeoutMs: 30_000, topics }, { setup });
  return [
    alter('v0-same', 'the current replica list again: nothing to do', [{ partitionIndex: 0, replicas: [1] }]),
    alter('v0-unknown-broker', 'a broker that is not registered', [{ partitionIndex: 0, replicas: [1, 9] }]),
    alter('v0-empty', 'an empty replica list', [{ partitionIndex: 1, replicas: [] }]),
    alter('v0-duplicate', 'a broker twice', [{ partitionIndex: 1, replicas: [1, 1] }]),
    alter('v0-cancel-none', 'cancel (null replicas) without a reassignment in progress', [{ partitionIndex: 0, replicas: null }]),
    alter('v0-unknown-partition', 'a partition the topic does not have', [{ partitionIndex: 5, replicas: [1] }]),
    alter('v0-unknown-topic', 'a topic that does not exist', [{ partitionIndex: 0, replicas: [1] }], 'pra-missing'),
    list('v0-all', 'every reassignment (none)', null),
    list('v0-named', 'named partitions, an unknown topic and partition', [{ name: topic, partitionIndexes: [0, 1, 7] }, { name: 'pra-missing', partitionIndexes: [0] }]),
  ];
}

/**
 * Probes that change internal topics on Kafka (it deletes or grows __consumer_offsets when asked):
 * they run after every other probe, since no group probe could run after them.
 */
export function destructiveProbes(): Probe[] {
  return [
    probe('create-partitions', 37, 'v2-internal', 2, 'grow __consumer_offsets', { topics: [{ name: '__consumer_offsets', count: 60, assignments: null }], timeoutMs: 30_000, validateOnly: false }),
    probe('delete-topics', 20, 'v5-internal', 5, 'delete __consumer_offsets', { topicNames: ['__consumer_offsets'], timeoutMs: 30_000 }),
  ];
}

export function adminProbes(): Probe[] {
  return [...createTopicsProbes(), ...deleteTopicsProbes(), ...createPartitionsProbes(), ...configProbes(), ...logDirsAndClusterProbes(), ...electLeadersProbes(), ...reassignmentProbes()];
}
