/**
 * `/metrics`: one scrape = the counters of broker-metrics.ts plus gauges read from the broker's
 * state at that moment (logs, partitions, the metadata cache, consumer groups, the process).
 *
 * Names are what the Prometheus JMX exporter's usual Kafka rules (Strimzi's kafka-metrics.yaml,
 * the exporter's example kafka-2_0_0.yml; lowercaseOutputName) make of Kafka's MBeans, so that
 * dashboards and alerts written for Kafka work: `kafka.server:type=BrokerTopicMetrics,
 * name=MessagesInPerSec,topic=t` → `kafka_server_brokertopicmetrics_messagesin_total{topic="t"}`
 * (and, as Kafka has it, the same family without `topic` for the broker-wide total). Consumer lag
 * follows kafka_exporter (`kafka_consumergroup_lag{consumergroup,topic,partition}`). docs/observability.md
 * lists the mapping, and what is Samsa's own.
 */
import type { ServerResponse } from 'node:http';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { HttpBroker } from './http-broker.js';
import { errorName } from '../protocol/generated/error-codes.js';
import { CONTENT_TYPE, ExpositionWriter, labelText, type Labels } from './metrics/registry.js';
import type { TopicStats } from './metrics/broker-metrics.js';
import { send } from './respond.js';
import { groupLag } from './group-lag.js';

let loopDelay: IntervalHistogram | null = null;
let loopDelayUsers = 0;

/** Starts sampling the event-loop delay (one monitor per process, shared by every HTTP listener). */
export function startEventLoopMonitor(): void {
  if (loopDelayUsers++ > 0) return;
  loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
}

export function stopEventLoopMonitor(): void {
  if (loopDelayUsers === 0 || --loopDelayUsers > 0) return;
  loopDelay?.disable();
  loopDelay = null;
}

/** Event-loop delay since the previous scrape. */
function eventLoopDelay(): { mean: number; p99: number; max: number } {
  if (loopDelay === null) return { mean: 0, p99: 0, max: 0 };
  const h = loopDelay;
  const out = h.count > 0 ? { mean: h.mean / 1e9, p99: h.percentile(99) / 1e9, max: h.max / 1e9 } : { mean: 0, p99: 0, max: 0 };
  h.reset();
  return out;
}

const TOPIC_COUNTERS: readonly [string, keyof TopicStats, string][] = [
  ['messagesin', 'messagesIn', 'Records appended (Kafka MessagesInPerSec).'],
  ['bytesin', 'bytesIn', 'Record batch bytes appended from producers (Kafka BytesInPerSec).'],
  ['bytesout', 'bytesOut', 'Record batch bytes sent to consumers (Kafka BytesOutPerSec).'],
  ['messagesout', 'messagesOut', 'Samsa only: records in the batches sent to consumers.'],
  ['bytesrejected', 'bytesRejected', 'Bytes of produce batches that were refused (Kafka BytesRejectedPerSec).'],
  ['replicationbytesout', 'replicationBytesOut', 'Bytes sent to follower replicas (Kafka ReplicationBytesOutPerSec).'],
  ['totalproducerequests', 'totalProduceRequests', 'Produce partition requests (Kafka TotalProduceRequestsPerSec).'],
  ['failedproducerequests', 'failedProduceRequests', 'Produce partition requests answered with an error (Kafka FailedProduceRequestsPerSec).'],
  ['totalfetchrequests', 'totalFetchRequests', 'Partitions Fetch requests read, a session\'s implied ones included (Kafka TotalFetchRequestsPerSec).'],
  ['failedfetchrequests', 'failedFetchRequests', 'Partitions whose read failed unexpectedly (Kafka FailedFetchRequestsPerSec; not NOT_LEADER_OR_FOLLOWER, OFFSET_OUT_OF_RANGE and the like).'],
];

function topicMetrics(w: ExpositionWriter, broker: HttpBroker): void {
  const topics = [...broker.metrics.topics.values()].sort((a, b) => (a.topic < b.topic ? -1 : 1));
  for (const [name, field, help] of TOPIC_COUNTERS) {
    w.family(`kafka_server_brokertopicmetrics_${name}_total`, 'counter', help);
    let total = 0;
    for (const t of topics) {
      const v = t[field] as number;
      total += v;
      w.sample([['topic', t.topic]], v);
    }
    w.sample([], total);
  }
}

const TIMES: readonly ['totalTime' | 'requestQueueTime' | 'localTime' | 'remoteTime' | 'responseSendTime', string, string][] = [
  ['totalTime', 'totaltimems', 'Time from receiving a request to its response being ready, ms (Kafka TotalTimeMs without the socket send).'],
  ['requestQueueTime', 'requestqueuetimems', 'Time a request waited behind earlier requests of its connection, ms (Kafka RequestQueueTimeMs).'],
  ['localTime', 'localtimems', 'Time the handler worked on a request, ms (Kafka LocalTimeMs).'],
  ['remoteTime', 'remotetimems', 'Time a deferred reply waited for replication or fsync, ms (Kafka RemoteTimeMs).'],
  ['responseSendTime', 'responsesendtimems', 'Time from writing a response to the socket until the kernel took it all, ms (Kafka ResponseSendTimeMs).'],
];

function requestMetrics(w: ExpositionWriter, broker: HttpBroker): void {
  const all = broker.metrics.allRequests();
  w.family('kafka_network_requestmetrics_requests_total', 'counter', 'Requests by API and version (Kafka RequestsPerSec).');
  for (const r of all) r.byVersion.forEach((n, v) => { if (n > 0) w.sample([['request', r.name], ['version', v]], n); });
  w.family('kafka_network_requestmetrics_errors_total', 'counter', 'Error codes in responses by API: every code in a response, per topic, partition or group (Kafka ErrorsPerSec; NONE included).');
  for (const r of all) for (const [code, n] of [...r.errors].sort((a, b) => a[0] - b[0])) w.sample([['request', r.name], ['error', errorName(code)]], n);
  for (const [field, name, help] of TIMES) {
    w.family(`kafka_network_requestmetrics_${name}`, 'summary', help);
    for (const r of all) if (r[field].count > 0) w.summary([['request', r.name]], r[field]);
  }
  w.family('kafka_server_delayedoperationpurgatory_purgatorysize', 'gauge', 'Requests waiting: Produce replies for replication or fsync, Fetches long-polling (Kafka PurgatorySize).');
  w.sample([['delayedOperation', 'Produce']], broker.metrics.delayedProduce);
  w.sample([['delayedOperation', 'Fetch']], broker.metrics.delayedFetch);
}

function partitionMetrics(w: ExpositionWriter, broker: HttpBroker): void {
  const partitions = broker.replicaManager ? broker.replicaManager.allPartitions() : [];
  let under = 0, leaders = 0, underMinIsr = 0, atMinIsr = 0, offlineReplicas = 0;
  for (const p of partitions) {
    if (p.log.isOffline) offlineReplicas++;
    if (!p.isLeader) continue;
    leaders++;
    if (p.isr.length < p.replicas.length) under++;
    if (p.isr.length < p.minInsyncReplicas) underMinIsr++;
    else if (p.isr.length === p.minInsyncReplicas) atMinIsr++;
  }
  const gauge = (name: string, help: string, v: number) => w.family(name, 'gauge', help).sample([], v);
  gauge('kafka_server_replicamanager_partitioncount', 'Partitions with a replica on this broker.', partitions.length);
  gauge('kafka_server_replicamanager_leadercount', 'Partitions this broker leads.', leaders);
  gauge('kafka_server_replicamanager_underreplicatedpartitions', 'Led partitions whose ISR is smaller than their replica set.', under);
  gauge('kafka_server_replicamanager_underminisrpartitioncount', 'Led partitions with fewer in-sync replicas than min.insync.replicas.', underMinIsr);
  gauge('kafka_server_replicamanager_atminisrpartitioncount', 'Led partitions with exactly min.insync.replicas in sync.', atMinIsr);
  gauge('kafka_server_replicamanager_offlinereplicacount', 'Replicas on this broker whose log is offline (storage error).', offlineReplicas);
  // Kafka's kafka.server:type=FetchSessionCache gauges and meter (fetch sessions, KIP-227).
  const sessions = broker.replicaManager?.fetchSessions;
  gauge('kafka_server_fetchsessioncache_numincrementalfetchsessions', 'Incremental fetch sessions this broker keeps (Kafka FetchSessionCache NumIncrementalFetchSessions).', sessions?.size ?? 0);
  gauge('kafka_server_fetchsessioncache_numincrementalfetchpartitionscached', 'Partitions in those sessions (Kafka NumIncrementalFetchPartitionsCached).', sessions?.totalPartitions ?? 0);
  w.family('kafka_server_fetchsessioncache_incrementalfetchsessionevictions_total', 'counter', 'Fetch sessions evicted to make room for new ones (Kafka IncrementalFetchSessionEvictionsPerSec).').sample([], sessions?.evictions ?? 0);
  // Kafka's kafka.server:type=ShareSessionCache gauges and meter (share sessions, KIP-932).
  const share = broker.sharePartitions;
  gauge('kafka_server_sharesessioncache_sharesessionscount', 'Share sessions this broker keeps (Kafka ShareSessionCache ShareSessionsCount).', share?.sessions.size ?? 0);
  gauge('kafka_server_sharesessioncache_sharepartitionscount', 'Share-partitions in those sessions (Kafka SharePartitionsCount).', share?.sessionPartitions ?? 0);
  w.family('kafka_server_sharesessioncache_sharesessionevictions_total', 'counter', 'Share sessions ended by their connection closing (Kafka ShareSessionEvictionsPerSec).').sample([], share?.sessionEvictions ?? 0);
  w.family('kafka_server_replicamanager_isrshrinks_total', 'counter', 'ISR shrinks this broker committed as leader (Kafka IsrShrinksPerSec).').sample([], broker.metrics.isrShrinks);
  w.family('kafka_server_replicamanager_isrexpands_total', 'counter', 'ISR expansions this broker committed as leader (Kafka IsrExpandsPerSec).').sample([], broker.metrics.isrExpands);

  const sorted = [...partitions].sort((a, b) => (a.topic === b.topic ? a.partitionIndex - b.partitionIndex : a.topic < b.topic ? -1 : 1));
  const rendered = sorted.map((p) => labelText([['topic', p.topic], ['partition', p.partitionIndex]]));
  const per = (name: string, type: 'gauge', help: string, value: (p: (typeof sorted)[number]) => number) => {
    w.family(name, type, help);
    for (let i = 0; i < sorted.length; i++) w.sampleWith(rendered[i], value(sorted[i]));
  };
  per('kafka_log_log_size', 'gauge', 'Bytes of the partition log\'s segments (Kafka Log Size).', (p) => p.log.sizeBytes);
  per('kafka_log_log_numlogsegments', 'gauge', 'Segments of the partition log (Kafka NumLogSegments).', (p) => p.log.numberOfSegments);
  per('kafka_log_log_logstartoffset', 'gauge', 'First offset of the partition log (Kafka LogStartOffset).', (p) => p.log.logStartOffset);
  if (broker.tiered) per('kafka_log_log_locallogstartoffset', 'gauge', 'Tiered storage: first offset on local disk (Kafka LocalLogStartOffset).', (p) => p.log.localLogStartOffset);
  per('kafka_log_log_logendoffset', 'gauge', 'Offset of the next record appended (Kafka LogEndOffset).', (p) => p.log.logEndOffset);
  per('kafka_log_log_highwatermark', 'gauge', 'Samsa only: the high watermark (consumers read below it).', (p) => p.log.highWatermark);
  per('kafka_cluster_partition_replicascount', 'gauge', 'Replicas of the partition (Kafka Partition ReplicasCount).', (p) => p.replicas.length);
  per('kafka_cluster_partition_insyncreplicascount', 'gauge', 'In-sync replicas of the partition (Kafka Partition InSyncReplicasCount).', (p) => p.isr.length);
  per('kafka_cluster_partition_underreplicated', 'gauge', '1 when this broker leads the partition and its ISR is short (Kafka Partition UnderReplicated).', (p) => (p.isLeader && p.isr.length < p.replicas.length ? 1 : 0));

  w.family('kafka_server_fetcherlagmetrics_consumerlag', 'gauge', 'Messages a follower is behind this leader\'s log end (seen by the leader, labelled with the follower as replica).');
  for (const p of sorted) {
    if (!p.isLeader) continue;
    for (const id of p.replicas) {
      const f = p.followerState(id);
      if (!f || f.logEndOffset < 0) continue;
      w.sample([['clientId', `ReplicaFetcherThread-0-${broker.nodeId}`], ['topic', p.topic], ['partition', p.partitionIndex], ['replica', id]], Math.max(0, p.log.logEndOffset - f.logEndOffset));
    }
  }
}

function clusterMetrics(w: ExpositionWriter, broker: HttpBroker): void {
  const cache = broker.cluster?.metadataCache;
  const active = broker.cluster?.controller.isActive ?? false;
  let offline = 0, total = 0;
  if (cache) for (const s of cache.allPartitions()) {
    total++;
    if (s.leader < 0) offline++;
  }
  const gauge = (name: string, help: string, v: number) => w.family(name, 'gauge', help).sample([], v);
  gauge('kafka_controller_kafkacontroller_activecontrollercount', '1 on the active controller.', active ? 1 : 0);
  gauge('kafka_controller_kafkacontroller_offlinepartitionscount', 'Partitions without a leader (reported by the active controller, 0 elsewhere).', active ? offline : 0);
  gauge('kafka_controller_kafkacontroller_globalpartitioncount', 'Partitions in the cluster (active controller).', active ? total : 0);
  gauge('kafka_controller_kafkacontroller_globaltopiccount', 'Topics in the cluster (active controller).', active && cache ? cache.topics.size : 0);
  gauge('kafka_server_kafkaserver_brokerstate', 'Kafka BrokerState: 3 running, 6 pending controlled shutdown, 0 not running.', broker.stopping ? 6 : broker.http?.isReady ? 3 : 0);
}

function socketMetrics(w: ExpositionWriter, broker: HttpBroker): void {
  const ls = [...broker.metrics.listeners.values()];
  const fam = (name: string, type: 'gauge' | 'counter', help: string, v: (l: (typeof ls)[number]) => number) => {
    w.family(`kafka_server_socket_server_metrics_${name}`, type, help);
    for (const l of ls) w.sample([['listener', l.listener], ['networkProcessor', 0]], v(l));
  };
  fam('connection_count', 'gauge', 'Open client connections per listener.', (l) => l.active);
  fam('connection_creation_total', 'counter', 'Connections accepted per listener.', (l) => l.created);
  fam('connection_close_total', 'counter', 'Connections closed per listener.', (l) => l.closed);
  fam('failed_authentication_total', 'counter', 'Failed SASL authentications per listener.', (l) => l.failedAuthentication);
  fam('successful_authentication_total', 'counter', 'Successful SASL authentications per listener.', (l) => l.successfulAuthentication);
}

async function groupMetrics(w: ExpositionWriter, broker: HttpBroker): Promise<void> {
  const groups = await groupLag(broker).catch(() => []);
  const states = new Map<string, number>([['PreparingRebalance', 0], ['CompletingRebalance', 0], ['Stable', 0], ['Dead', 0], ['Empty', 0]]);
  for (const g of groups) states.set(g.state, (states.get(g.state) ?? 0) + 1);
  w.family('kafka_coordinator_group_groupmetadatamanager_numgroups', 'gauge', 'Groups this broker coordinates.').sample([], groups.length);
  for (const [state, n] of states) {
    w.family(`kafka_coordinator_group_groupmetadatamanager_numgroups${state.toLowerCase()}`, 'gauge', `Groups in state ${state}.`).sample([], n);
  }
  w.family('kafka_consumergroup_members', 'gauge', 'Members of a group (kafka_exporter).');
  for (const g of groups) w.sample([['consumergroup', g.groupId]], g.members);
  w.family('kafka_consumergroup_state', 'gauge', 'Samsa only: 1 for the state a group is in.');
  for (const g of groups) w.sample([['consumergroup', g.groupId], ['state', g.state]], 1);
  const rows = groups.flatMap((g) => g.partitions.map((p) => ({ g: g.groupId, ...p })));
  const labels = (r: (typeof rows)[number]): Labels => [['consumergroup', r.g], ['topic', r.topic], ['partition', r.partition]];
  w.family('kafka_consumergroup_current_offset', 'gauge', 'Committed offset of a group on a partition (kafka_exporter).');
  for (const r of rows) w.sample(labels(r), r.committed);
  w.family('kafka_consumergroup_lag', 'gauge', 'High watermark minus committed offset (kafka_exporter), for partitions whose log is on this broker.');
  for (const r of rows) if (r.lag !== null) w.sample(labels(r), r.lag);
  w.family('kafka_consumergroup_lag_sum', 'gauge', 'Lag of a group summed over a topic\'s partitions (kafka_exporter).');
  const sums = new Map<string, { g: string; topic: string; lag: number }>();
  for (const r of rows) {
    if (r.lag === null) continue;
    const k = `${r.g}\u0000${r.topic}`;
    const s = sums.get(k) ?? { g: r.g, topic: r.topic, lag: 0 };
    s.lag += r.lag;
    sums.set(k, s);
  }
  for (const s of sums.values()) w.sample([['consumergroup', s.g], ['topic', s.topic]], s.lag);
}

function processMetrics(w: ExpositionWriter, broker: HttpBroker): void {
  const cpu = process.cpuUsage();
  const mem = process.memoryUsage();
  const loop = eventLoopDelay();
  const one = (name: string, type: 'gauge' | 'counter', help: string, v: number) => w.family(name, type, help).sample([], v);
  one('process_cpu_user_seconds_total', 'counter', 'User CPU time of the broker process.', cpu.user / 1e6);
  one('process_cpu_system_seconds_total', 'counter', 'System CPU time of the broker process.', cpu.system / 1e6);
  one('process_cpu_seconds_total', 'counter', 'User and system CPU time of the broker process.', (cpu.user + cpu.system) / 1e6);
  one('process_resident_memory_bytes', 'gauge', 'Resident memory of the broker process.', mem.rss);
  one('process_start_time_seconds', 'gauge', 'When the broker started (Unix time).', Math.floor(broker.metrics.startedAtMs / 1000));
  one('nodejs_heap_size_total_bytes', 'gauge', 'V8 heap size.', mem.heapTotal);
  one('nodejs_heap_size_used_bytes', 'gauge', 'V8 heap in use.', mem.heapUsed);
  one('nodejs_external_memory_bytes', 'gauge', 'Memory of Buffers and other objects outside the V8 heap.', mem.external);
  one('nodejs_eventloop_lag_seconds', 'gauge', 'Mean event-loop delay since the previous scrape.', loop.mean);
  one('nodejs_eventloop_lag_p99_seconds', 'gauge', '99th percentile of the event-loop delay since the previous scrape.', loop.p99);
  one('nodejs_eventloop_lag_max_seconds', 'gauge', 'Largest event-loop delay since the previous scrape.', loop.max);
}

/**
 * Tiered storage (KIP-405), Kafka's RemoteStorage BrokerTopicMetrics (broker-wide here) and
 * RemoteLogManager gauges; only when remote.log.storage.system.enable.
 */
function remoteStorageMetrics(w: ExpositionWriter, broker: HttpBroker): void {
  const tiered = broker.tiered;
  if (!tiered) return;
  const m = tiered.manager.metrics;
  const counter = (name: string, help: string, v: number) => w.family(`kafka_server_brokertopicmetrics_${name}_total`, 'counter', help).sample([], v);
  counter('remotecopybytes', 'Bytes of segments copied to the remote tier (Kafka RemoteCopyBytesPerSec).', m.copyBytes);
  counter('remotecopyrequests', 'Segments copied to the remote tier (Kafka RemoteCopyRequestsPerSec).', m.copySegments);
  counter('remotecopyerrors', 'Segment copies that failed (Kafka RemoteCopyErrorsPerSec).', m.copyErrors);
  counter('remotefetchbytes', 'Bytes read from the remote tier for fetches (Kafka RemoteFetchBytesPerSec; cache misses).', m.fetchBytes);
  counter('remotefetcherrors', 'Fetches of remote data that failed (Kafka RemoteFetchErrorsPerSec).', m.fetchErrors);
  w.family('kafka_server_delayedremotefetchmetrics_expires_total', 'counter', 'Remote reads a Fetch stopped waiting for after remote.fetch.max.wait.ms (Kafka DelayedRemoteFetchMetrics ExpiresPerSec).').sample([], m.fetchExpires);
  counter('remotedeleterequests', 'Remote segments deleted by retention (Kafka RemoteDeleteRequestsPerSec).', m.deleteSegments);
  counter('remotedeleteerrors', 'Remote segment deletions that failed (Kafka RemoteDeleteErrorsPerSec).', m.deleteErrors);
  w.family('kafka_server_brokertopicmetrics_remotecopylagbytes', 'gauge', 'Bytes of closed local segments not yet copied (Kafka RemoteCopyLagBytes): grows while the store is unreachable.').sample([], tiered.manager.copyLagBytes());
  const sizes = [...tiered.remoteSizes()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  w.family('kafka_server_brokertopicmetrics_remotelogsizebytes', 'gauge', 'Bytes in the remote tier of the partitions this broker leads, per topic (Kafka RemoteLogSizeBytes).');
  for (const [topic, t] of sizes) w.sample([['topic', topic]], t.bytes);
  w.family('kafka_server_brokertopicmetrics_remotelogmetadatacount', 'gauge', 'Remote segments of the partitions this broker leads, per topic (Kafka RemoteLogMetadataCount).');
  for (const [topic, t] of sizes) w.sample([['topic', topic]], t.segments);
  w.family('samsa_remote_copy_throttled_total', 'counter', 'Samsa only: copy passes stopped because remote.log.manager.copy.max.bytes.per.second was used up.').sample([], m.copyThrottled);
  w.family('samsa_remote_fetch_throttled_total', 'counter', 'Samsa only: remote reads a Fetch skipped (answered empty) because remote.log.manager.fetch.max.bytes.per.second was used up.').sample([], m.fetchThrottled);
  w.family('samsa_remote_fetch_cache_bytes', 'gauge', 'Samsa only: memory held by cached remote chunks and indexes (samsa.remote.fetch.cache.bytes bounds it).').sample([], tiered.reader.cacheSizeBytes);
}

/** The whole exposition text. */
export async function renderMetrics(broker: HttpBroker): Promise<string> {
  const w = new ExpositionWriter();
  topicMetrics(w, broker);
  requestMetrics(w, broker);
  partitionMetrics(w, broker);
  remoteStorageMetrics(w, broker);
  clusterMetrics(w, broker);
  socketMetrics(w, broker);
  await groupMetrics(w, broker);
  processMetrics(w, broker);
  return w.text();
}

export async function serveMetrics(broker: HttpBroker, res: ServerResponse, head: boolean): Promise<void> {
  const text = await renderMetrics(broker);
  send(res, 200, CONTENT_TYPE, head ? '' : text);
}
