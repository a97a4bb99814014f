/**
 * The names of Kafka 4.4's dynamic broker configs and how they are grouped
 * (DynamicBrokerConfig.AllDynamicConfigs and its parts, brokerConfigSynonyms): which may change
 * at runtime, which only per broker, which only per listener, and which broker settings Kafka has
 * that are not dynamic.
 */
import { DYNAMIC_ONLY_CONFIGS } from './dynamic-settings.js';

// ---------------------------------------------------------------------------------------------
// Kafka 4.4's dynamic broker configs (DynamicBrokerConfig.AllDynamicConfigs)

/** SslConfigs.RECONFIGURABLE_CONFIGS: keystores and truststores, dynamic per listener only. */
export const SSL_STORE_CONFIGS = [
  'ssl.keystore.type', 'ssl.keystore.location', 'ssl.keystore.password', 'ssl.key.password', 'ssl.keystore.key',
  'ssl.keystore.certificate.chain', 'ssl.truststore.type', 'ssl.truststore.location', 'ssl.truststore.password',
  'ssl.truststore.certificates',
];

/** DynamicListenerConfig's configs: listeners and their TLS / SASL settings, connection limits. */
const LISTENER_CONFIGS = [
  'listeners', 'listener.security.protocol.map', 'principal.builder.class', 'ssl.protocol', 'ssl.provider',
  'ssl.cipher.suites', 'ssl.enabled.protocols', 'ssl.keystore.type', 'ssl.keystore.location', 'ssl.keystore.password',
  'ssl.key.password', 'ssl.truststore.type', 'ssl.truststore.location', 'ssl.truststore.password',
  'ssl.keymanager.algorithm', 'ssl.trustmanager.algorithm', 'ssl.endpoint.identification.algorithm',
  'ssl.secure.random.implementation', 'ssl.client.auth', 'ssl.engine.factory.class',
  'sasl.mechanism.inter.broker.protocol', 'sasl.jaas.config', 'sasl.enabled.mechanisms', 'sasl.kerberos.service.name',
  'sasl.kerberos.kinit.cmd', 'sasl.kerberos.ticket.renew.window.factor', 'sasl.kerberos.ticket.renew.jitter',
  'sasl.kerberos.min.time.before.relogin', 'sasl.kerberos.principal.to.local.rules', 'sasl.login.refresh.window.factor',
  'sasl.login.refresh.window.jitter', 'sasl.login.refresh.min.period.seconds', 'sasl.login.refresh.buffer.seconds',
  'max.connections', 'max.connection.creation.rate', 'num.network.threads',
];

/** Listener configs that may be set cluster-wide. */
export const CLUSTER_LEVEL_LISTENER_CONFIGS = ['max.connections', 'max.connection.creation.rate', 'num.network.threads'];

/** The log cleaner's (LogCleaner.RECONFIGURABLE_CONFIGS). */
export const CLEANER_CONFIGS = [
  'log.cleaner.threads', 'log.cleaner.dedupe.buffer.size', 'log.cleaner.io.buffer.load.factor',
  'log.cleaner.io.buffer.size', 'log.cleaner.io.max.bytes.per.second', 'log.cleaner.backoff.ms',
];

/** The broker-side names of topic configs (ServerTopicConfigSynonyms): defaults every topic without its own value takes. */
export const LOG_CONFIGS = [
  'log.segment.bytes', 'log.roll.ms', 'log.roll.jitter.ms', 'log.index.size.max.bytes', 'log.flush.interval.messages',
  'log.flush.interval.ms', 'log.retention.bytes', 'log.retention.ms', 'message.max.bytes', 'log.index.interval.bytes',
  'log.cleaner.delete.retention.ms', 'log.cleaner.min.compaction.lag.ms', 'log.cleaner.max.compaction.lag.ms',
  'log.segment.delete.delay.ms', 'log.cleaner.min.cleanable.ratio', 'log.cleanup.policy', 'unclean.leader.election.enable',
  'min.insync.replicas', 'compression.type', 'compression.gzip.level', 'compression.lz4.level', 'compression.zstd.level',
  'log.preallocate', 'log.message.timestamp.type', 'log.message.timestamp.before.max.ms',
  'log.message.timestamp.after.max.ms', 'log.local.retention.ms', 'log.local.retention.bytes',
  'log.remote.copy.lag.ms', 'log.remote.copy.lag.bytes',
];

/** Kafka's thread pools (DynamicThreadPool) and the other dynamic configs. */
export const THREAD_POOLS = ['num.io.threads', 'num.replica.fetchers', 'num.recovery.threads.per.data.dir', 'background.threads'];
const OTHER_DYNAMIC = [
  'metric.reporters', 'max.connections.per.ip', 'max.connections.per.ip.overrides', 'producer.id.expiration.ms',
  'transaction.partition.verification.enable', 'config.providers', 'cordoned.log.dirs', 'max.decompressed.message.bytes',
  'follower.fetch.last.tiered.offset.enable', 'remote.fetch.max.wait.ms', 'remote.list.offsets.request.timeout.ms',
  'remote.log.index.file.cache.total.size.bytes', 'remote.log.manager.copier.thread.pool.size',
  'remote.log.manager.copy.max.bytes.per.second', 'remote.log.manager.expiration.thread.pool.size',
  'remote.log.manager.fetch.max.bytes.per.second', 'remote.log.manager.follower.thread.pool.size',
  'remote.log.reader.threads', 'group.consumer.assignment.interval.ms', 'group.share.assignment.interval.ms',
  'group.streams.assignment.interval.ms', 'group.coordinator.cached.buffer.max.bytes',
  'share.coordinator.cached.buffer.max.bytes', 'errors.deadletterqueue.auto.create.topics.enable',
  'errors.deadletterqueue.topic.name.prefix',
];

export const ALL_DYNAMIC: ReadonlySet<string> = new Set([
  ...SSL_STORE_CONFIGS, ...LISTENER_CONFIGS, ...CLEANER_CONFIGS, ...LOG_CONFIGS, ...THREAD_POOLS, ...OTHER_DYNAMIC,
  ...Object.keys(DYNAMIC_ONLY_CONFIGS),
]);

export const PER_BROKER: ReadonlySet<string> = new Set([...SSL_STORE_CONFIGS, ...LISTENER_CONFIGS].filter((n) => !CLUSTER_LEVEL_LISTENER_CONFIGS.includes(n)));

/**
 * Kafka 4.4 broker settings that Samsa's table does not have, none of them dynamic: refused like
 * Samsa's own static settings.
 */
export const KAFKA_STATIC_SETTINGS: ReadonlySet<string> = new Set(`
add.partitions.to.txn.retry.backoff.max.ms add.partitions.to.txn.retry.backoff.ms alter.config.policy.class.name
alter.log.dirs.replication.quota.window.num alter.log.dirs.replication.quota.window.size.seconds client.quota.callback.class
controller.quorum.append.linger.ms controller.quorum.auto.join.enable controller.quorum.election.backoff.max.ms
controller.quorum.election.timeout.ms controller.quorum.fetch.max.bytes controller.quorum.fetch.snapshot.max.bytes
controller.quorum.fetch.timeout.ms controller.quorum.request.timeout.ms controller.quorum.retry.backoff.ms
controller.socket.timeout.ms create.topic.policy.class.name
delete.records.purgatory.purge.interval.requests early.start.listeners fetch.purgatory.purge.interval.requests
group.consumer.max.assignment.interval.ms group.consumer.min.assignment.interval.ms group.coordinator.append.linger.ms
group.coordinator.background.threads group.coordinator.rebalance.protocols group.coordinator.threads
group.share.max.assignment.interval.ms group.share.min.assignment.interval.ms group.streams.assignors
group.streams.heartbeat.interval.ms group.streams.initial.rebalance.delay.ms group.streams.max.assignment.interval.ms
group.streams.max.heartbeat.interval.ms group.streams.max.session.timeout.ms
group.streams.max.standby.replicas group.streams.min.assignment.interval.ms group.streams.min.heartbeat.interval.ms
group.streams.min.session.timeout.ms group.streams.num.standby.replicas group.streams.rack.aware.assignment.tags
group.streams.session.timeout.ms group.streams.topology.description.plugin.class initial.broker.registration.timeout.ms
kafka.metrics.polling.interval.secs kafka.metrics.reporters log.dir.failure.timeout.ms
metadata.log.dir metadata.log.max.record.bytes.between.snapshots metadata.log.max.snapshot.interval.ms
metadata.log.segment.bytes metadata.log.segment.ms metadata.max.idle.interval.ms metadata.max.retention.bytes
metadata.max.retention.ms metrics.num.samples metrics.recording.level metrics.sample.window.ms
num.replica.alter.log.dirs.threads offsets.load.buffer.size offsets.topic.compression.codec
producer.purgatory.purge.interval.requests queued.max.request.bytes remote.log.manager.copy.quota.window.num
remote.log.manager.copy.quota.window.size.seconds remote.log.manager.fetch.quota.window.num
remote.log.manager.fetch.quota.window.size.seconds remote.log.manager.task.interval.ms remote.log.manager.thread.pool.size
remote.log.metadata.custom.metadata.max.bytes remote.log.metadata.manager.class.name remote.log.metadata.manager.class.path
remote.log.metadata.manager.impl.prefix remote.log.metadata.manager.listener.name remote.log.reader.max.pending.tasks
remote.log.storage.manager.class.name remote.log.storage.manager.class.path remote.log.storage.manager.impl.prefix
remote.log.storage.system.enable replica.socket.receive.buffer.bytes request.timeout.ms
sasl.client.callback.handler.class sasl.login.callback.handler.class sasl.login.class sasl.login.connect.timeout.ms
sasl.login.read.timeout.ms sasl.login.retry.backoff.max.ms sasl.login.retry.backoff.ms sasl.mechanism.controller.protocol
sasl.oauthbearer.allow.unverified.audience sasl.oauthbearer.allow.unverified.issuer sasl.oauthbearer.assertion.algorithm
sasl.oauthbearer.assertion.claim.aud sasl.oauthbearer.assertion.claim.exp.seconds sasl.oauthbearer.assertion.claim.iss
sasl.oauthbearer.assertion.claim.jti.include sasl.oauthbearer.assertion.claim.nbf.seconds sasl.oauthbearer.assertion.claim.sub
sasl.oauthbearer.assertion.file sasl.oauthbearer.assertion.private.key.file sasl.oauthbearer.assertion.private.key.passphrase
sasl.oauthbearer.assertion.template.file sasl.oauthbearer.client.credentials.client.id
sasl.oauthbearer.client.credentials.client.secret sasl.oauthbearer.clock.skew.seconds sasl.oauthbearer.expected.issuer
sasl.oauthbearer.jwks.endpoint.refresh.ms sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms
sasl.oauthbearer.jwks.endpoint.retry.backoff.ms sasl.oauthbearer.jwks.endpoint.url sasl.oauthbearer.jwt.retriever.class
sasl.oauthbearer.jwt.validator.class sasl.oauthbearer.scope sasl.oauthbearer.scope.claim.name sasl.oauthbearer.sub.claim.name
sasl.oauthbearer.token.endpoint.url security.providers share.coordinator.append.linger.ms share.coordinator.load.buffer.size
share.coordinator.state.topic.compression.codec share.coordinator.threads share.fetch.purgatory.purge.interval.requests
socket.connection.setup.timeout.max.ms socket.connection.setup.timeout.ms socket.listen.backlog.size ssl.allow.dn.changes
ssl.allow.san.changes telemetry.max.bytes transaction.state.log.load.buffer.size transaction.two.phase.commit.enable
`.trim().split(/\s+/));

/** Settings Samsa has that Kafka 4.4's broker does not know: Kafka would store them as custom configs. */
export const NOT_KAFKA_SETTINGS: ReadonlySet<string> = new Set([
  'allow.everyone.if.no.acl.found', 'super.users', 'producer.id.expiration.check.interval.ms',
  'share.coordinator.cold.partition.snapshot.interval.ms', 'share.coordinator.state.topic.prune.interval.ms',
]);

/** Listener configs given per SASL mechanism: listener.name.<l>.<mechanism>.<config>. */
const LISTENER_MECHANISM_CONFIGS = [
  'sasl.jaas.config', 'sasl.login.callback.handler.class', 'sasl.login.class', 'sasl.server.callback.handler.class', 'connections.max.reauth.ms',
];

const LISTENER_CONFIG = /^listener\.name\.[^.]*\.(.*)$/;

/** Whether Kafka 4.4 marks this exact name dynamic (DescribeConfigs' read_only is its negation). */
export function isDynamicBrokerConfig(name: string): boolean {
  return ALL_DYNAMIC.has(name);
}

/** The config a listener config (listener.name.<l>.<config>) sets, else null. */
export function listenerConfigBase(name: string): string | null {
  return LISTENER_CONFIG.exec(name)?.[1] ?? null;
}

/** Kafka's DynamicBrokerConfig.brokerConfigSynonyms: the names one broker config may be given under, highest priority first. */
export function brokerConfigSynonyms(name: string, matchListenerOverride: boolean): string[] {
  switch (name) {
    case 'log.roll.ms': case 'log.roll.hours': return ['log.roll.ms', 'log.roll.hours'];
    case 'log.roll.jitter.ms': case 'log.roll.jitter.hours': return ['log.roll.jitter.ms', 'log.roll.jitter.hours'];
    case 'log.flush.interval.ms': return ['log.flush.interval.ms', 'log.flush.scheduler.interval.ms'];
    case 'log.retention.ms': case 'log.retention.minutes': case 'log.retention.hours':
      return ['log.retention.ms', 'log.retention.minutes', 'log.retention.hours'];
  }
  const base = matchListenerOverride ? listenerConfigBase(name) : null;
  if (base !== null) return [name, LISTENER_MECHANISM_CONFIGS.find((m) => base.endsWith(m)) ?? base];
  return [name];
}
