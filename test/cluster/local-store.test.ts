/**
 * The local metadata store: one node as a cluster of one, through the same lifecycle, controller
 * and cache code as a cluster; today's samsa-metadata.json (version 1) is read as it is.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { KafkaApiError } from '../../src/errors.js';
import { DuplicateBrokerRegistrationError } from '../../src/cluster/metadata-store.js';
import { LocalMetadataStore } from '../../src/cluster/local-metadata-store.js';
import { ClusterMember, clusterSettings } from '../../src/cluster/cluster-member.js';
import { loadConfig } from '../../src/config.js';
import { BrokerLifecycleManager } from '../../src/cluster/broker-lifecycle.js';
import { tmpDir } from '../support/tmp.js';
import { endpointOf, freshPrefix, logger, settings } from '../support/cluster-members.js';

test('a single broker on the local store registers, is its own controller, and creates topics', async () => {
  const dir = tmpDir('local-store');
  const member = await ClusterMember.start({ settings: settings(null, freshPrefix('x'), 1), endpoints: endpointOf(1), localDir: dir.path, logger });
  try {
    await member.metadataCache.waitFor((c) => c.controller?.nodeId === 1 && member.controller.isActive, 2000, 'controller');
    assert.equal([...member.metadataCache.brokers.keys()], [1]);
    const { topic, partitions } = await member.controller.createTopic({ name: 'solo', numPartitions: 2, replicationFactor: -1 });
    assert.equal(partitions.map((p) => [p.replicas, p.isr, p.leader]), [[[1], [1], 1], [[1], [1], 1]]);
    await member.metadataCache.waitFor((c) => c.partitionsOf(topic.topicId).length === 2, 2000, 'topic in cache');
    let code: number | null = null;
    await member.controller.createTopic({ name: 'wide', numPartitions: 1, replicationFactor: 2 }).catch((e: KafkaApiError) => (code = e.errorCode));
    assert.is(code, ErrorCode.INVALID_REPLICATION_FACTOR);
    const second = member.store;
    let dup: unknown = null;
    await BrokerLifecycleManager.start({ store: second, nodeId: 1, rack: null, endpoints: [], sessionTimeoutMs: 1000, heartbeatIntervalMs: 200 }).catch((e) => (dup = e));
    assert.ok(dup instanceof DuplicateBrokerRegistrationError);
    const block = await member.store.allocateProducerIds(1, member.lifecycle.fence);
    assert.is(block.firstProducerId, 0n);
    await member.stop();

    // Reopened from the file: topics, partition states, cluster id and producer ids survive.
    const again = new LocalMetadataStore(dir.path, 1);
    const image = await again.readImage();
    assert.is(image.clusterId, member.clusterId);
    assert.equal(image.partitions.get(topic.topicId)?.get(1), partitions[1]);
    assert.is(image.brokers.size, 0, 'registrations are not persisted');
    assert.is((await again.allocateProducerIds(1)).firstProducerId, 1000n);
  } finally {
    await dir.cleanup();
  }
});

test('a version-1 samsa-metadata.json is read: partitions led by this node at epoch 0', async () => {
  const dir = tmpDir('local-v1');
  try {
    writeFileSync(join(dir.path, 'samsa-metadata.json'), JSON.stringify({
      version: 1,
      clusterId: 'MkU3OEVBNTcwNTJENDM2Qk',
      topics: [{ name: 'old', topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitions: 2, replicationFactor: 1, configs: { 'retention.ms': '1000' }, isInternal: false }],
    }));
    const store = new LocalMetadataStore(dir.path, 7);
    const image = await store.readImage();
    assert.is(image.clusterId, 'MkU3OEVBNTcwNTJENDM2Qk');
    assert.equal(image.topics.get('old')?.configs, { 'retention.ms': '1000' });
    assert.equal(image.partitions.get('AAAAAAAAAAAAAAAAAAAAAQ')?.get(1), {
      topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partition: 1, replicas: [7], isr: [7], leader: 7, leaderEpoch: 0, partitionEpoch: 0,
    });
    // The first change writes version 2.
    const p0 = image.partitions.get('AAAAAAAAAAAAAAAAAAAAAQ')?.get(0);
    const out = await store.alterPartition({ ...p0!, partitionEpoch: 1 }, 0);
    assert.ok(out.ok);
    const stale = await store.alterPartition({ ...p0!, partitionEpoch: 1 }, 0);
    assert.is(stale.ok ? 0 : stale.error, ErrorCode.INVALID_UPDATE_VERSION);
    assert.is(JSON.parse(readFileSync(join(dir.path, 'samsa-metadata.json'), 'utf8')).version, 2);
  } finally {
    await dir.cleanup();
  }
});

test('cluster settings use Kafka\'s names and the KAFKA_* environment', () => {
  const defaults = clusterSettings(loadConfig());
  assert.equal(defaults.etcdEndpoints, [], 'no etcd: one node on the local store');
  assert.equal([defaults.etcdConnectTimeoutMs, defaults.sessionTimeoutMs, defaults.heartbeatIntervalMs, defaults.etcdKeyPrefix], [30000, 9000, 2000, '/samsa/']);
  assert.equal(defaults.controller, { defaultReplicationFactor: 1, defaultNumPartitions: 1, uncleanLeaderElectionEnable: false, minInsyncReplicas: 1, autoLeaderRebalanceEnable: true, leaderImbalanceCheckIntervalMs: 300_000 });
  const s = clusterSettings(loadConfig({
    env: {
      KAFKA_SAMSA_ETCD_ENDPOINTS: 'http://127.0.0.1:2379,http://127.0.0.1:2479',
      KAFKA_SAMSA_ETCD_CONNECT_TIMEOUT_MS: '1500',
      KAFKA_NODE_ID: '3',
      KAFKA_BROKER_RACK: 'eu-1a',
      KAFKA_UNCLEAN_LEADER_ELECTION_ENABLE: 'true',
      KAFKA_DEFAULT_REPLICATION_FACTOR: '3',
      KAFKA_MIN_INSYNC_REPLICAS: '2',
      KAFKA_AUTO_LEADER_REBALANCE_ENABLE: 'false',
      KAFKA_LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS: '30',
    },
  }));
  assert.equal(s.etcdEndpoints, ['http://127.0.0.1:2379', 'http://127.0.0.1:2479']);
  assert.equal([s.etcdConnectTimeoutMs, s.nodeId, s.rack], [1500, 3, 'eu-1a']);
  assert.equal(s.controller, { defaultReplicationFactor: 3, defaultNumPartitions: 1, uncleanLeaderElectionEnable: true, minInsyncReplicas: 2, autoLeaderRebalanceEnable: false, leaderImbalanceCheckIntervalMs: 30_000 });
});

test.run();
