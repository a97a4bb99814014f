/**
 * Probes: dynamic broker configs (AlterConfigs / IncrementalAlterConfigs on BROKER resources,
 * issue 23 item 7). Each change is followed by DescribeConfigs of broker 1, of the cluster
 * default "" and of a topic without configs of its own, so sources, synonyms and inherited values
 * are compared as well as the answer; error message texts are compared too (the generic
 * normalisation hides them, so each probe keeps them from its raw answer). Then every config
 * Kafka 4.4 marks dynamic is sent with three values (validate_only) to compare the validation,
 * and the last probes remove what the first ones set, so the probes after these see a fresh
 * cluster again.
 */
import { createTopic } from './fixtures.js';
import { keyedAt, sortAt, type Json } from './normalise.js';
import type { Probe, ProbeCtx } from './runner.js';
import type { Outcome } from './wire.js';

const TOPIC = 2;
const BROKER = 4;
const DC_TOPIC = 'pbc-topic';
/** Broker configs described after each change (the full list is compared once, at the start). */
const BROKER_KEYS = [
  'log.retention.ms', 'log.retention.hours', 'message.max.bytes', 'log.cleaner.threads', 'log.cleaner.backoff.ms',
  'log.cleanup.policy', 'min.insync.replicas', 'sasl.kerberos.min.time.before.relogin', 'compression.type',
  'num.io.threads', 'max.connections',
];
const TOPIC_KEYS = ['retention.ms', 'max.message.bytes', 'cleanup.policy', 'min.insync.replicas', 'compression.type'];

interface Op { name: string; configOperation: number; value: string | null }
const set = (name: string, value: string): Op => ({ name, configOperation: 0, value });
const del = (name: string): Op => ({ name, configOperation: 1, value: null });
const append = (name: string, value: string): Op => ({ name, configOperation: 2, value });
const subtract = (name: string, value: string): Op => ({ name, configOperation: 3, value });

const sortConfigs = (j: Json): Json => keyedAt(sortAt(j, 'results.[].configs.[].synonyms', 'name'), 'results.[].configs');

/** Broker 1 (chosen keys, plus every dynamic entry), "" and the topic, as compared after a change. */
async function describeAll(ctx: ProbeCtx): Promise<Json> {
  const r = await ctx.call(32, 4, {
    resources: [
      { resourceType: BROKER, resourceName: '1', configurationKeys: null },
      { resourceType: BROKER, resourceName: '', configurationKeys: null },
      { resourceType: TOPIC, resourceName: DC_TOPIC, configurationKeys: TOPIC_KEYS },
    ],
    includeSynonyms: true, includeDocumentation: false,
  });
  return (r.results as any[]).map((x) => ({
    type: x.resourceType,
    name: x.resourceName,
    error: x.errorCode,
    configs: (x.configs as any[])
      .filter((c) => x.resourceType !== BROKER || x.resourceName === '' || BROKER_KEYS.includes(c.name) || c.configSource === 2 || c.configSource === 3)
      .map((c) => ({ name: c.name, value: c.value, source: c.configSource, readOnly: c.readOnly, sensitive: c.isSensitive, type: c.configType, synonyms: c.synonyms }))
      .sort((a, b) => (a.name < b.name ? -1 : 1)),
  })) as Json;
}

function messagesOf(outcome: Outcome): Json {
  if (outcome.kind !== 'answered') return null;
  const body = outcome.body as { responses?: { errorMessage: string | null }[] };
  return (body.responses ?? []).map((r) => r.errorMessage);
}

/**
 * After an alter: the answer's message texts, and the described state once it changed (Kafka
 * applies a change through its metadata log: wait up to 3 s for the description to move).
 */
function recordAfter(key: string, describe: boolean) {
  return async (ctx: ProbeCtx, outcome: Outcome) => {
    ctx.state[`${key}:messages`] = messagesOf(outcome);
    if (!describe) return;
    const before = JSON.stringify(ctx.state['bc-state'] ?? null);
    const body = outcome.kind === 'answered' ? (outcome.body as { responses?: { errorCode: number }[] }) : undefined;
    const applied = (body?.responses ?? []).some((x) => x.errorCode === 0);
    let now = await describeAll(ctx);
    for (const deadline = Date.now() + 3000; applied && JSON.stringify(now) === before && Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 100));
      now = await describeAll(ctx);
    }
    if (applied) {
      // One request may change two resources: look once more after the first shows.
      await new Promise((r) => setTimeout(r, 300));
      now = await describeAll(ctx);
    }
    ctx.state['bc-state'] = now;
    ctx.state[`${key}:described`] = now;
  };
}

const withRecorded = (key: string) => (j: Json, ctx: ProbeCtx): Json => ({
  ...(j as object),
  messages: (ctx.state[`${key}:messages`] ?? null) as Json,
  describedAfter: (ctx.state[`${key}:described`] ?? null) as Json,
}) as Json;

const setup = async (ctx: ProbeCtx) => {
  await ctx.once('bc-topic', () => createTopic(ctx, DC_TOPIC, 1));
  ctx.state['bc-state'] ??= await describeAll(ctx);
};

function iac(id: string, about: string, resources: { name: string; ops: Op[] }[], opts: { validateOnly?: boolean; describe?: boolean } = {}): Probe {
  const key = `bc:${id}`;
  return {
    id: `incremental-alter-configs/${id}`, api: 44, version: 1, about,
    body: { resources: resources.map((r) => ({ resourceType: BROKER, resourceName: r.name, configs: r.ops })), validateOnly: opts.validateOnly ?? false },
    setup, after: recordAfter(key, opts.describe ?? true), normalise: withRecorded(key),
  };
}

function ac(id: string, about: string, name: string, configs: { name: string; value: string }[]): Probe {
  const key = `bc:${id}`;
  return {
    id: `alter-configs/${id}`, api: 33, version: 2, about,
    body: { resources: [{ resourceType: BROKER, resourceName: name, configs }], validateOnly: false },
    setup, after: recordAfter(key, true), normalise: withRecorded(key),
  };
}

/** Kafka 4.4's dynamic broker configs (read_only false in its DescribeConfigs) whose validation is compared. */
const SWEPT = [
  'background.threads', 'compression.gzip.level', 'compression.lz4.level', 'compression.type', 'compression.zstd.level',
  'config.providers', 'cordoned.log.dirs', 'errors.deadletterqueue.auto.create.topics.enable',
  'errors.deadletterqueue.topic.name.prefix', 'follower.fetch.last.tiered.offset.enable', 'group.consumer.assignment.interval.ms',
  'group.coordinator.cached.buffer.max.bytes', 'group.share.assignment.interval.ms', 'group.streams.assignment.interval.ms',
  'log.cleaner.backoff.ms', 'log.cleaner.dedupe.buffer.size', 'log.cleaner.delete.retention.ms',
  'log.cleaner.io.buffer.load.factor', 'log.cleaner.io.buffer.size', 'log.cleaner.io.max.bytes.per.second',
  'log.cleaner.max.compaction.lag.ms', 'log.cleaner.min.cleanable.ratio', 'log.cleaner.min.compaction.lag.ms',
  'log.cleaner.threads', 'log.cleanup.policy', 'log.flush.interval.messages', 'log.flush.interval.ms',
  'log.index.interval.bytes', 'log.index.size.max.bytes', 'log.local.retention.bytes', 'log.local.retention.ms',
  'log.message.timestamp.after.max.ms', 'log.message.timestamp.before.max.ms', 'log.message.timestamp.type',
  'log.preallocate', 'log.remote.copy.lag.bytes', 'log.remote.copy.lag.ms', 'log.retention.bytes', 'log.retention.ms',
  'log.roll.jitter.ms', 'log.roll.ms', 'log.segment.bytes', 'log.segment.delete.delay.ms', 'max.connections.per.ip',
  'max.connections.per.ip.overrides', 'max.decompressed.message.bytes', 'message.max.bytes', 'metric.reporters',
  'min.insync.replicas', 'num.io.threads', 'num.recovery.threads.per.data.dir', 'num.replica.fetchers',
  'producer.id.expiration.ms', 'remote.fetch.max.wait.ms', 'remote.list.offsets.request.timeout.ms',
  'remote.log.index.file.cache.total.size.bytes', 'remote.log.manager.copier.thread.pool.size',
  'remote.log.manager.copy.max.bytes.per.second', 'remote.log.manager.expiration.thread.pool.size',
  'remote.log.manager.fetch.max.bytes.per.second', 'remote.log.manager.follower.thread.pool.size',
  'remote.log.reader.threads', 'sasl.kerberos.min.time.before.relogin', 'share.coordinator.cached.buffer.max.bytes',
  'transaction.partition.verification.enable', 'unclean.leader.election.enable',
  'leader.replication.throttled.rate', 'follower.replication.throttled.rate', 'replica.alter.log.dirs.io.max.bytes.per.second',
];
/** Listener configs, swept under listener.name.plaintext. */
const SWEPT_PER_LISTENER = [
  'max.connections', 'max.connection.creation.rate', 'num.network.threads', 'sasl.kerberos.ticket.renew.jitter',
  'sasl.login.refresh.buffer.seconds', 'sasl.login.refresh.min.period.seconds', 'sasl.login.refresh.window.factor',
];

function sweepProbes(): Probe[] {
  const out: Probe[] = [];
  const values = ['-5', '0', '99999999999999'];
  for (const name of SWEPT) {
    values.forEach((v, i) => out.push(iac(`v1-broker-sweep-${name}-${i}`, `validate_only SET ${name}=${v} on broker 1`, [{ name: '1', ops: [set(name, v)] }], { validateOnly: true, describe: false })));
  }
  for (const name of SWEPT_PER_LISTENER) {
    values.forEach((v, i) => out.push(iac(`v1-broker-sweep-listener-${name}-${i}`, `validate_only SET listener.name.plaintext.${name}=${v}`, [{ name: '1', ops: [set(`listener.name.plaintext.${name}`, v)] }], { validateOnly: true, describe: false })));
  }
  return out;
}

export function brokerConfigProbes(): Probe[] {
  const B = (ops: Op[]) => [{ name: '1', ops }];
  const D = (ops: Op[]) => [{ name: '', ops }];
  return [
    {
      id: 'describe-configs/v4-broker-fresh-cluster', api: 32, version: 4,
      about: 'a fresh cluster: broker 1 (every config: sources, read_only, types, synonyms) and "" (the format-time min.insync.replicas)',
      body: { resources: [{ resourceType: BROKER, resourceName: '', configurationKeys: null }, { resourceType: BROKER, resourceName: '1', configurationKeys: BROKER_KEYS }], includeSynonyms: true, includeDocumentation: false },
      setup, normalise: sortConfigs,
    },
    // Changes, each described after.
    iac('v1-broker-log-retention-ms', 'SET log.retention.ms on broker 1: DYNAMIC_BROKER_CONFIG, inherited by a topic without its own retention.ms', B([set('log.retention.ms', '3600000')])),
    iac('v1-broker-default-message-max-bytes', 'SET message.max.bytes on "": DYNAMIC_DEFAULT_BROKER_CONFIG, the topic\'s max.message.bytes follows', D([set('message.max.bytes', '2000000')])),
    iac('v1-broker-default-cleaner', 'SET log.cleaner.threads and log.cleaner.backoff.ms on ""', D([set('log.cleaner.threads', '2'), set('log.cleaner.backoff.ms', '5000')])),
    iac('v1-broker-kerberos-relogin', 'SET sasl.kerberos.min.time.before.relogin on broker 1 (accepted and reported)', B([set('sasl.kerberos.min.time.before.relogin', '70000')])),
    iac('v1-broker-listener-keystore', 'SET listener.name.plaintext.ssl.keystore.location on broker 1 (a listener config: read_only, base synonym)', B([set('listener.name.plaintext.ssl.keystore.location', '/tmp/samsa-probe-keystore.p12')])),
    iac('v1-broker-listener-password', 'SET a listener password: sensitive, no value', B([set('listener.name.plaintext.ssl.keystore.password', 'secret')])),
    iac('v1-broker-default-listener-connections', 'SET listener.name.plaintext.max.connections on "" (a cluster-level listener config)', D([set('listener.name.plaintext.max.connections', '100')])),
    iac('v1-broker-unknown-name', 'SET a name Kafka does not know: stored, described as sensitive of unknown type', B([set('no.such.broker.config', '1')])),
    iac('v1-broker-append-list', 'APPEND compact to log.cleanup.policy (from its default)', B([append('log.cleanup.policy', 'compact')])),
    iac('v1-broker-subtract-list', 'SUBTRACT delete from log.cleanup.policy', B([subtract('log.cleanup.policy', 'delete')])),
    iac('v1-broker-both-levels', 'the same key on broker 1 and on "": the broker value wins, the default is a synonym', [{ name: '1', ops: [set('message.max.bytes', '3000000')] }, { name: '', ops: [set('log.retention.ms', '7200000')] }]),
    iac('v1-broker-validate-only', 'validate_only: nothing changes', B([set('log.retention.ms', '1000')]), { validateOnly: true }),
    iac('v1-broker-delete', 'DELETE a dynamic config and one that is not set', B([del('log.cleanup.policy'), del('num.partitions')])),
    // Refusals (nothing changes).
    iac('v1-broker-not-dynamic', 'a config Kafka does not mark dynamic: INVALID_REQUEST', B([set('num.partitions', '3')])),
    iac('v1-broker-two-not-dynamic', 'two configs that are not dynamic, with a dynamic one', B([set('log.retention.hours', '2'), set('num.partitions', '3'), set('log.retention.ms', '5')])),
    iac('v1-broker-advertised-listeners', 'advertised.listeners is not dynamic', B([set('advertised.listeners', 'PLAINTEXT://x:1')])),
    iac('v1-broker-keystore-without-listener', 'a keystore config without the listener prefix', B([set('ssl.keystore.location', '/tmp/x')])),
    iac('v1-broker-default-keystore-without-listener', 'the same on ""', D([set('ssl.keystore.location', '/tmp/x')])),
    iac('v1-broker-default-per-broker', 'per-broker configs on "": INVALID_REQUEST', D([set('sasl.kerberos.min.time.before.relogin', '70000')])),
    iac('v1-broker-default-listener-keystore', 'a listener keystore on ""', D([set('listener.name.plaintext.ssl.keystore.location', '/tmp/x')])),
    iac('v1-broker-default-bad-type-first', 'a bad value is reported before "per broker only" on ""', D([set('sasl.kerberos.min.time.before.relogin', 'abc')])),
    iac('v1-broker-bad-long', 'log.retention.ms not a number', B([set('log.retention.ms', 'abc')])),
    iac('v1-broker-below-min', 'message.max.bytes below its minimum', B([set('message.max.bytes', '-5')])),
    iac('v1-broker-retention-zero', 'log.retention.ms 0 (KafkaConfig requirement)', B([set('log.retention.ms', '0')])),
    iac('v1-broker-roll-zero', 'log.roll.ms 0', B([set('log.roll.ms', '0')])),
    iac('v1-broker-cleaner-threads-zero', 'log.cleaner.threads 0', B([set('log.cleaner.threads', '0')])),
    iac('v1-broker-cleaner-threads-more-than-double', 'log.cleaner.threads more than double the current value', B([set('log.cleaner.threads', '5')])),
    iac('v1-broker-dedupe-too-small', 'log.cleaner.dedupe.buffer.size under 1 MB per thread', B([set('log.cleaner.dedupe.buffer.size', '2097152')])),
    iac('v1-broker-io-threads-double', 'num.io.threads more than double', B([set('num.io.threads', '100')])),
    iac('v1-broker-io-threads-half', 'num.io.threads less than half', B([set('num.io.threads', '3')])),
    iac('v1-broker-bad-enum', 'log.cleanup.policy not one of compact, delete', B([set('log.cleanup.policy', 'foo')])),
    iac('v1-broker-bad-double', 'log.cleaner.min.cleanable.ratio out of range (the value as a Java double)', B([set('log.cleaner.min.cleanable.ratio', '-5')])),
    iac('v1-broker-listener-bad-type', 'a listener config checked by its base type', B([set('listener.name.plaintext.max.connections', 'abc')])),
    iac('v1-broker-local-retention-bytes', 'log.local.retention.bytes above log.retention.bytes', B([set('log.retention.bytes', '100'), set('log.local.retention.bytes', '1000')])),
    iac('v1-broker-unknown-operation', 'operation code 9 on a broker resource', B([{ name: 'log.retention.ms', configOperation: 9, value: '5' }])),
    iac('v1-broker-append-not-list', 'APPEND to a config that is not a list', B([append('log.retention.ms', '5')])),
    iac('v1-broker-append-unknown', 'APPEND to a name that is not a broker config', B([append('no.such.broker.config', 'a')])),
    iac('v1-broker-class-not-found', 'principal.builder.class naming a class the broker cannot load', B([set('principal.builder.class', 'com.example.NoSuchBuilder')])),
    // Legacy AlterConfigs replaces a resource's whole set.
    ac('v2-broker-legacy-replace', 'legacy AlterConfigs on broker 1: the listed configs replace every dynamic config of the broker', '1', [{ name: 'log.retention.ms', value: '1800000' }]),
    ac('v2-broker-legacy-not-dynamic', 'legacy AlterConfigs with a config that is not dynamic', '1', [{ name: 'log.retention.ms', value: '1800000' }, { name: 'log.dirs', value: '/x' }]),
    ...sweepProbes(),
    // Clean-up: broker 1 without dynamic configs, "" as a fresh cluster has it.
    ac('v2-broker-legacy-clear', 'legacy AlterConfigs with no configs clears broker 1', '1', []),
    ac('v2-broker-default-legacy-restore', 'legacy AlterConfigs on "": back to the format-time min.insync.replicas alone', '', [{ name: 'min.insync.replicas', value: '1' }]),
  ];
}
