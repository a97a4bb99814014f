/**
 * Probes: group configs on GROUP resources (resource type 32, KIP-848 / KIP-932 / KIP-1071):
 * DescribeConfigs of a group (every GroupConfig name, sources, synonyms, documentation),
 * IncrementalAlterConfigs SET / DELETE / APPEND with Kafka's INVALID_CONFIG answers for names,
 * values and the broker's min/max bounds, validate_only, legacy AlterConfigs, and groups that do
 * not exist (Kafka stores their configs all the same). After each alter the group's
 * DYNAMIC_GROUP_CONFIG entries are described, so the effect is compared too.
 */
import { keyedAt, sortAt, type Json } from './normalise.js';
import type { Probe, ProbeCtx } from './runner.js';
import type { Outcome } from './wire.js';

const GROUP = 32;
const DYNAMIC_GROUP_CONFIG = 8;

const sortDescribed = (j: Json): Json => keyedAt(sortAt(j, 'results.[].configs.[].synonyms', 'name'), 'results.[].configs');

/** The overrides a group has, as DescribeConfigs shows them (name=value, sorted). */
async function groupOverrides(ctx: ProbeCtx, group: string): Promise<string[]> {
  const r = await ctx.call(32, 4, { resources: [{ resourceType: GROUP, resourceName: group, configurationKeys: null }], includeSynonyms: false, includeDocumentation: false });
  const res = r.results[0];
  if (res.errorCode !== 0) return [`error ${res.errorCode}`];
  return (res.configs as any[]).filter((c) => c.configSource === DYNAMIC_GROUP_CONFIG).map((c) => `${c.name}=${c.value}`).sort();
}

export function groupConfigProbes(): Probe[] {
  const dc = (id: string, version: number, about: string, group: string, keys: string[] | null, o: { synonyms?: boolean; docs?: boolean; setup?: (ctx: ProbeCtx) => Promise<void> } = {}): Probe => ({
    id: `describe-configs/group-${id}`, api: 32, version, about,
    body: { resources: [{ resourceType: GROUP, resourceName: group, configurationKeys: keys }], includeSynonyms: o.synonyms ?? false, includeDocumentation: o.docs ?? false },
    setup: o.setup,
    normalise: (j) => {
      // Documentation text is each release's prose: whether it is there is compared.
      for (const r of ((j as any).results ?? [])) for (const c of r.configs ?? []) if (typeof c.documentation === 'string' && c.documentation !== '') c.documentation = '<doc>';
      return sortDescribed(j);
    },
  });
  /**
   * Kafka applies a group config change through its metadata log, so a DescribeConfigs right
   * after the answer may still show the old overrides: while they equal the ones from before a
   * successful change, look again for up to 3 s.
   */
  const alter = (api: 33 | 44, id: string, version: number, about: string, groups: string[], resources: Record<string, unknown>[], validateOnly = false): Probe => ({
    id: `${api === 44 ? 'incremental-alter-configs' : 'alter-configs'}/group-${id}`, api, version, about,
    body: { resources, validateOnly },
    setup: async (ctx) => {
      ctx.state[`gc-before:${id}`] = await Promise.all(groups.map((g) => groupOverrides(ctx, g)));
    },
    after: async (ctx: ProbeCtx, outcome: Outcome) => {
      const before = JSON.stringify(ctx.state[`gc-before:${id}`]);
      const body = outcome.kind === 'answered' ? (outcome.body as { responses?: { errorCode: number }[] }) : undefined;
      const applied = !validateOnly && (body?.responses ?? []).some((x) => x.errorCode === 0);
      let now = await Promise.all(groups.map((g) => groupOverrides(ctx, g)));
      for (const deadline = Date.now() + 3000; applied && JSON.stringify(now) === before && Date.now() < deadline;) {
        await new Promise((r) => setTimeout(r, 100));
        now = await Promise.all(groups.map((g) => groupOverrides(ctx, g)));
      }
      ctx.state[`gc-after:${id}`] = now;
    },
    normalise: (j, ctx) => ({ ...(j as object), overridesAfter: (ctx.state[`gc-after:${id}`] ?? null) as Json }) as Json,
  });
  const iac = (id: string, about: string, group: string, configs: Record<string, unknown>[], validateOnly = false) =>
    alter(44, id, 1, about, [group], [{ resourceType: GROUP, resourceName: group, configs }], validateOnly);
  const set = (name: string, value: string | null) => ({ name, configOperation: 0, value });
  const del = (name: string) => ({ name, configOperation: 1, value: null });
  return [
    dc('v4-group-all', 4, 'every config of a group that does not exist: names, values, DEFAULT_CONFIG', 'pgc-none', null),
    dc('v4-group-synonyms-docs', 4, 'include_synonyms and include_documentation on a group', 'pgc-none', null, { synonyms: true, docs: true }),
    dc('v1-group-keys', 1, 'chosen group configs at v1', 'pgc-none', ['consumer.session.timeout.ms', 'share.auto.offset.reset', 'no.such.config']),
    dc('v4-group-empty-name', 4, 'group resource ""', '', ['consumer.session.timeout.ms']),
    iac('v1-set-session', 'SET consumer.session.timeout.ms on a group that does not exist (allowed)', 'pgc-a', [set('consumer.session.timeout.ms', '50000')]),
    dc('v4-group-after-set', 4, 'a group with an override: DYNAMIC_GROUP_CONFIG with synonyms', 'pgc-a', ['consumer.session.timeout.ms', 'consumer.heartbeat.interval.ms'], { synonyms: true }),
    iac('v1-set-several', 'SET heartbeat interval and share configs together', 'pgc-a', [
      set('consumer.heartbeat.interval.ms', '6000'), set('share.auto.offset.reset', 'earliest'), set('share.isolation.level', 'read_committed'),
      set('share.record.lock.duration.ms', '20000'), set('share.delivery.count.limit', '4'),
    ]),
    iac('v1-delete', 'DELETE one override, another stays', 'pgc-a', [del('consumer.heartbeat.interval.ms')]),
    iac('v1-delete-absent', 'DELETE an override that is not set', 'pgc-a', [del('share.session.timeout.ms')]),
    iac('v1-session-below-min', 'consumer.session.timeout.ms below group.consumer.min.session.timeout.ms', 'pgc-b', [set('consumer.session.timeout.ms', '1000')]),
    iac('v1-session-above-max', 'consumer.session.timeout.ms above group.consumer.max.session.timeout.ms', 'pgc-b', [set('consumer.session.timeout.ms', '70000')]),
    iac('v1-heartbeat-below-min', 'consumer.heartbeat.interval.ms below its minimum', 'pgc-b', [set('consumer.heartbeat.interval.ms', '100')]),
    iac('v1-heartbeat-above-max', 'consumer.heartbeat.interval.ms above its maximum', 'pgc-b', [set('consumer.heartbeat.interval.ms', '20000')]),
    iac('v1-session-not-above-heartbeat', 'consumer.session.timeout.ms not above the heartbeat interval (both in bounds)', 'pgc-b', [set('consumer.session.timeout.ms', '45000'), set('consumer.heartbeat.interval.ms', '15000')]),
    iac('v1-session-zero', 'consumer.session.timeout.ms 0 (ConfigDef atLeast(1))', 'pgc-b', [set('consumer.session.timeout.ms', '0')]),
    iac('v1-session-not-a-number', 'consumer.session.timeout.ms "soon"', 'pgc-b', [set('consumer.session.timeout.ms', 'soon')]),
    iac('v1-unknown-name', 'an unknown group config name', 'pgc-b', [set('no.such.config', '1')]),
    iac('v1-topic-config-name', 'a topic config name on a group', 'pgc-b', [set('retention.ms', '1000')]),
    iac('v1-delete-unknown-name', 'DELETE of an unknown group config name', 'pgc-b', [del('no.such.config')]),
    iac('v1-append', 'APPEND to a group config', 'pgc-b', [{ name: 'share.auto.offset.reset', configOperation: 2, value: 'earliest' }]),
    iac('v1-append-list', 'APPEND to streams.rack.aware.assignment.tags (a list)', 'pgc-b', [{ name: 'streams.rack.aware.assignment.tags', configOperation: 2, value: 'zone' }]),
    iac('v1-bad-operation', 'operation code 9', 'pgc-b', [{ name: 'consumer.session.timeout.ms', configOperation: 9, value: '50000' }]),
    iac('v1-null-value', 'SET with a null value', 'pgc-b', [set('consumer.session.timeout.ms', null)]),
    iac('v1-share-auto-offset-reset-bad', 'share.auto.offset.reset "sometimes"', 'pgc-b', [set('share.auto.offset.reset', 'sometimes')]),
    iac('v1-share-auto-offset-reset-duration', 'share.auto.offset.reset by_duration:PT1H', 'pgc-c', [set('share.auto.offset.reset', 'by_duration:PT1H')]),
    iac('v1-share-auto-offset-reset-upper', 'share.auto.offset.reset "EARLIEST" (letter case)', 'pgc-c', [set('share.auto.offset.reset', 'EARLIEST')]),
    iac('v1-share-isolation-bad', 'share.isolation.level "serializable"', 'pgc-b', [set('share.isolation.level', 'serializable')]),
    iac('v1-share-lock-below-min', 'share.record.lock.duration.ms below its minimum', 'pgc-b', [set('share.record.lock.duration.ms', '500')]),
    iac('v1-share-delivery-limit-high', 'share.delivery.count.limit above its maximum', 'pgc-b', [set('share.delivery.count.limit', '100')]),
    iac('v1-share-session-bounds', 'share.session.timeout.ms above its maximum', 'pgc-b', [set('share.session.timeout.ms', '70000')]),
    iac('v1-dlq-internal', 'errors.deadletterqueue.topic.name starting with "__"', 'pgc-b', [set('errors.deadletterqueue.topic.name', '__dlq')]),
    // A name with errors.deadletterqueue.topic.name.prefix ("dlq."): Samsa refuses others (share groups, docs/gaps.md).
    iac('v1-dlq-ok', 'errors.deadletterqueue.topic.name and copy.record.enable', 'pgc-c', [set('errors.deadletterqueue.topic.name', 'dlq.pgc'), set('errors.deadletterqueue.copy.record.enable', 'true')]),
    iac('v1-boolean-bad', 'a boolean group config "yes"', 'pgc-b', [set('share.renew.acknowledge.enable', 'yes')]),
    iac('v1-streams-configs', 'streams.* configs', 'pgc-c', [set('streams.num.standby.replicas', '1'), set('streams.session.timeout.ms', '50000'), set('streams.acceptable.recovery.lag', '5000')]),
    iac('v1-streams-standby-high', 'streams.num.standby.replicas above its maximum', 'pgc-b', [set('streams.num.standby.replicas', '9')]),
    iac('v1-consumer-assignment-interval', 'consumer.assignment.interval.ms', 'pgc-c', [set('consumer.assignment.interval.ms', '500')]),
    iac('v1-validate-only', 'validate_only: nothing stored', 'pgc-d', [set('consumer.session.timeout.ms', '55000')], true),
    iac('v1-empty-group-name', 'group resource ""', '', [set('consumer.session.timeout.ms', '50000')]),
    iac('v1-first-error-wins', 'an unknown name and an out-of-bounds value in one resource', 'pgc-b', [set('consumer.session.timeout.ms', '1'), set('no.such.config', '1')]),
    alter(44, 'v1-two-groups', 1, 'two groups, one valid, one not', ['pgc-e', 'pgc-f'], [
      { resourceType: GROUP, resourceName: 'pgc-e', configs: [set('consumer.heartbeat.interval.ms', '7000')] },
      { resourceType: GROUP, resourceName: 'pgc-f', configs: [set('consumer.heartbeat.interval.ms', '7')] },
    ]),
    alter(44, 'v1-duplicate-group', 1, 'the same group twice', ['pgc-g'], [
      { resourceType: GROUP, resourceName: 'pgc-g', configs: [set('consumer.heartbeat.interval.ms', '7000')] },
      { resourceType: GROUP, resourceName: 'pgc-g', configs: [set('consumer.heartbeat.interval.ms', '8000')] },
    ]),
    alter(44, 'v0-set', 0, 'SET at v0', ['pgc-h'], [{ resourceType: GROUP, resourceName: 'pgc-h', configs: [set('consumer.session.timeout.ms', '46000')] }]),
    alter(33, 'v2-group', 2, 'legacy AlterConfigs on a group', ['pgc-a'], [{ resourceType: GROUP, resourceName: 'pgc-a', configs: [{ name: 'consumer.session.timeout.ms', value: '52000' }] }]),
    alter(33, 'v0-group', 0, 'legacy AlterConfigs v0 on a group', ['pgc-a'], [{ resourceType: GROUP, resourceName: 'pgc-a', configs: [{ name: 'consumer.session.timeout.ms', value: '52000' }] }]),
    iac('v1-subtract', 'SUBTRACT from a group config', 'pgc-b', [{ name: 'share.isolation.level', configOperation: 3, value: 'read_committed' }]),
    iac('v1-internal-config', 'SET an internal group config (consumer.assignor.offload.enable)', 'pgc-i', [set('consumer.assignor.offload.enable', 'false'), set('streams.num.warmup.replicas', '3')]),
    dc('v4-group-internal-set', 4, 'internal configs are described where set', 'pgc-i', null, { synonyms: true }),
    iac('v1-list-config', 'streams.rack.aware.assignment.tags "zone, rack"', 'pgc-j', [set('streams.rack.aware.assignment.tags', 'zone, rack')]),
    iac('v1-list-duplicates', 'streams.rack.aware.assignment.tags with a duplicate', 'pgc-b', [set('streams.rack.aware.assignment.tags', 'zone,zone')]),
    iac('v1-duration-negative', 'share.auto.offset.reset by_duration:-PT1H', 'pgc-b', [set('share.auto.offset.reset', 'by_duration:-PT1H')]),
    iac('v1-duration-days', 'share.auto.offset.reset by_duration:P1DT2H30M', 'pgc-j', [set('share.auto.offset.reset', 'by_duration:P1DT2H30M')]),
    iac('v1-duration-garbage', 'share.auto.offset.reset by_duration:soon', 'pgc-b', [set('share.auto.offset.reset', 'by_duration:soon')]),
    iac('v1-assignor-name', 'streams.assignor.name "sticky"', 'pgc-j', [set('streams.assignor.name', 'sticky')]),
    iac('v1-int-overflow', 'consumer.session.timeout.ms 2147483648', 'pgc-b', [set('consumer.session.timeout.ms', '2147483648')]),
    iac('v1-int-whitespace', 'consumer.session.timeout.ms " 50000 " (ConfigDef trims)', 'pgc-k', [set('consumer.session.timeout.ms', ' 50000 ')]),
    iac('v1-boolean-upper', 'errors.deadletterqueue.copy.record.enable "TRUE"', 'pgc-k', [set('errors.deadletterqueue.copy.record.enable', 'TRUE')]),
    dc('v4-group-values-as-set', 4, 'values are described as they were set', 'pgc-k', ['consumer.session.timeout.ms', 'errors.deadletterqueue.copy.record.enable']),
    iac('v1-delete-all', 'DELETE every override of a group', 'pgc-k', [del('consumer.session.timeout.ms'), del('errors.deadletterqueue.copy.record.enable')]),
    alter(33, 'v2-group-empty', 2, 'legacy AlterConfigs with no configs clears a group', ['pgc-j'], [{ resourceType: GROUP, resourceName: 'pgc-j', configs: [] }]),
    alter(33, 'v2-group-invalid', 2, 'legacy AlterConfigs with an out-of-bounds value', ['pgc-j'], [{ resourceType: GROUP, resourceName: 'pgc-j', configs: [{ name: 'consumer.heartbeat.interval.ms', value: '1' }] }]),
    alter(33, 'v2-group-empty-name', 2, 'legacy AlterConfigs on group ""', [], [{ resourceType: GROUP, resourceName: '', configs: [{ name: 'consumer.heartbeat.interval.ms', value: '6000' }] }]),
    dc('v4-group-after-all', 4, 'a group with many overrides, with synonyms', 'pgc-c', null, { synonyms: true }),
  ];
}
