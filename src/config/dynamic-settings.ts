/**
 * Broker settings Kafka 4.4 lets AlterConfigs / IncrementalAlterConfigs change at runtime (it marks
 * them dynamic) and that Samsa has no machinery for: connection limits, SASL/Kerberos login
 * tuning, tiered-storage and thread-pool sizes. They are merged into BROKER_SETTINGS so that a
 * properties file may set them, DescribeConfigs lists them with Kafka's type and default, and the
 * alter APIs validate and store them (src/config/dynamic-broker-configs.ts); Samsa does not act on
 * them. The dynamic settings Samsa does act on are documented where they are defined.
 */
import type { SettingSpec } from './setting-spec.js';

const INT_MAX = '2147483647';
const LONG_MAX = '9223372036854775807';

function accepted(type: SettingSpec['type'], def: string | null, what: string, min?: number): SettingSpec {
  return { type, default: def, min, doc: `${what} Accepted (also as a dynamic broker config) and reported; Samsa does not act on it.` };
}

export const DYNAMIC_ONLY_KAFKA_SETTINGS = {
  // --- threads and buffers of Kafka's JVM broker -----------------------------------------------
  'background.threads': accepted('int', '10', 'Threads for Kafka\'s background tasks.', 1),
  'group.coordinator.cached.buffer.max.bytes': accepted('int', '1048588', 'Largest buffer Kafka\'s group coordinator keeps for reuse.', 524288),
  'share.coordinator.cached.buffer.max.bytes': accepted('int', '1048588', 'Largest buffer Kafka\'s share coordinator keeps for reuse.', 524288),
  'group.streams.assignment.interval.ms': accepted('int', '1000', 'Assignment batching of Kafka Streams groups (KIP-1071, which Samsa does not serve).', 0),
  'max.decompressed.message.bytes': accepted('int', '2147483639', 'Largest decompressed record Kafka accepts.', 1),
  'config.providers': accepted('list', '', 'ConfigProvider aliases for indirect values (${provider:path:key}); Samsa reads values literally.'),
  'metric.reporters': accepted('list', 'org.apache.kafka.common.metrics.JmxReporter', 'Kafka metrics reporter classes; Samsa serves Prometheus metrics over HTTP instead.'),
  'principal.builder.class': accepted('string', 'org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder', 'Class building principals; Samsa builds them as Kafka\'s default builder does.'),
  'cordoned.log.dirs': accepted('list', '', 'Log dirs that take no new partitions (KIP-1066); every entry must be one of log.dirs.'),
  // --- connection limits ----------------------------------------------------------------------
  'max.connections': accepted('int', INT_MAX, 'Most connections the broker accepts (also per listener: listener.name.<l>.max.connections).', 0),
  'max.connection.creation.rate': accepted('int', INT_MAX, 'Most new connections a second (also per listener).', 0),
  'max.connections.per.ip': accepted('int', INT_MAX, 'Most connections from one address.', 0),
  'max.connections.per.ip.overrides': accepted('string', '', 'Per-address limits, host:count pairs separated by commas.'),
  // --- Kerberos and SASL login refresh (Samsa has no GSSAPI and no broker-side OAuth login) ----
  'sasl.kerberos.kinit.cmd': accepted('string', '/usr/bin/kinit', 'Kerberos kinit command.'),
  'sasl.kerberos.min.time.before.relogin': accepted('long', '60000', 'Kerberos login thread sleep between refresh attempts.'),
  'sasl.kerberos.principal.to.local.rules': accepted('list', 'DEFAULT', 'Rules mapping Kerberos principal names to short names.'),
  'sasl.kerberos.service.name': accepted('string', null, 'Kerberos principal name the broker runs as.'),
  'sasl.kerberos.ticket.renew.jitter': accepted('double', '0.05', 'Random jitter added to the Kerberos renewal time.'),
  'sasl.kerberos.ticket.renew.window.factor': accepted('double', '0.8', 'Part of a Kerberos ticket\'s lifetime after which it is renewed.'),
  'sasl.login.refresh.buffer.seconds': accepted('short', '300', 'Buffer before a login credential expires within which it is refreshed.'),
  'sasl.login.refresh.min.period.seconds': accepted('short', '60', 'Shortest wait between login credential refreshes.'),
  'sasl.login.refresh.window.factor': accepted('double', '0.8', 'Part of a login credential\'s lifetime after which it is refreshed.'),
  'sasl.login.refresh.window.jitter': accepted('double', '0.05', 'Random jitter added to the login refresh time.'),
  'ssl.provider': accepted('string', null, 'JCA security provider for TLS; Samsa uses Node\'s OpenSSL.'),
  // --- tiered storage (Samsa has none) --------------------------------------------------------
  'follower.fetch.last.tiered.offset.enable': accepted('boolean', 'false', 'Tiered storage: an empty follower starts after the last tiered offset.'),
  'log.remote.copy.lag.bytes': accepted('long', '-1', 'Tiered storage: bytes of non-active segments after which they are copied.', -1),
  'log.remote.copy.lag.ms': accepted('long', '0', 'Tiered storage: age of non-active segments after which they are copied.', -1),
  'remote.fetch.max.wait.ms': { type: 'int', default: '500', min: 1, doc: 'Tiered storage: longest a Fetch waits for a remote read; past it the partition is answered empty (no error) and the read goes on filling the cache (Kafka\'s DelayedRemoteFetch). Also a dynamic broker config.' },
  'remote.list.offsets.request.timeout.ms': accepted('long', '30000', 'Tiered storage: timeout of remote ListOffsets.', 1),
  'remote.log.index.file.cache.total.size.bytes': accepted('long', '1073741824', 'Tiered storage: local cache of remote index files.', 1),
  'remote.log.manager.copier.thread.pool.size': accepted('int', '10', 'Tiered storage: copier threads.', 1),
  'remote.log.manager.copy.max.bytes.per.second': { type: 'long', default: LONG_MAX, min: 1, doc: 'Tiered storage: the most bytes per second this broker copies to the remote tier, measured over 11 one-second windows; while above it no new segment upload starts (Kafka\'s copy quota). Also a dynamic broker config.' },
  'remote.log.manager.expiration.thread.pool.size': accepted('int', '10', 'Tiered storage: expiration threads.', 1),
  'remote.log.manager.fetch.max.bytes.per.second': { type: 'long', default: LONG_MAX, min: 1, doc: 'Tiered storage: the most bytes per second this broker reads from the remote tier for Fetch requests, measured over 11 one-second windows; while above it a Fetch answers the remote partitions with no records and no error, and the consumer fetches again (Kafka\'s fetch quota). Also a dynamic broker config.' },
  'remote.log.manager.follower.thread.pool.size': accepted('int', '2', 'Tiered storage: follower task threads.', 1),
  'remote.log.reader.threads': accepted('int', '10', 'Tiered storage: remote read threads.', 1),
} satisfies Record<string, SettingSpec>;

/**
 * Dynamic broker configs that are not broker settings at all (Kafka's QuotaConfig broker quotas):
 * they exist only in the cluster metadata, and DescribeConfigs lists them only where set.
 */
export const DYNAMIC_ONLY_CONFIGS: Readonly<Record<string, SettingSpec>> = {
  'leader.replication.throttled.rate': {
    type: 'long', default: null, min: 0,
    doc: 'Bytes per second this broker sends, as leader, to lagging followers of the replicas listed in leader.replication.throttled.replicas. Dynamic only.',
  },
  'follower.replication.throttled.rate': {
    type: 'long', default: null, min: 0,
    doc: 'Bytes per second this broker copies, as follower, for the replicas listed in follower.replication.throttled.replicas. Dynamic only.',
  },
  'replica.alter.log.dirs.io.max.bytes.per.second': {
    type: 'long', default: null, min: 0,
    doc: 'Bytes per second all moves of replicas between this broker\'s log dirs (AlterReplicaLogDirs) copy together. Dynamic only.',
  },
};
