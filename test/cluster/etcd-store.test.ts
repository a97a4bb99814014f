/**
 * The etcd metadata store and broker lifecycle against a real etcd: registration and duplicate
 * node.id, losing the lease, the partition-epoch compare-and-set, fences, the metadata cache, and
 * start-up against an unreachable etcd.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { KafkaApiError } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';
import { EtcdMetadataStore } from '../../src/cluster/etcd-metadata-store.js';
import { EtcdUnreachableError, createEtcdClient } from '../../src/cluster/etcd-client.js';
import { BrokerLifecycleManager } from '../../src/cluster/broker-lifecycle.js';
import { MetadataCache } from '../../src/cluster/metadata-cache.js';
import { DuplicateBrokerRegistrationError, type PartitionState, type TopicRecord } from '../../src/cluster/metadata-store.js';
import { ClusterMember } from '../../src/cluster/cluster-member.js';
import { etcdOrSkip, type EtcdServer } from '../support/etcd.js';
import { freePort } from '../support/net.js';
import { startFaultProxy } from '../support/fault-proxy.js';
import { endpointOf, freshPrefix, logger, settings } from '../support/cluster-members.js';

const etcd = (await etcdOrSkip('test/cluster/etcd-store')) as EtcdServer;
if (!etcd) process.exit(0);

async function open(prefix: string): Promise<EtcdMetadataStore> {
  return EtcdMetadataStore.connect({ endpoints: [etcd.clientUrl], prefix, connectTimeoutMs: 5000, logger });
}

function lifecycle(store: EtcdMetadataStore, nodeId: number, extra: { registrationRetryMs?: number; rack?: string } = {}) {
  return BrokerLifecycleManager.start({
    store, nodeId, rack: extra.rack ?? null, endpoints: endpointOf(nodeId),
    sessionTimeoutMs: 1000, heartbeatIntervalMs: 200, registrationRetryMs: extra.registrationRetryMs, logger,
  });
}

function topicWith(name: string, replicas: number[]): { topic: TopicRecord; partition: PartitionState } {
  const topicId = `id-${name}`;
  return {
    topic: { name, topicId, partitions: 1, replicationFactor: replicas.length, configs: {}, isInternal: false },
    partition: { topicId, partition: 0, replicas, isr: [...replicas], leader: replicas[0], leaderEpoch: 0, partitionEpoch: 0 },
  };
}

test('registration: brokers/<node.id> on a lease with endpoints, rack and incarnation; a live node.id is refused', async () => {
  const prefix = freshPrefix('register');
  const store = await open(prefix);
  const other = await open(prefix);
  try {
    const b1 = await lifecycle(store, 1, { rack: 'r1' });
    const image = await other.readImage();
    const reg = image.brokers.get(1);
    assert.ok(reg, 'registered');
    assert.equal(reg!.endpoints, endpointOf(1));
    assert.is(reg!.rack, 'r1');
    assert.is(reg!.incarnationId, b1.incarnationId);
    assert.is(reg!.brokerEpoch, b1.brokerEpoch);
    assert.ok(b1.brokerEpoch > 0);

    let err: unknown = null;
    const t0 = Date.now();
    await lifecycle(other, 1, { registrationRetryMs: 300 }).catch((e) => (err = e));
    assert.ok(err instanceof DuplicateBrokerRegistrationError, `refused: ${err}`);
    assert.is((err as KafkaApiError).errorCode, ErrorCode.DUPLICATE_BROKER_REGISTRATION);
    assert.match((err as Error).message, `node.id 1 is already registered by a live broker (incarnation ${b1.incarnationId}`);
    assert.ok(Date.now() - t0 >= 300, 'retried for registrationRetryMs while the holder stayed alive');
    // The refused attempt left the holder alone.
    assert.is((await other.readImage()).brokers.get(1)?.incarnationId, b1.incarnationId);

    // A crash (no more heartbeats): the lease runs out and a new incarnation may register,
    // with a higher broker epoch.
    b1.abandon();
    const b1again = await lifecycle(other, 1, { registrationRetryMs: 5000 });
    assert.ok(b1again.brokerEpoch > b1.brokerEpoch);
    assert.is.not(b1again.incarnationId, b1.incarnationId);
    await b1again.shutdown();
    assert.is((await other.readImage()).brokers.has(1), false, 'controlled shutdown deregisters');
  } finally {
    await store.close();
    await other.close();
  }
});

test('a registration that waited a whole session for the previous incarnation\'s lease stays registered (its validity counts from the last acknowledged keep-alive)', async () => {
  const prefix = freshPrefix('waited');
  const store = await open(prefix);
  try {
    const old = await lifecycle(store, 4);
    old.abandon();
    const t0 = Date.now();
    const again = await lifecycle(store, 4, { registrationRetryMs: 5000 });
    const waited = Date.now() - t0;
    let lost: Error | null = null;
    again.on('lost', (e) => (lost = e));
    // Before the fix its session counted from the grant, so it was declared lost right after
    // registering (when it waited about a session) and the broker looped re-registering.
    const until = Date.now() + 2500;
    while (Date.now() < until && !lost) await new Promise((r) => setTimeout(r, 50));
    assert.is(lost, null, `lost after waiting ${waited} ms: ${lost}`);
    assert.is(again.state, 'registered');
    assert.ok(waited >= 500, `waited ${waited} ms for the old lease`);
    await again.shutdown();
  } finally {
    await store.close();
  }
});

test('lease loss is reported: revoked lease, and etcd paused for longer than the session', async () => {
  const prefix = freshPrefix('lost');
  const store = await open(prefix);
  try {
    const b = await lifecycle(store, 2);
    const lost = new Promise<Error>((resolve) => b.on('lost', resolve));
    await b.session.revoke();
    const reason = await lost;
    assert.match(reason.message, 'expired');
    assert.is(b.state, 'lost');

    const c = await lifecycle(store, 3);
    const lost2 = new Promise<Error>((resolve) => c.on('lost', resolve));
    const t0 = Date.now();
    etcd.pause();
    let reason2: Error;
    try {
      reason2 = await lost2;
    } finally {
      etcd.resume();
    }
    const took = Date.now() - t0;
    assert.match(reason2.message, 'no heartbeat acknowledged');
    // About one session timeout after the last acknowledged heartbeat (1 s), not etcd3's 2 x TTL
    // or never: slack for a loaded machine.
    assert.ok(took <= 2500, `reported after ${took} ms`);
  } finally {
    await store.close();
  }
});

test('partition state: compare-and-set on the partition epoch; a stale change fails and returns the current state', async () => {
  const prefix = freshPrefix('cas');
  const store = await open(prefix);
  try {
    const { topic, partition } = topicWith('cas', [1, 2, 3]);
    await store.createTopic(topic, [partition]);
    const shrink = { ...partition, isr: [1, 2], partitionEpoch: 1 };
    const other = { ...partition, isr: [1, 3], partitionEpoch: 1 };
    // Two writers based on the same epoch 0: exactly one wins.
    const [a, b] = await Promise.all([store.alterPartition(shrink, 0), store.alterPartition(other, 0)]);
    assert.is([a, b].filter((o) => o.ok).length, 1);
    const loser = a.ok ? b : a;
    assert.is(loser.ok, false);
    if (!loser.ok) {
      assert.is(loser.error, ErrorCode.INVALID_UPDATE_VERSION);
      assert.is(loser.current?.partitionEpoch, 1);
    }
    const stored = (await store.readImage()).partitions.get(topic.topicId)?.get(0);
    assert.equal(stored, a.ok ? shrink : other);
    // The epoch must go up by exactly one.
    let threw = false;
    await store.alterPartition({ ...partition, partitionEpoch: 5 }, 1).catch(() => (threw = true));
    assert.ok(threw);
    const missing = await store.alterPartition({ ...partition, topicId: 'nope', partitionEpoch: 1 }, 0);
    assert.equal(missing, { ok: false, error: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, current: null });
  } finally {
    await store.close();
  }
});

test('fences: a broker epoch or controller epoch that is no longer current cannot write', async () => {
  const prefix = freshPrefix('fence');
  const store = await open(prefix);
  try {
    const b = await lifecycle(store, 1);
    const claim = await store.tryClaimController(1, b.incarnationId, b.session);
    assert.ok(claim);
    assert.is(await store.tryClaimController(2, 'x', b.session), null, 'one controller at a time');
    const { topic, partition } = topicWith('fence', [1, 2]);
    await store.createTopic(topic, [partition], { controllerEpoch: claim!.controllerEpoch });
    let code: number | null = null;
    await store.createTopic(topicWith('fence2', [1]).topic, [], { controllerEpoch: claim!.controllerEpoch - 1 }).catch((e: KafkaApiError) => (code = e.errorCode));
    assert.is(code, ErrorCode.NOT_CONTROLLER);
    code = null;
    await store.createTopic(topic, [partition]).catch((e: KafkaApiError) => (code = e.errorCode));
    assert.is(code, ErrorCode.TOPIC_ALREADY_EXISTS);

    const stale = await store.alterPartition({ ...partition, isr: [1], partitionEpoch: 1 }, 0, { nodeId: 1, brokerEpoch: b.brokerEpoch - 1 });
    assert.is(stale.ok, false);
    if (!stale.ok) assert.is(stale.error, ErrorCode.STALE_BROKER_EPOCH);
    const ok = await store.alterPartition({ ...partition, isr: [1], partitionEpoch: 1 }, 0, b.fence);
    assert.ok(ok.ok);
    const notController = await store.alterPartition({ ...partition, isr: [1, 2], partitionEpoch: 2 }, 1, { controllerEpoch: claim!.controllerEpoch + 1 });
    assert.is(notController.ok ? 0 : notController.error, ErrorCode.NOT_CONTROLLER);

    // Producer-id blocks are handed out once each, in order.
    const blocks = await Promise.all([store.allocateProducerIds(1, b.fence), store.allocateProducerIds(1, b.fence), store.allocateProducerIds(1)]);
    assert.equal(blocks.map((x) => x.firstProducerId).sort((x, y) => Number(x - y)), [0n, 1000n, 2000n]);
  } finally {
    await store.close();
  }
});

test('watch: a re-established stream resumes after the last delivered event, not after the revision its creation answer names', async () => {
  const prefix = freshPrefix('resume');
  const store = await open(prefix);
  const writer = await open(prefix);
  try {
    const from = (await store.readImage()).revision + 1;
    const seen: number[] = [];
    const handle = await store.watch(from, (events) => seen.push(...events.map((e) => e.revision)), () => {});
    assert.is(handle.resumeRevision(), from);
    const { topic, partition } = topicWith('resume', [1]);
    await writer.createTopic(topic, [partition]);
    const deadline = Date.now() + 5000;
    while (seen.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const last = Math.max(...seen);
    assert.ok(last >= from, 'the event was delivered');
    assert.is(handle.resumeRevision(), last + 1);
    // etcd3 moves the resume point to the creation answer's revision when the stream comes back;
    // events after `last` that were sent after that answer would then be skipped.
    handle.watcher.emit('connected', { header: { revision: String(last + 50) }, watch_id: '0', created: true, events: [] });
    assert.is(handle.resumeRevision(), last + 1, 'resumes from the last delivered event');
    await handle.cancel();
  } finally {
    await store.close();
    await writer.close();
  }
});

test('metadata cache: a watch resumed at a compacted revision (away while etcd compacted) reads everything again and follows on', async () => {
  const prefix = freshPrefix('compacted');
  const proxy = await startFaultProxy({ targetPort: etcd.clientPort });
  const store = await EtcdMetadataStore.connect({ endpoints: [`http://${proxy.address}`], prefix, connectTimeoutMs: 5000, logger });
  const writer = await open(prefix);
  const direct = createEtcdClient([etcd.clientUrl]);
  const cache = await MetadataCache.start(store, logger);
  const topic = (name: string) => topicWith(name, [1]);
  try {
    await writer.createTopic(topic('before').topic, [topic('before').partition]);
    await cache.waitFor((c) => c.topic('before') !== undefined, 5000, 'before');
    proxy.cut();
    // While the cache is away: a change, then the history compacted past it.
    await writer.createTopic(topic('during').topic, [topic('during').partition]);
    // A write elsewhere, so that the compaction revision lies past every event the cache missed.
    const rev = (await direct.put('samsa-compact-probe').value('x').exec()).header.revision;
    await direct.kv.compact({ revision: rev, physical: true });
    proxy.heal();
    await cache.waitFor((c) => c.topic('during') !== undefined, 15_000, 'the change made while away');
    await writer.createTopic(topic('after').topic, [topic('after').partition]);
    await cache.waitFor((c) => c.topic('after') !== undefined, 15_000, 'a change after the re-read');
  } finally {
    await cache.close();
    await store.close();
    await writer.close();
    direct.close();
    await proxy.close();
  }
});

test('metadata cache: follows every change under the prefix, hides partitions of uncommitted topics', async () => {
  const prefix = freshPrefix('cache');
  const store = await open(prefix);
  const writer = await open(prefix);
  const noise = await open(freshPrefix('other-cluster'));
  const cache = await MetadataCache.start(store, logger);
  try {
    const changes: string[] = [];
    cache.on('change', (c) => changes.push(...c.events.map((e) => e.kind)));
    assert.is(await writer.ensureClusterId('AAAAAAAAAAAAAAAAAAAAAQ'), 'AAAAAAAAAAAAAAAAAAAAAQ');
    assert.is(await writer.ensureClusterId('BBBBBBBBBBBBBBBBBBBBBQ'), 'AAAAAAAAAAAAAAAAAAAAAQ', 'first writer wins');
    const { topic, partition } = topicWith('c1', [1]);
    await noise.createTopic({ ...topic, name: 'elsewhere' }, [partition]);
    await writer.createTopic(topic, [partition]);
    await cache.waitFor((c) => c.partition(topic.topicId, 0) !== undefined, 3000, 'topic c1');
    assert.is(cache.clusterId, 'AAAAAAAAAAAAAAAAAAAAAQ');
    assert.is(cache.topic('elsewhere'), undefined, 'another prefix is another cluster');
    await writer.alterPartition({ ...partition, leader: -1, leaderEpoch: 1, partitionEpoch: 1 }, 0);
    await cache.waitFor((c) => c.partition(topic.topicId, 0)?.leader === -1, 3000, 'leader -1');
    await writer.alterTopicConfigs('c1', { 'min.insync.replicas': '2' });
    await cache.waitFor((c) => c.topic('c1')?.configs['min.insync.replicas'] === '2', 3000, 'config');
    await writer.deleteTopic('c1');
    await cache.waitFor((c) => !c.topic('c1') && c.partitionsOf(topic.topicId).length === 0, 3000, 'deleted');
    assert.ok(changes.includes('topic') && changes.includes('partition') && changes.includes('cluster'), `events ${changes}`);
    // A big topic goes in several transactions but appears whole.
    const big: TopicRecord = { ...topic, name: 'big', topicId: 'id-big', partitions: 250 };
    const parts = Array.from({ length: 250 }, (_, i) => ({ ...partition, topicId: 'id-big', partition: i }));
    await writer.createTopic(big, parts);
    await cache.waitFor((c) => c.topic('big') !== undefined, 3000, 'big topic');
    assert.is(cache.partitionsOf('id-big').length, 250);
    await writer.createPartitions('big', 250, [{ ...partition, topicId: 'id-big', partition: 250 }]);
    await cache.waitFor((c) => c.partitionsOf('id-big').length === 251 && c.topic('big')?.partitions === 251, 3000, '251 partitions');
  } finally {
    await cache.close();
    await Promise.all([store.close(), writer.close(), noise.close()]);
  }
});

test('group configs: groupConfigs/<URI-encoded group id>, followed by another store\'s cache, read back by a new store, removed when emptied', async () => {
  const prefix = freshPrefix('group-configs');
  const writer = await open(prefix);
  const reader = await open(prefix);
  const cache = await MetadataCache.start(reader, logger);
  const group = 'team/a b%';
  try {
    await writer.alterGroupConfigs(group, { 'consumer.session.timeout.ms': '50000' });
    await cache.waitFor((c) => c.groupConfigs.get(group)?.['consumer.session.timeout.ms'] === '50000', 3000, 'group config set');
    const later = await open(prefix);
    assert.equal((await later.readImage()).groupConfigs.get(group), { 'consumer.session.timeout.ms': '50000' });
    await later.close();
    await writer.alterGroupConfigs(group, {});
    await cache.waitFor((c) => !c.groupConfigs.has(group), 3000, 'group config removed');
    assert.is((await writer.readImage()).groupConfigs.size, 0);
  } finally {
    await cache.close();
    await Promise.all([writer.close(), reader.close()]);
  }
});

test('delegation tokens: delegationTokens/<id>, read on demand by any store, compare-and-set on the mod revision, fenced', async () => {
  const prefix = freshPrefix('delegation-tokens');
  const store = await open(prefix);
  const other = await open(prefix);
  const token = (expirationTimestamp: number) => ({
    tokenId: 'tok/en 1', owner: { principalType: 'User', name: 'alice' }, tokenRequester: { principalType: 'User', name: 'alice' },
    renewers: [{ principalType: 'User', name: 'bob' }], issueTimestamp: 1, maxTimestamp: 100, expirationTimestamp, scramCredentials: [],
  });
  try {
    const b = await lifecycle(store, 1);
    assert.ok(await store.writeDelegationToken('tok/en 1', token(10), 0, b.fence), 'created');
    assert.not.ok(await other.writeDelegationToken('tok/en 1', token(11), 0), 'version 0: must not exist');
    const read = await other.readDelegationToken('tok/en 1');
    assert.equal(read?.token, token(10), 'another store reads it');
    assert.ok(await other.writeDelegationToken('tok/en 1', token(20), read!.version), 'replaced at the version read');
    assert.not.ok(await store.writeDelegationToken('tok/en 1', null, read!.version), 'a stale version changes nothing');
    const listed = await store.listDelegationTokens();
    assert.equal(listed.map((t) => [t.token.expirationTimestamp, t.version > read!.version]), [[20, true]]);
    let code: number | null = null;
    await store.writeDelegationToken('tok/en 1', null, listed[0]!.version, { nodeId: 1, brokerEpoch: b.brokerEpoch - 1 }).catch((e: KafkaApiError) => (code = e.errorCode));
    assert.is(code, ErrorCode.STALE_BROKER_EPOCH, 'a stale broker epoch cannot write');
    assert.ok(await store.writeDelegationToken('tok/en 1', null, listed[0]!.version, b.fence), 'removed');
    assert.equal([await other.readDelegationToken('tok/en 1'), await other.listDelegationTokens()], [null, []]);
    assert.equal((await other.readImage()).topics.size, 0, 'tokens are not part of the watched image');
  } finally {
    await Promise.all([store.close(), other.close()]);
  }
});

test('finalized features: features/<name> written with the cluster id at format and by alterFeatures, followed by another store\'s cache, level 0 removes', async () => {
  const prefix = freshPrefix('features');
  const writer = await open(prefix);
  const reader = await open(prefix);
  try {
    await writer.ensureClusterId('features-cluster', undefined, new Map([['group.version', 1], ['transaction.version', 0]]));
    const cache = await MetadataCache.start(reader, logger);
    try {
      assert.equal([...cache.features], [['group.version', 1]]);
      await writer.alterFeatures(new Map([['transaction.version', 2], ['group.version', 0]]));
      await cache.waitFor((c) => c.features.get('transaction.version') === 2 && !c.features.has('group.version'), 3000, 'features changed');
      const later = await open(prefix);
      assert.equal([...(await later.readImage()).features], [['transaction.version', 2]]);
      await later.close();
    } finally {
      await cache.close();
    }
  } finally {
    await Promise.all([writer.close(), reader.close()]);
  }
});

test('etcd unreachable at start-up: retries naming the endpoint, then a clear error after samsa.etcd.connect.timeout.ms', async () => {
  const port = await freePort();
  const lines: string[] = [];
  const logger = createLogger('warn', (l) => lines.push(l));
  const t0 = Date.now();
  let err: unknown = null;
  await ClusterMember.start({
    settings: settings(null, freshPrefix('unreachable'), 1, { etcdEndpoints: [`http://127.0.0.1:${port}`], etcdConnectTimeoutMs: 1500 }),
    endpoints: endpointOf(1),
    logger: logger,
  }).catch((e) => (err = e));
  const took = Date.now() - t0;
  assert.ok(err instanceof EtcdUnreachableError, `error: ${err}`);
  assert.match((err as Error).message, `could not reach etcd at http://127.0.0.1:${port} within 1500 ms (samsa.etcd.connect.timeout.ms)`);
  assert.ok(took >= 1500 && took < 4000, `gave up after ${took} ms`);
  const retries = lines.filter((l) => l.includes(`etcd at http://127.0.0.1:${port} not reachable`) && l.includes('retrying'));
  assert.ok(retries.length >= 2, `retry lines: ${lines.join('\n')}`);
});

test('etcd that comes up during the connect timeout is joined', async () => {
  await etcd.kill();
  const lines: string[] = [];
  const logger = createLogger('warn', (l) => lines.push(l));
  // Settled into a value at once, so an early failure is an assertion below, not an unhandled rejection.
  const starting = EtcdMetadataStore.connect({ endpoints: [etcd.clientUrl], prefix: freshPrefix('late'), connectTimeoutMs: 15_000, logger: logger })
    .then((s) => s, (e: Error) => e);
  const deadline = Date.now() + 5000;
  while (!lines.some((l) => l.includes('not reachable')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.ok(lines.length > 0, 'a retry was logged while etcd was down');
  await etcd.start();
  const store = await starting;
  if (store instanceof Error) throw store;
  try {
    assert.is(await store.ensureClusterId('AAAAAAAAAAAAAAAAAAAAAQ'), 'AAAAAAAAAAAAAAAAAAAAAQ');
  } finally {
    await store.close();
  }
});

test.after(async () => {
  await etcd.cleanup();
});

test.run();
