/**
 * The metadata store on etcd. One cluster keeps all its keys under one prefix
 * (samsa.etcd.key.prefix, default `/samsa/`):
 *
 *   cluster/id                    the cluster id (first writer wins)
 *   brokers/<node.id>             BrokerRegistration JSON, bound to the broker's lease
 *   brokerEpochs/<node.id>        written (empty, no lease) by each registration in the same
 *                                 transaction: its mod revision is the broker's last epoch, kept
 *                                 after the registration ends (KIP-966's clean-shutdown check)
 *   controller                    ControllerRegistration JSON, bound to the controller's lease
 *   topics/<name>                 TopicRecord JSON
 *   partitions/<topicId>/<index>  PartitionState JSON
 *   producer-ids/block            the next producer-id block (ProducerIdsRecord)
 *   acls/<id>                     one ACL (AclBinding JSON; Kafka's AccessControlEntryRecord)
 *   quotas/<entity key>           one client-quota entity's quotas (URI-encoded quotaEntityKey)
 *   brokerConfigs/<id|<default>>  one broker's (or the cluster default's) dynamic configs (name → value JSON)
 *   groupConfigs/<group id>       one group's config overrides (URI-encoded group id; name → value JSON)
 *   features/<name>               one finalized feature level (FeatureLevelRecord; the level as text, absent = 0)
 *   scram/<mechanism>/<user>      one SCRAM credential (UserScramCredentialRecord; read on demand, not watched)
 *   delegationTokens/<token id>   one delegation token (DelegationTokenRecord JSON; read on demand, not watched;
 *                                 its mod revision is the version compare-and-set names)
 *
 * Epochs come from etcd itself: a broker epoch is the create revision of its `brokers/<id>` key,
 * the controller epoch the create revision of `controller`. A fence is a comparison on that create
 * revision inside the writing transaction, so a writer whose lease expired (its key is gone, or was
 * re-created by a newer incarnation) fails atomically instead of writing.
 *
 * Partition epochs map onto etcd's per-key version: a partition key is written once at creation
 * (version 1, partitionEpoch 0) and afterwards only by `alterPartition`, which requires
 * partitionEpoch + 1 and compares `version == expected + 1`. The compare-and-set therefore compares
 * the partition epoch itself, with no separate read.
 *
 * Topic creation writes the partition keys and then the topic key; the topic key is the commit
 * point (readers ignore partitions of topics they do not know). Small topics go in one transaction;
 * a topic with more partitions than etcd accepts operations per transaction (--max-txn-ops, 128 by
 * default) writes its partition keys in batches first, under the new topic id nobody references yet.
 */
import { EtcdLeaseInvalidError, type Etcd3, type IKeyValue, type Namespace, type IResponseOp, type ComparatorBuilder } from 'etcd3';
import { KafkaApiError } from '../errors.js';
import type { ScramCredentialChange, ScramCredentialRecord, ScramMechanismName } from './scram-credentials.js';
import type { DelegationTokenRecord, StoredDelegationToken } from './delegation-tokens.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { Logger } from '../logger.js';
import { connectEtcd } from './etcd-client.js';
import {
  applyEvent, checkNextPartitionState, DEFAULT_BROKER_CONFIGS, clonePartitionState, DuplicateBrokerRegistrationError, fenceError, PRODUCER_ID_BLOCK_SIZE,
  SessionExpiredError,
  type AlterPartitionOutcome, type BrokerRegistration, type ControllerRegistration, type Fence, type MetadataEvent,
  type MetadataImage, type MetadataSession, type MetadataStore, type MetadataWatch, type PartitionState,
  type ProducerIdBlock, type TopicRecord, type ClientQuotaRecord,
} from './metadata-store.js';
import type { AclBinding } from '../protocol/acl.js';

/** Below etcd's default --max-txn-ops (128), leaving room for compares and the topic key. */
const MAX_OPS_PER_TXN = 100;

const K = {
  clusterId: 'cluster/id',
  broker: (id: number) => `brokers/${id}`,
  lastBrokerEpoch: (id: number) => `brokerEpochs/${id}`,
  controller: 'controller',
  topic: (name: string) => `topics/${name}`,
  partition: (topicId: string, p: number) => `partitions/${topicId}/${p}`,
  partitionsOf: (topicId: string) => `partitions/${topicId}/`,
  producerIds: 'producer-ids/block',
  acl: (id: string) => `acls/${id}`,
  quota: (key: string) => `quotas/${encodeURIComponent(key)}`,
  brokerConfigs: (key: string) => `brokerConfigs/${key}`,
  groupConfigs: (groupId: string) => `groupConfigs/${encodeURIComponent(groupId)}`,
  feature: (name: string) => `features/${name}`,
  delegationToken: (tokenId: string) => `delegationTokens/${encodeURIComponent(tokenId)}`,
  delegationTokens: 'delegationTokens/',
};

export interface EtcdMetadataStoreOptions {
  endpoints: string[];
  /** samsa.etcd.key.prefix; a trailing '/' is added when missing. */
  prefix: string;
  connectTimeoutMs: number;
  requestTimeoutMs?: number;
  logger?: Logger;
}

type Decoded = MetadataEvent | null;

/** Maps one key/value (key relative to the prefix) to an event; unknown keys give null. */
function decode(kv: IKeyValue, deleted: boolean): Decoded {
  const key = kv.key.toString('utf8');
  const revision = Number(kv.mod_revision);
  const json = () => JSON.parse(kv.value.toString('utf8'));
  if (key === K.clusterId) return deleted ? null : { kind: 'cluster', revision, clusterId: kv.value.toString('utf8') };
  if (key === K.controller) {
    return { kind: 'controller', revision, value: deleted ? null : { ...json(), controllerEpoch: Number(kv.create_revision) } };
  }
  let m = /^brokers\/(\d+)$/.exec(key);
  if (m) {
    const nodeId = Number(m[1]);
    return { kind: 'broker', revision, nodeId, value: deleted ? null : { ...json(), nodeId, brokerEpoch: Number(kv.create_revision) } };
  }
  m = /^topics\/(.+)$/.exec(key);
  if (m) return { kind: 'topic', revision, name: m[1], value: deleted ? null : json() };
  m = /^partitions\/([^/]+)\/(\d+)$/.exec(key);
  if (m) return { kind: 'partition', revision, topicId: m[1], partition: Number(m[2]), value: deleted ? null : json() };
  m = /^acls\/(.+)$/.exec(key);
  if (m) return { kind: 'acl', revision, id: m[1], value: deleted ? null : json() };
  m = /^quotas\/(.+)$/.exec(key);
  if (m) return { kind: 'quota', revision, key: decodeURIComponent(m[1]), value: deleted ? null : json() };
  m = /^brokerConfigs\/(.+)$/.exec(key);
  if (m) return { kind: 'brokerConfig', revision, key: m[1], value: deleted ? null : json() };
  m = /^groupConfigs\/(.+)$/.exec(key);
  if (m) return { kind: 'groupConfig', revision, groupId: decodeURIComponent(m[1]), value: deleted ? null : json() };
  m = /^features\/(.+)$/.exec(key);
  if (m) return { kind: 'feature', revision, name: m[1], level: deleted ? null : Number(kv.value.toString('utf8')) || null };
  return null;
}

function storedToken(kv: IKeyValue): StoredDelegationToken {
  return { token: JSON.parse(kv.value.toString('utf8')) as DelegationTokenRecord, version: Number(kv.mod_revision) };
}

/** The etcd store's watch: also where a re-established stream resumes (for tests and diagnostics). */
/** How long cancelling a watch waits for etcd's answer. */
const WATCH_CANCEL_TIMEOUT_MS = 1000;

export interface EtcdMetadataWatch extends MetadataWatch {
  /** The revision a re-established stream asks for first. */
  resumeRevision(): number;
  /** The etcd3 watcher underneath (tests simulate its events). */
  readonly watcher: import('node:events').EventEmitter;
}

export class EtcdMetadataStore implements MetadataStore {
  readonly kind = 'etcd' as const;
  readonly description: string;
  private readonly ns: Namespace;

  private constructor(private readonly client: Etcd3, readonly endpoints: string[], readonly prefix: string, private readonly logger?: Logger) {
    this.ns = client.namespace(prefix);
    this.description = `etcd ${endpoints.join(',')} under ${prefix}`;
  }

  /** Connects (retrying until connectTimeoutMs, see etcd-client.ts). */
  static async connect(opts: EtcdMetadataStoreOptions): Promise<EtcdMetadataStore> {
    const prefix = opts.prefix.endsWith('/') ? opts.prefix : `${opts.prefix}/`;
    const client = await connectEtcd(opts);
    return new EtcdMetadataStore(client, opts.endpoints, prefix, opts.logger);
  }

  /** A transaction whose first compare is `first`; the namespace prefixes every key. */
  private txn(key: string, target: 'Create' | 'Mod' | 'Version' | 'Value', cmp: '==' | '!=' | '>' | '<', value: string | number): ComparatorBuilder {
    return this.ns.if(key, target, cmp, value);
  }

  private withFence(b: ComparatorBuilder, fence?: Fence): ComparatorBuilder {
    if (!fence) return b;
    return 'controllerEpoch' in fence
      ? b.and(K.controller, 'Create', '==', fence.controllerEpoch)
      : b.and(K.broker(fence.nodeId), 'Create', '==', fence.brokerEpoch);
  }

  /** After a failed fenced transaction: throws the fence's error if that is what failed. */
  private async throwIfFenced(fence?: Fence): Promise<void> {
    if (!fence) return;
    const key = 'controllerEpoch' in fence ? K.controller : K.broker(fence.nodeId);
    const want = 'controllerEpoch' in fence ? fence.controllerEpoch : fence.brokerEpoch;
    const res = await this.ns.get(key).exec();
    const kv = res.kvs[0];
    if (!kv || Number(kv.create_revision) !== want) throw fenceError(fence);
  }

  async ensureClusterId(proposed: string, bootstrapDefaults?: Readonly<Record<string, string>>, bootstrapFeatures?: ReadonlyMap<string, number>): Promise<string> {
    const create = [this.ns.put(K.clusterId).value(proposed)];
    // Kafka's format-time cluster defaults, written with the cluster id by the broker that creates it.
    if (bootstrapDefaults && Object.keys(bootstrapDefaults).length > 0) {
      create.push(this.ns.put(K.brokerConfigs(DEFAULT_BROKER_CONFIGS)).value(JSON.stringify(bootstrapDefaults)));
    }
    // The release's default feature levels, finalized by the broker that formats the cluster.
    for (const [name, level] of bootstrapFeatures ?? []) if (level > 0) create.push(this.ns.put(K.feature(name)).value(String(level)));
    const res = await this.txn(K.clusterId, 'Create', '==', 0)
      .then(...create)
      .else(this.ns.get(K.clusterId))
      .commit();
    if (res.succeeded) return proposed;
    return firstKv(res.responses[0])?.value.toString('utf8') ?? proposed;
  }

  async readImage(): Promise<MetadataImage> {
    const res = await this.ns.getAll().prefix('').exec();
    const image: MetadataImage = {
      revision: Number(res.header.revision),
      clusterId: null,
      brokers: new Map(),
      controller: null,
      topics: new Map(),
      partitions: new Map(),
      acls: new Map(),
      quotas: new Map(),
      brokerConfigs: new Map(),
      groupConfigs: new Map(),
      features: new Map(),
    };
    for (const kv of res.kvs) {
      const relative = { ...kv, key: this.unprefix(kv.key) };
      const ev = decode(relative, false);
      if (ev) applyEvent(image, ev);
    }
    return image;
  }

  private unprefix(key: Buffer): Buffer {
    const p = Buffer.from(this.prefix);
    return key.subarray(0, p.length).equals(p) ? key.subarray(p.length) : key;
  }

  async watch(fromRevision: number, onEvents: (events: MetadataEvent[]) => void, onError: (err: Error) => void): Promise<EtcdMetadataWatch> {
    const watcher = await this.ns.watch().prefix('').startRevision(String(fromRevision)).create();
    // etcd3 resumes a re-established watch from the revision after the last response header it
    // saw, and a watch's creation answer carries etcd's current revision: a stream that broke
    // between that answer and the catch-up events (a flapping link) would resume past them and the
    // cache would miss changes for good. So the resume point is put back, after etcd3's own
    // listeners (registered first) moved it, to the event after the last one delivered; events
    // delivered twice are dropped by the cache (at or below its revision).
    const request = (watcher as unknown as { request: { start_revision?: string } }).request;
    let next = fromRevision;
    const resumeFromDelivered = () => {
      request.start_revision = String(next);
    };
    watcher.on('data', (res) => {
      const events: MetadataEvent[] = [];
      for (const e of res.events) {
        next = Math.max(next, Number(e.kv.mod_revision) + 1);
        const ev = decode(e.kv, e.type === 'Delete');
        if (ev) events.push(ev);
      }
      resumeFromDelivered();
      if (events.length > 0) onEvents(events);
      this.logger?.debug(`etcd watch on ${this.description}: ${res.events.length} event(s) to revision ${res.header.revision}`);
    });
    watcher.on('connected', () => {
      resumeFromDelivered();
      this.logger?.debug(`etcd watch on ${this.description} connected (events from revision ${next})`);
    });
    // An 'error' is etcd cancelling the watch (e.g. its revision was compacted): etcd3 has dropped
    // it already, and cancelling it again would wait for an answer that never comes.
    let cancelled = false;
    watcher.on('error', (err) => {
      cancelled = true;
      onError(err);
    });
    watcher.on('disconnected', (err) => this.logger?.warn(`etcd watch on ${this.description} disconnected (${err.message}); reconnecting`));
    // etcd answers a cancel on the watch stream; one that is paused or cut off never does, and a
    // broker stopping must not wait for it (closing the client ends the stream anyway).
    const cancel = async () => {
      if (cancelled) return;
      cancelled = true;
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, WATCH_CANCEL_TIMEOUT_MS).unref();
      });
      await Promise.race([watcher.cancel().catch(() => undefined), gaveUp]);
      clearTimeout(timer);
    };
    return { cancel, resumeRevision: () => Number(request.start_revision), watcher };
  }

  async grantSession(ttlMs: number): Promise<MetadataSession> {
    const ttlS = Math.max(1, Math.ceil(ttlMs / 1000));
    const lease = this.client.lease(ttlS, { autoKeepAlive: false });
    lease.on('lost', () => {
      /* reported through keepAlive(); a listener keeps EventEmitter from treating it as unhandled */
    });
    const id = await lease.grant();
    return {
      id,
      ttlMs: ttlS * 1000,
      keepAlive: async (timeoutMs: number) => {
        try {
          await lease.keepaliveOnce({ deadline: Date.now() + timeoutMs });
        } catch (e) {
          if (e instanceof EtcdLeaseInvalidError) throw new SessionExpiredError(`etcd lease ${id} expired`);
          throw e;
        }
      },
      revoke: () => lease.revoke(),
    };
  }

  async registerBroker(reg: Omit<BrokerRegistration, 'brokerEpoch'>, session: MetadataSession): Promise<BrokerRegistration> {
    const key = K.broker(reg.nodeId);
    const res = await this.txn(key, 'Create', '==', 0)
      .then(this.ns.put(key).value(JSON.stringify(reg)).lease(session.id), this.ns.put(K.lastBrokerEpoch(reg.nodeId)).value(''))
      .else(this.ns.get(key))
      .commit();
    if (res.succeeded) return { ...reg, brokerEpoch: Number(res.header.revision) };
    const kv = firstKv(res.responses[0]);
    const holder: BrokerRegistration = kv
      ? { ...JSON.parse(kv.value.toString('utf8')), brokerEpoch: Number(kv.create_revision) }
      : { ...reg, incarnationId: 'unknown', brokerEpoch: -1 };
    throw new DuplicateBrokerRegistrationError(holder);
  }

  async lastBrokerEpoch(nodeId: number): Promise<number> {
    const res = await this.ns.get(K.lastBrokerEpoch(nodeId)).exec();
    const kv = res.kvs[0];
    return kv ? Number(kv.mod_revision) : -1;
  }

  async markControlledShutdown(reg: BrokerRegistration, session: MetadataSession): Promise<void> {
    const key = K.broker(reg.nodeId);
    const { brokerEpoch: _epoch, ...stored } = reg;
    await this.txn(key, 'Create', '==', reg.brokerEpoch)
      .then(this.ns.put(key).value(JSON.stringify({ ...stored, inControlledShutdown: true })).lease(session.id))
      .commit();
  }

  async updateBrokerRegistration(reg: BrokerRegistration, session: MetadataSession, changes: Partial<BrokerRegistration>): Promise<void> {
    const key = K.broker(reg.nodeId);
    const { brokerEpoch: _epoch, ...stored } = reg;
    await this.txn(key, 'Create', '==', reg.brokerEpoch)
      .then(this.ns.put(key).value(JSON.stringify({ ...stored, ...changes, brokerEpoch: undefined })).lease(session.id))
      .commit();
  }

  async unregisterBroker(nodeId: number, brokerEpoch: number): Promise<void> {
    const key = K.broker(nodeId);
    await this.txn(key, 'Create', '==', brokerEpoch).then(this.ns.delete().key(key)).commit();
  }

  async tryClaimController(nodeId: number, incarnationId: string, session: MetadataSession): Promise<ControllerRegistration | null> {
    const res = await this.txn(K.controller, 'Create', '==', 0)
      .then(this.ns.put(K.controller).value(JSON.stringify({ nodeId, incarnationId })).lease(session.id))
      .commit();
    return res.succeeded ? { nodeId, incarnationId, controllerEpoch: Number(res.header.revision) } : null;
  }

  /** SCRAM credentials live under `scram/<mechanism>/<user>` (not in the watched image). */
  async readScramCredential(user: string, mechanism: ScramMechanismName): Promise<ScramCredentialRecord | null> {
    const res = await this.ns.get(`scram/${mechanism}/${user}`).exec();
    const kv = res.kvs[0];
    return kv ? (JSON.parse(kv.value.toString('utf8')) as ScramCredentialRecord) : null;
  }

  async listScramCredentials(): Promise<ScramCredentialRecord[]> {
    const res = await this.ns.getAll().prefix('scram/').exec();
    return res.kvs.map((kv) => JSON.parse(kv.value.toString('utf8')) as ScramCredentialRecord);
  }

  async alterScramCredentials(changes: readonly ScramCredentialChange[], fence?: Fence): Promise<void> {
    const ops = changes.map((c) => c.kind === 'upsert'
      ? this.ns.put(`scram/${c.credential.mechanism}/${c.credential.user}`).value(JSON.stringify(c.credential))
      : this.ns.delete().key(`scram/${c.mechanism}/${c.user}`));
    if (ops.length === 0) return;
    const res = await this.withFence(this.txn(K.clusterId, 'Create', '>', -1), fence).then(...ops).commit();
    if (!res.succeeded) {
      await this.throwIfFenced(fence);
      throw new Error('SCRAM credential change was not applied');
    }
  }

  async readDelegationToken(tokenId: string): Promise<StoredDelegationToken | null> {
    const res = await this.ns.get(K.delegationToken(tokenId)).exec();
    const kv = res.kvs[0];
    return kv ? storedToken(kv) : null;
  }

  async listDelegationTokens(): Promise<StoredDelegationToken[]> {
    const res = await this.ns.getAll().prefix(K.delegationTokens).exec();
    return res.kvs.map(storedToken);
  }

  /** The compare is on the key's mod revision, which etcd reports as 0 for a missing key. */
  async writeDelegationToken(tokenId: string, next: DelegationTokenRecord | null, expectedVersion: number, fence?: Fence): Promise<boolean> {
    const key = K.delegationToken(tokenId);
    const op = next ? this.ns.put(key).value(JSON.stringify(next)) : this.ns.delete().key(key);
    const res = await this.withFence(this.txn(key, 'Mod', '==', expectedVersion), fence).then(op).commit();
    if (!res.succeeded) await this.throwIfFenced(fence);
    return res.succeeded;
  }

  async resignController(controllerEpoch: number): Promise<void> {
    await this.txn(K.controller, 'Create', '==', controllerEpoch).then(this.ns.delete().key(K.controller)).commit();
  }

  async createTopic(topic: TopicRecord, partitions: PartitionState[], fence?: Fence): Promise<void> {
    const puts = partitions.map((p) => this.ns.put(K.partition(p.topicId, p.partition)).value(JSON.stringify(p)));
    const inline = puts.length <= MAX_OPS_PER_TXN;
    if (!inline) {
      for (let i = 0; i < puts.length; i += MAX_OPS_PER_TXN) {
        // Unconditional puts under a fresh topic id: invisible until the topic key below exists.
        await this.txn(K.partition(topic.topicId, 0), 'Create', '>', -1).then(...puts.slice(i, i + MAX_OPS_PER_TXN)).commit();
      }
    }
    const res = await this.withFence(this.txn(K.topic(topic.name), 'Create', '==', 0), fence)
      .then(this.ns.put(K.topic(topic.name)).value(JSON.stringify(topic)), ...(inline ? puts : []))
      .commit();
    if (res.succeeded) return;
    if (!inline) await this.ns.delete().prefix(K.partitionsOf(topic.topicId));
    await this.throwIfFenced(fence);
    throw new KafkaApiError(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${topic.name}' already exists.`);
  }

  private async readTopic(name: string): Promise<{ topic: TopicRecord; modRevision: number } | null> {
    const res = await this.ns.get(K.topic(name)).exec();
    const kv = res.kvs[0];
    return kv ? { topic: JSON.parse(kv.value.toString('utf8')) as TopicRecord, modRevision: Number(kv.mod_revision) } : null;
  }

  async createPartitions(name: string, expectedCount: number, added: PartitionState[], fence?: Fence): Promise<void> {
    const read = await this.readTopic(name);
    if (!read) throw new KafkaApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${name}' does not exist.`);
    if (read.topic.partitions !== expectedCount) {
      throw new KafkaApiError(ErrorCode.INVALID_PARTITIONS, `Topic '${name}' has ${read.topic.partitions} partitions, not ${expectedCount}.`);
    }
    const next: TopicRecord = { ...read.topic, partitions: expectedCount + added.length };
    // New partition keys must not exist yet: a partition key is only ever created once.
    const puts = added.map((p) => this.ns.put(K.partition(p.topicId, p.partition)).value(JSON.stringify(p)));
    const inline = puts.length <= MAX_OPS_PER_TXN;
    if (!inline) {
      for (let i = 0; i < puts.length; i += MAX_OPS_PER_TXN) {
        await this.txn(K.topic(name), 'Mod', '==', read.modRevision).then(...puts.slice(i, i + MAX_OPS_PER_TXN)).commit();
      }
    }
    const res = await this.withFence(this.txn(K.topic(name), 'Mod', '==', read.modRevision), fence)
      .then(this.ns.put(K.topic(name)).value(JSON.stringify(next)), ...(inline ? puts : []))
      .commit();
    if (res.succeeded) return;
    await this.throwIfFenced(fence);
    throw new KafkaApiError(ErrorCode.INVALID_PARTITIONS, `Topic '${name}' changed while its partitions were being added; retry.`);
  }

  async deleteTopic(name: string, fence?: Fence): Promise<TopicRecord | null> {
    const read = await this.readTopic(name);
    if (!read) return null;
    const res = await this.withFence(this.txn(K.topic(name), 'Mod', '==', read.modRevision), fence)
      .then(this.ns.delete().key(K.topic(name)), this.ns.delete().prefix(K.partitionsOf(read.topic.topicId)))
      .commit();
    if (res.succeeded) return read.topic;
    await this.throwIfFenced(fence);
    return this.deleteTopic(name, fence); // the topic changed in between: look again
  }

  async removePartitions(name: string, expectedCount: number, remaining: number, configs: Record<string, string>, fence?: Fence): Promise<void> {
    const read = await this.readTopic(name);
    if (!read) throw new KafkaApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${name}' does not exist.`);
    if (read.topic.partitions !== expectedCount || remaining < 1 || remaining >= expectedCount) {
      throw new KafkaApiError(ErrorCode.INVALID_PARTITIONS, `Topic '${name}' has ${read.topic.partitions} partitions, not ${expectedCount}, or ${remaining} is not fewer.`);
    }
    const next: TopicRecord = { ...read.topic, partitions: remaining, configs: { ...configs } };
    const deletes = [];
    for (let i = remaining; i < expectedCount; i++) deletes.push(this.ns.delete().key(K.partition(read.topic.topicId, i)));
    const res = await this.withFence(this.txn(K.topic(name), 'Mod', '==', read.modRevision), fence)
      .then(this.ns.put(K.topic(name)).value(JSON.stringify(next)), ...deletes)
      .commit();
    if (res.succeeded) return;
    await this.throwIfFenced(fence);
    throw new KafkaApiError(ErrorCode.INVALID_PARTITIONS, `Topic '${name}' changed while its partitions were being removed; retry.`);
  }

  async alterTopicConfigs(name: string, configs: Record<string, string>, fence?: Fence): Promise<void> {
    for (;;) {
      const read = await this.readTopic(name);
      if (!read) throw new KafkaApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${name}' does not exist.`);
      const next: TopicRecord = { ...read.topic, configs: { ...configs } };
      const res = await this.withFence(this.txn(K.topic(name), 'Mod', '==', read.modRevision), fence)
        .then(this.ns.put(K.topic(name)).value(JSON.stringify(next)))
        .commit();
      if (res.succeeded) return;
      await this.throwIfFenced(fence);
    }
  }

  async alterPartition(next: PartitionState, expectedPartitionEpoch: number, fence?: Fence): Promise<AlterPartitionOutcome> {
    checkNextPartitionState(next, expectedPartitionEpoch);
    const key = K.partition(next.topicId, next.partition);
    const fenceKey = fence ? ('controllerEpoch' in fence ? K.controller : K.broker(fence.nodeId)) : null;
    const res = await this.withFence(this.txn(key, 'Version', '==', expectedPartitionEpoch + 1), fence)
      .then(this.ns.put(key).value(JSON.stringify(next)))
      .else(this.ns.get(key), ...(fenceKey ? [this.ns.get(fenceKey)] : []))
      .commit();
    if (res.succeeded) return { ok: true, state: clonePartitionState(next) };
    // The else branch read what the compares looked at, in the same revision: say which failed.
    const kv = firstKv(res.responses[0]);
    const current = kv ? (JSON.parse(kv.value.toString('utf8')) as PartitionState) : null;
    if (!current) return { ok: false, error: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, current: null };
    if (fence) {
      const f = firstKv(res.responses[1]);
      const want = 'controllerEpoch' in fence ? fence.controllerEpoch : fence.brokerEpoch;
      if (!f || Number(f.create_revision) !== want) return { ok: false, error: fenceError(fence).errorCode, current };
    }
    return { ok: false, error: ErrorCode.INVALID_UPDATE_VERSION, current };
  }

  async allocateProducerIds(nodeId: number, fence?: Fence): Promise<ProducerIdBlock> {
    for (;;) {
      const res = await this.ns.get(K.producerIds).exec();
      const kv = res.kvs[0];
      const version = kv ? Number(kv.version) : 0;
      const first = kv ? BigInt((JSON.parse(kv.value.toString('utf8')) as { nextProducerId: string }).nextProducerId) : 0n;
      const next = first + BigInt(PRODUCER_ID_BLOCK_SIZE);
      const brokerEpoch = fence && 'brokerEpoch' in fence ? fence.brokerEpoch : -1;
      const put = this.ns.put(K.producerIds).value(JSON.stringify({ assignedBrokerId: nodeId, brokerEpoch, nextProducerId: next.toString() }));
      const txn = await this.withFence(this.txn(K.producerIds, 'Version', '==', version), fence).then(put).commit();
      if (txn.succeeded) return { assignedBrokerId: nodeId, firstProducerId: first, size: PRODUCER_ID_BLOCK_SIZE };
      await this.throwIfFenced(fence);
    }
  }

  /** One transaction (fenced) when the change fits in one, else fenced batches in order. */
  async alterAcls(add: ReadonlyMap<string, AclBinding>, remove: readonly string[], fence?: Fence): Promise<void> {
    const ops = [
      ...remove.map((id) => this.ns.delete().key(K.acl(id))),
      ...[...add].map(([id, acl]) => this.ns.put(K.acl(id)).value(JSON.stringify(acl))),
    ];
    for (let i = 0; i < ops.length; i += MAX_OPS_PER_TXN) {
      const res = await this.withFence(this.txn(K.clusterId, 'Create', '>', -1), fence).then(...ops.slice(i, i + MAX_OPS_PER_TXN)).commit();
      if (!res.succeeded) {
        await this.throwIfFenced(fence);
        throw new Error('ACL change was not applied');
      }
    }
  }

  async alterClientQuotas(changes: ReadonlyMap<string, ClientQuotaRecord | null>, fence?: Fence): Promise<void> {
    const ops = [...changes].map(([key, q]) => (q ? this.ns.put(K.quota(key)).value(JSON.stringify(q)) : this.ns.delete().key(K.quota(key))));
    for (let i = 0; i < ops.length; i += MAX_OPS_PER_TXN) {
      const res = await this.withFence(this.txn(K.clusterId, 'Create', '>', -1), fence).then(...ops.slice(i, i + MAX_OPS_PER_TXN)).commit();
      if (!res.succeeded) {
        await this.throwIfFenced(fence);
        throw new Error('client quota change was not applied');
      }
    }
  }

  async alterBrokerConfigs(key: string, configs: Record<string, string> | null, fence?: Fence): Promise<void> {
    const empty = !configs || Object.keys(configs).length === 0;
    const op = empty ? this.ns.delete().key(K.brokerConfigs(key)) : this.ns.put(K.brokerConfigs(key)).value(JSON.stringify(configs));
    const res = await this.withFence(this.txn(K.clusterId, 'Create', '>', -1), fence).then(op).commit();
    if (!res.succeeded) {
      await this.throwIfFenced(fence);
      throw new Error('broker config change was not applied');
    }
  }

  async alterGroupConfigs(groupId: string, configs: Record<string, string> | null, fence?: Fence): Promise<void> {
    const empty = !configs || Object.keys(configs).length === 0;
    const op = empty ? this.ns.delete().key(K.groupConfigs(groupId)) : this.ns.put(K.groupConfigs(groupId)).value(JSON.stringify(configs));
    const res = await this.withFence(this.txn(K.clusterId, 'Create', '>', -1), fence).then(op).commit();
    if (!res.succeeded) {
      await this.throwIfFenced(fence);
      throw new Error('group config change was not applied');
    }
  }

  async alterFeatures(levels: ReadonlyMap<string, number>, fence?: Fence): Promise<void> {
    const ops = [...levels].map(([name, level]) => (level > 0 ? this.ns.put(K.feature(name)).value(String(level)) : this.ns.delete().key(K.feature(name))));
    if (ops.length === 0) return;
    const res = await this.withFence(this.txn(K.clusterId, 'Create', '>', -1), fence).then(...ops).commit();
    if (!res.succeeded) {
      await this.throwIfFenced(fence);
      throw new Error('feature level change was not applied');
    }
  }

  async close(): Promise<void> {
    this.client.close();
  }
}

function firstKv(op: IResponseOp | undefined): IKeyValue | undefined {
  return op?.response_range?.kvs?.[0];
}
