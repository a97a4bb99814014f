/**
 * Probes: ListConfigResources (key 74, KIP-1142; v0 was ListClientMetricsResources): v0, v1 with
 * every type, one type at a time, unsupported types (the whole answer UNSUPPORTED_VERSION), and
 * GROUP after a group config was set and after one was deleted again.
 *
 * Kafka lists by type (groups, client metrics, broker loggers, brokers, topics) whatever the
 * request's order; within a type its order is a hash map's, so names are compared sorted within
 * each run of one type (the order of the types stays compared).
 */
import { commitSimple, createTopic, initProducer } from './fixtures.js';
import type { Json } from './normalise.js';
import type { Probe, ProbeCtx } from './runner.js';

const GROUP = 32;

/**
 * configResources with names sorted inside each run of one resource type. Topics are kept when
 * internal or this file's own: in the whole suite the other topics are what earlier probes left
 * (their own probes compare those), and the internal ones show whether they are listed at all.
 */
function sortWithinTypes(j: Json): Json {
  const o = j as { configResources?: { resourceName: string; resourceType?: number }[] };
  if (!Array.isArray(o?.configResources)) return j;
  const list = o.configResources.filter((x) => x.resourceType !== 2 || x.resourceName.startsWith('__') || x.resourceName.startsWith('plcr-'));
  const out: typeof list = [];
  for (let i = 0; i < list.length;) {
    let k = i;
    while (k < list.length && list[k].resourceType === list[i].resourceType) k++;
    out.push(...list.slice(i, k).sort((a, b) => (a.resourceName < b.resourceName ? -1 : a.resourceName > b.resourceName ? 1 : 0)));
    i = k;
  }
  o.configResources = out;
  return j;
}

/** Sets (value) or deletes (null) one group config and waits until DescribeConfigs shows it (Kafka applies it through its metadata log). */
async function groupConfig(ctx: ProbeCtx, group: string, name: string, value: string | null): Promise<void> {
  const r = await ctx.call(44, 1, { resources: [{ resourceType: GROUP, resourceName: group, configs: [{ name, configOperation: value === null ? 1 : 0, value }] }], validateOnly: false });
  if (r.responses[0].errorCode !== 0) throw new Error(`IncrementalAlterConfigs ${group}: error ${r.responses[0].errorCode}`);
  await ctx.waitFor(`group config ${group} ${name}=${value}`, async () => {
    const d = await ctx.call(32, 4, { resources: [{ resourceType: GROUP, resourceName: group, configurationKeys: [name] }], includeSynonyms: false, includeDocumentation: false });
    const c = d.results[0].configs.find((x: { name: string }) => x.name === name);
    return value === null ? c?.configSource !== 8 : c?.configSource === 8 && c.value === value;
  });
}

/** A topic of our own, both coordinator topics, and two groups with configs (once per target). */
function fixtures(ctx: ProbeCtx): Promise<void> {
  return ctx.once('list-config-resources', async () => {
    await createTopic(ctx, 'plcr-topic', 1);
    // Both coordinator topics in use on both brokers (Kafka creates them at the first
    // FindCoordinator, Samsa when a group or transactional id first needs them).
    await commitSimple(ctx, 'plcr-commit', 'plcr-topic', 0);
    await initProducer(ctx, 'plcr-txn', 'plcr-txn');
    await groupConfig(ctx, 'plcr-group-a', 'consumer.session.timeout.ms', '50000');
    await groupConfig(ctx, 'plcr-group-b', 'consumer.heartbeat.interval.ms', '6000');
  });
}

export function listConfigResourcesProbes(): Probe[] {
  const p = (id: string, version: number, about: string, resourceTypes: number[], extra: Partial<Probe> = {}): Probe => ({
    id: `list-config-resources/${id}`, api: 74, version, about,
    body: version >= 1 ? { resourceTypes } : {},
    setup: fixtures,
    normalise: sortWithinTypes,
    ...extra,
  });
  return [
    p('v0-plain', 0, 'v0 (ListClientMetricsResources): client-metrics resources only, none here', []),
    p('v1-all', 1, 'v1, empty list: every supported type, in Kafka\'s order of types', []),
    p('v1-topic', 1, 'TOPIC: every topic, internal ones included', [2]),
    p('v1-broker', 1, 'BROKER: the live brokers\' ids', [4]),
    p('v1-broker-logger', 1, 'BROKER_LOGGER: the live brokers\' ids', [8]),
    p('v1-client-metrics', 1, 'CLIENT_METRICS: none configured', [16]),
    p('v1-group', 1, 'GROUP: the groups that have group configs', [GROUP]),
    p('v1-group-topic-order', 1, 'GROUP and TOPIC asked topics first: Kafka\'s order of types', [2, GROUP]),
    p('v1-duplicate-type', 1, 'GROUP twice: listed once', [GROUP, GROUP]),
    p('v1-unsupported-3', 1, 'type 3 (not a config resource type): UNSUPPORTED_VERSION, nothing listed', [3]),
    p('v1-unsupported-0', 1, 'type 0 (UNKNOWN): UNSUPPORTED_VERSION', [0]),
    p('v1-unsupported-among-supported', 1, 'GROUP with type 1: the whole answer UNSUPPORTED_VERSION', [GROUP, 1]),
    p('v1-group-after-set', 1, 'GROUP after a config was set on a new group', [GROUP], {
      setup: async (ctx) => {
        await fixtures(ctx);
        await groupConfig(ctx, 'plcr-group-c', 'share.auto.offset.reset', 'earliest');
      },
    }),
    p('v1-group-after-delete', 1, 'GROUP after the only config of a group was deleted', [GROUP], {
      setup: async (ctx) => {
        await fixtures(ctx);
        await groupConfig(ctx, 'plcr-group-c', 'share.auto.offset.reset', null);
      },
    }),
  ];
}
