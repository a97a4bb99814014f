/**
 * `LocalMetadataStore`: the metadata store of one node (metadata-store.ts has the interface, what
 * is stored and the epochs it hands out), in memory, optionally persisted in one JSON file in the
 * first log dir (`samsa-metadata.json`, whose version-1 form it reads). Sessions never expire, so
 * a single broker is a cluster of one that runs the same lifecycle, controller and
 * partition-state code as a real cluster.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyScramChanges, scramKey, type ScramCredentialChange, type ScramCredentialRecord, type ScramMechanismName } from './scram-credentials.js';
import { cloneDelegationToken, type DelegationTokenRecord, type StoredDelegationToken } from './delegation-tokens.js';
import { KafkaApiError } from '../errors.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { AclBinding } from '../protocol/acl.js';
import {
  DEFAULT_BROKER_CONFIGS, DuplicateBrokerRegistrationError, PRODUCER_ID_BLOCK_SIZE, SessionExpiredError,
  checkNextPartitionState, clonePartitionState, cloneQuota, cloneTopic, fenceError, quotaEntityKey,
  type AlterPartitionOutcome, type BrokerRegistration, type ClientQuotaRecord, type ControllerRegistration, type Fence,
  type MetadataEvent, type MetadataImage, type MetadataSession, type MetadataStore, type MetadataWatch,
  type PartitionState, type ProducerIdBlock, type TopicRecord,
} from './metadata-store.js';

interface LocalFileV2 {
  version: 2;
  clusterId: string | null;
  /** SCRAM credentials (salted and hashed, never passwords). */
  scramCredentials?: ScramCredentialRecord[];
  /** Delegation tokens (their information and SCRAM credentials, never the HMAC). */
  delegationTokens?: DelegationTokenRecord[];
  topics: TopicRecord[];
  partitions: PartitionState[];
  nextProducerId: string;
  acls?: { id: string; acl: AclBinding }[];
  quotas?: ClientQuotaRecord[];
  brokerConfigs?: { key: string; configs: Record<string, string> }[];
  groupConfigs?: { groupId: string; configs: Record<string, string> }[];
  /** Finalized feature levels (absent: none finalized, a cluster formatted before features). */
  features?: Record<string, number>;
}

/**
 * One node's store. Topics, partition states, the cluster id and the producer-id counter are kept
 * in `<dir>/samsa-metadata.json` when a dir is given (written atomically: temp file, fsync,
 * rename), else in memory. Registrations and the controller claim live only in memory, bound to
 * sessions, as they live only as long as their lease in etcd.
 */
export class LocalMetadataStore implements MetadataStore {
  readonly kind = 'local' as const;
  readonly description: string;
  private readonly file: string | null;
  private revision = 0;
  private clusterId: string | null = null;
  private readonly topics = new Map<string, TopicRecord>();
  private readonly partitions = new Map<string, Map<number, PartitionState>>();
  private readonly brokers = new Map<number, BrokerRegistration & { session: string }>();
  private controller: (ControllerRegistration & { session: string }) | null = null;
  private readonly liveSessions = new Set<string>();
  private nextSession = 1;
  private readonly scram = new Map<string, ScramCredentialRecord>();
  private readonly delegationTokens = new Map<string, StoredDelegationToken>();
  /** Versions of delegation tokens (compare-and-set); loaded tokens start at 1. */
  private lastTokenVersion = 1;
  private nextProducerId = 0n;
  private readonly acls = new Map<string, AclBinding>();
  private readonly quotas = new Map<string, ClientQuotaRecord>();
  private readonly brokerConfigs = new Map<string, Record<string, string>>();
  private readonly groupConfigs = new Map<string, Record<string, string>>();
  private readonly features = new Map<string, number>();
  /** Recent events, so a watch can start at a revision slightly in the past (after readImage). */
  private readonly history: MetadataEvent[][] = [];
  private readonly watchers = new Set<(events: MetadataEvent[]) => void>();

  /** `defaultNodeId` fills the replicas of partitions read from a version-1 file (which had none). */
  constructor(dir: string | null = null, private readonly defaultNodeId = 1) {
    this.file = dir ? join(dir, 'samsa-metadata.json') : null;
    this.description = this.file ?? 'memory';
    if (this.file && existsSync(this.file)) this.loadFile(this.file, dir as string);
  }

  private loadFile(file: string, dir: string): void {
    mkdirSync(dir, { recursive: true });
    const data = JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalFileV2> & { version?: number };
    this.clusterId = data.clusterId ?? null;
    applyScramChanges(this.scram, (data.scramCredentials ?? []).map((credential) => ({ kind: 'upsert', credential })));
    for (const t of data.delegationTokens ?? []) this.delegationTokens.set(t.tokenId, { token: cloneDelegationToken(t), version: 1 });
    for (const a of data.acls ?? []) this.acls.set(a.id, { ...a.acl });
    for (const q of data.quotas ?? []) this.quotas.set(quotaEntityKey(q.entity), cloneQuota(q));
    for (const b of data.brokerConfigs ?? []) this.brokerConfigs.set(b.key, { ...b.configs });
    for (const g of data.groupConfigs ?? []) this.groupConfigs.set(g.groupId, { ...g.configs });
    for (const [name, level] of Object.entries(data.features ?? {})) if (level > 0) this.features.set(name, level);
    for (const t of data.topics ?? []) this.topics.set(t.name, cloneTopic(t));
    if (data.version === 2) {
      for (const p of data.partitions ?? []) this.partitionMap(p.topicId).set(p.partition, clonePartitionState(p));
      this.nextProducerId = BigInt(data.nextProducerId ?? '0');
    } else {
      // Version 1 (broker/metadata.ts) kept only partition counts: one node leads them all at epoch 0.
      for (const t of this.topics.values()) {
        for (let i = 0; i < t.partitions; i++) {
          this.partitionMap(t.topicId).set(i, {
            topicId: t.topicId, partition: i, replicas: [this.defaultNodeId], isr: [this.defaultNodeId],
            leader: this.defaultNodeId, leaderEpoch: 0, partitionEpoch: 0,
          });
        }
      }
    }
  }

  private persist(): void {
    if (!this.file) return;
    const data: LocalFileV2 = {
      version: 2,
      clusterId: this.clusterId,
      scramCredentials: [...this.scram.values()],
      delegationTokens: [...this.delegationTokens.values()].map((t) => t.token),
      topics: [...this.topics.values()],
      partitions: [...this.partitions.values()].flatMap((m) => [...m.values()]),
      nextProducerId: this.nextProducerId.toString(),
      acls: [...this.acls].map(([id, acl]) => ({ id, acl })),
      quotas: [...this.quotas.values()],
      brokerConfigs: [...this.brokerConfigs].map(([key, configs]) => ({ key, configs })),
      groupConfigs: [...this.groupConfigs].map(([groupId, configs]) => ({ groupId, configs })),
      features: Object.fromEntries(this.features),
    };
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify(data, null, 1));
    const fd = openSync(tmp, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.file);
  }

  private partitionMap(topicId: string): Map<number, PartitionState> {
    let m = this.partitions.get(topicId);
    if (!m) this.partitions.set(topicId, (m = new Map()));
    return m;
  }

  /** Applies one atomic change: bumps the revision, persists, and tells the watchers. */
  private commit(build: (rev: number) => MetadataEvent[], durable: boolean): number {
    const rev = ++this.revision;
    const events = build(rev);
    if (durable) this.persist();
    this.history.push(events);
    if (this.history.length > 1000) this.history.shift();
    for (const w of this.watchers) queueMicrotask(() => w(events));
    return rev;
  }

  private checkFence(fence?: Fence): void {
    if (!fence) return;
    const holds = 'controllerEpoch' in fence
      ? this.controller?.controllerEpoch === fence.controllerEpoch
      : this.brokers.get(fence.nodeId)?.brokerEpoch === fence.brokerEpoch;
    if (!holds) throw fenceError(fence);
  }

  async ensureClusterId(proposed: string, bootstrapDefaults?: Readonly<Record<string, string>>, bootstrapFeatures?: ReadonlyMap<string, number>): Promise<string> {
    if (this.clusterId) return this.clusterId;
    this.clusterId = proposed;
    const defaults = bootstrapDefaults && Object.keys(bootstrapDefaults).length > 0 && !this.brokerConfigs.has(DEFAULT_BROKER_CONFIGS)
      ? { ...bootstrapDefaults } : null;
    if (defaults) this.brokerConfigs.set(DEFAULT_BROKER_CONFIGS, defaults);
    const features = [...(bootstrapFeatures ?? [])].filter(([name, level]) => level > 0 && !this.features.has(name));
    for (const [name, level] of features) this.features.set(name, level);
    this.commit((revision) => [
      { kind: 'cluster', revision, clusterId: proposed },
      ...(defaults ? [{ kind: 'brokerConfig' as const, revision, key: DEFAULT_BROKER_CONFIGS, value: { ...defaults } }] : []),
      ...features.map(([name, level]) => ({ kind: 'feature' as const, revision, name, level })),
    ], true);
    return proposed;
  }

  async readImage(): Promise<MetadataImage> {
    const brokers = new Map<number, BrokerRegistration>();
    for (const [id, b] of this.brokers) brokers.set(id, stripSession(b));
    const partitions = new Map<string, Map<number, PartitionState>>();
    for (const [tid, m] of this.partitions) partitions.set(tid, new Map([...m].map(([i, p]) => [i, clonePartitionState(p)])));
    return {
      revision: this.revision,
      clusterId: this.clusterId,
      brokers,
      controller: this.controller ? stripSession(this.controller) : null,
      topics: new Map([...this.topics].map(([n, t]) => [n, cloneTopic(t)])),
      partitions,
      acls: new Map([...this.acls].map(([id, a]) => [id, { ...a }])),
      quotas: new Map([...this.quotas].map(([k, q]) => [k, cloneQuota(q)])),
      brokerConfigs: new Map([...this.brokerConfigs].map(([k, c]) => [k, { ...c }])),
      groupConfigs: new Map([...this.groupConfigs].map(([g, c]) => [g, { ...c }])),
      features: new Map(this.features),
    };
  }

  async watch(fromRevision: number, onEvents: (events: MetadataEvent[]) => void): Promise<MetadataWatch> {
    const oldest = this.history[0]?.[0]?.revision ?? this.revision + 1;
    if (fromRevision < oldest && fromRevision <= this.revision) {
      throw new Error(`local metadata store: revision ${fromRevision} is no longer kept (oldest ${oldest})`);
    }
    for (const batch of this.history) if (batch[0].revision >= fromRevision) queueMicrotask(() => onEvents(batch));
    this.watchers.add(onEvents);
    return { cancel: async () => void this.watchers.delete(onEvents) };
  }

  async grantSession(ttlMs: number): Promise<MetadataSession> {
    const id = `local-${this.nextSession++}`;
    this.liveSessions.add(id);
    return {
      id,
      ttlMs,
      keepAlive: async () => {
        if (!this.liveSessions.has(id)) throw new SessionExpiredError(`session ${id} was revoked`);
      },
      revoke: async () => this.endSession(id),
    };
  }

  private endSession(id: string): void {
    if (!this.liveSessions.delete(id)) return;
    const gone = [...this.brokers.values()].filter((b) => b.session === id);
    const controllerGone = this.controller?.session === id;
    if (gone.length === 0 && !controllerGone) return;
    for (const b of gone) this.brokers.delete(b.nodeId);
    if (controllerGone) this.controller = null;
    this.commit((revision) => [
      ...gone.map((b): MetadataEvent => ({ kind: 'broker', revision, nodeId: b.nodeId, value: null })),
      ...(controllerGone ? [{ kind: 'controller', revision, value: null } as MetadataEvent] : []),
    ], false);
  }

  async registerBroker(reg: Omit<BrokerRegistration, 'brokerEpoch'>, session: MetadataSession): Promise<BrokerRegistration> {
    if (!this.liveSessions.has(session.id)) throw new SessionExpiredError(`session ${session.id} was revoked`);
    const holder = this.brokers.get(reg.nodeId);
    if (holder) throw new DuplicateBrokerRegistrationError(stripSession(holder));
    let out: BrokerRegistration | null = null;
    this.commit((revision) => {
      out = { ...reg, endpoints: reg.endpoints.map((e) => ({ ...e })), brokerEpoch: revision };
      this.brokers.set(reg.nodeId, { ...out, session: session.id });
      return [{ kind: 'broker', revision, nodeId: reg.nodeId, value: out }];
    }, false);
    return out as unknown as BrokerRegistration;
  }

  /** One node and no replication: nothing to compare a clean-shutdown marker with. */
  async lastBrokerEpoch(_nodeId: number): Promise<number> {
    return -1;
  }

  markControlledShutdown(reg: BrokerRegistration, session: MetadataSession): Promise<void> {
    return this.updateBrokerRegistration(reg, session, { inControlledShutdown: true });
  }

  async updateBrokerRegistration(reg: BrokerRegistration, session: MetadataSession, changes: Partial<BrokerRegistration>): Promise<void> {
    const held = this.brokers.get(reg.nodeId);
    if (!held || held.brokerEpoch !== reg.brokerEpoch) return;
    const next = { ...stripSession(held), ...changes };
    this.brokers.set(reg.nodeId, { ...next, session: session.id });
    this.commit((revision) => [{ kind: 'broker', revision, nodeId: reg.nodeId, value: next }], false);
  }

  async unregisterBroker(nodeId: number, brokerEpoch: number): Promise<void> {
    if (this.brokers.get(nodeId)?.brokerEpoch !== brokerEpoch) return;
    this.brokers.delete(nodeId);
    this.commit((revision) => [{ kind: 'broker', revision, nodeId, value: null }], false);
  }

  async tryClaimController(nodeId: number, incarnationId: string, session: MetadataSession): Promise<ControllerRegistration | null> {
    if (!this.liveSessions.has(session.id)) throw new SessionExpiredError(`session ${session.id} was revoked`);
    if (this.controller) return null;
    let out: ControllerRegistration | null = null;
    this.commit((revision) => {
      out = { nodeId, incarnationId, controllerEpoch: revision };
      this.controller = { ...out, session: session.id };
      return [{ kind: 'controller', revision, value: out }];
    }, false);
    return out;
  }

  async readScramCredential(user: string, mechanism: ScramMechanismName): Promise<ScramCredentialRecord | null> {
    const c = this.scram.get(scramKey(user, mechanism));
    return c ? { ...c } : null;
  }

  async listScramCredentials(): Promise<ScramCredentialRecord[]> {
    return [...this.scram.values()].map((c) => ({ ...c }));
  }

  async alterScramCredentials(changes: readonly ScramCredentialChange[], fence?: Fence): Promise<void> {
    this.checkFence(fence);
    applyScramChanges(this.scram, changes);
    this.revision++; // a change, but not one the metadata cache follows
    this.persist();
  }

  async readDelegationToken(tokenId: string): Promise<StoredDelegationToken | null> {
    const t = this.delegationTokens.get(tokenId);
    return t ? { token: cloneDelegationToken(t.token), version: t.version } : null;
  }

  async listDelegationTokens(): Promise<StoredDelegationToken[]> {
    return [...this.delegationTokens.values()].map((t) => ({ token: cloneDelegationToken(t.token), version: t.version }));
  }

  async writeDelegationToken(tokenId: string, next: DelegationTokenRecord | null, expectedVersion: number, fence?: Fence): Promise<boolean> {
    this.checkFence(fence);
    if ((this.delegationTokens.get(tokenId)?.version ?? 0) !== expectedVersion) return false;
    if (next) this.delegationTokens.set(tokenId, { token: cloneDelegationToken(next), version: ++this.lastTokenVersion });
    else this.delegationTokens.delete(tokenId);
    this.revision++; // a change, but not one the metadata cache follows
    this.persist();
    return true;
  }

  async resignController(controllerEpoch: number): Promise<void> {
    if (this.controller?.controllerEpoch !== controllerEpoch) return;
    this.controller = null;
    this.commit((revision) => [{ kind: 'controller', revision, value: null }], false);
  }

  async createTopic(topic: TopicRecord, partitions: PartitionState[], fence?: Fence): Promise<void> {
    this.checkFence(fence);
    if (this.topics.has(topic.name)) throw new KafkaApiError(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${topic.name}' already exists.`);
    this.commit((revision) => {
      this.topics.set(topic.name, cloneTopic(topic));
      const m = this.partitionMap(topic.topicId);
      for (const p of partitions) m.set(p.partition, clonePartitionState(p));
      return [
        ...partitions.map((p): MetadataEvent => ({ kind: 'partition', revision, topicId: p.topicId, partition: p.partition, value: clonePartitionState(p) })),
        { kind: 'topic', revision, name: topic.name, value: cloneTopic(topic) },
      ];
    }, true);
  }

  async createPartitions(name: string, expectedCount: number, added: PartitionState[], fence?: Fence): Promise<void> {
    this.checkFence(fence);
    const t = this.topics.get(name);
    if (!t) throw new KafkaApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${name}' does not exist.`);
    if (t.partitions !== expectedCount) {
      throw new KafkaApiError(ErrorCode.INVALID_PARTITIONS, `Topic '${name}' has ${t.partitions} partitions, not ${expectedCount}.`);
    }
    this.commit((revision) => {
      const next = { ...cloneTopic(t), partitions: expectedCount + added.length };
      this.topics.set(name, next);
      const m = this.partitionMap(t.topicId);
      for (const p of added) m.set(p.partition, clonePartitionState(p));
      return [
        ...added.map((p): MetadataEvent => ({ kind: 'partition', revision, topicId: p.topicId, partition: p.partition, value: clonePartitionState(p) })),
        { kind: 'topic', revision, name, value: cloneTopic(next) },
      ];
    }, true);
  }

  async deleteTopic(name: string, fence?: Fence): Promise<TopicRecord | null> {
    this.checkFence(fence);
    const t = this.topics.get(name);
    if (!t) return null;
    this.commit((revision) => {
      this.topics.delete(name);
      const m = this.partitions.get(t.topicId);
      this.partitions.delete(t.topicId);
      return [
        { kind: 'topic', revision, name, value: null },
        ...[...(m?.keys() ?? [])].map((partition): MetadataEvent => ({ kind: 'partition', revision, topicId: t.topicId, partition, value: null })),
      ];
    }, true);
    return cloneTopic(t);
  }

  async removePartitions(name: string, expectedCount: number, remaining: number, configs: Record<string, string>, fence?: Fence): Promise<void> {
    this.checkFence(fence);
    const t = this.topics.get(name);
    if (!t) throw new KafkaApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${name}' does not exist.`);
    if (t.partitions !== expectedCount || remaining < 1 || remaining >= expectedCount) {
      throw new KafkaApiError(ErrorCode.INVALID_PARTITIONS, `Topic '${name}' has ${t.partitions} partitions, not ${expectedCount}, or ${remaining} is not fewer.`);
    }
    const next = { ...cloneTopic(t), partitions: remaining, configs: { ...configs } };
    this.commit((revision) => {
      this.topics.set(name, next);
      const m = this.partitionMap(t.topicId);
      const gone: number[] = [];
      for (let i = remaining; i < expectedCount; i++) if (m.delete(i)) gone.push(i);
      return [
        { kind: 'topic', revision, name, value: cloneTopic(next) },
        ...gone.map((partition): MetadataEvent => ({ kind: 'partition', revision, topicId: t.topicId, partition, value: null })),
      ];
    }, true);
  }

  async alterTopicConfigs(name: string, configs: Record<string, string>, fence?: Fence): Promise<void> {
    this.checkFence(fence);
    const t = this.topics.get(name);
    if (!t) throw new KafkaApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${name}' does not exist.`);
    const next = { ...t, configs: { ...configs } };
    this.commit((revision) => {
      this.topics.set(name, next);
      return [{ kind: 'topic', revision, name, value: cloneTopic(next) }];
    }, true);
  }

  async alterPartition(next: PartitionState, expectedPartitionEpoch: number, fence?: Fence): Promise<AlterPartitionOutcome> {
    checkNextPartitionState(next, expectedPartitionEpoch);
    const current = this.partitions.get(next.topicId)?.get(next.partition) ?? null;
    if (!current) return { ok: false, error: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, current: null };
    if (fence) {
      try {
        this.checkFence(fence);
      } catch (e) {
        return { ok: false, error: (e as KafkaApiError).errorCode, current: clonePartitionState(current) };
      }
    }
    if (current.partitionEpoch !== expectedPartitionEpoch) {
      return { ok: false, error: ErrorCode.INVALID_UPDATE_VERSION, current: clonePartitionState(current) };
    }
    const stored = clonePartitionState(next);
    this.commit((revision) => {
      this.partitionMap(next.topicId).set(next.partition, stored);
      return [{ kind: 'partition', revision, topicId: next.topicId, partition: next.partition, value: clonePartitionState(stored) }];
    }, true);
    return { ok: true, state: clonePartitionState(stored) };
  }

  async allocateProducerIds(nodeId: number, fence?: Fence): Promise<ProducerIdBlock> {
    this.checkFence(fence);
    const first = this.nextProducerId;
    this.nextProducerId += BigInt(PRODUCER_ID_BLOCK_SIZE);
    this.revision++; // a change, but not one watchers care about
    this.persist();
    return { assignedBrokerId: nodeId, firstProducerId: first, size: PRODUCER_ID_BLOCK_SIZE };
  }

  async alterAcls(add: ReadonlyMap<string, AclBinding>, remove: readonly string[], fence?: Fence): Promise<void> {
    this.checkFence(fence);
    const gone = remove.filter((id) => this.acls.has(id));
    if (add.size === 0 && gone.length === 0) return;
    this.commit((revision) => {
      for (const id of gone) this.acls.delete(id);
      for (const [id, a] of add) this.acls.set(id, { ...a });
      return [
        ...gone.map((id): MetadataEvent => ({ kind: 'acl', revision, id, value: null })),
        ...[...add].map(([id, a]): MetadataEvent => ({ kind: 'acl', revision, id, value: { ...a } })),
      ];
    }, true);
  }

  async alterClientQuotas(changes: ReadonlyMap<string, ClientQuotaRecord | null>, fence?: Fence): Promise<void> {
    this.checkFence(fence);
    if (changes.size === 0) return;
    this.commit((revision) => [...changes].map(([key, q]): MetadataEvent => {
      if (q) this.quotas.set(key, cloneQuota(q));
      else this.quotas.delete(key);
      return { kind: 'quota', revision, key, value: q ? cloneQuota(q) : null };
    }), true);
  }

  async alterBrokerConfigs(key: string, configs: Record<string, string> | null, fence?: Fence): Promise<void> {
    this.checkFence(fence);
    const next = configs && Object.keys(configs).length > 0 ? { ...configs } : null;
    if (!next && !this.brokerConfigs.has(key)) return;
    this.commit((revision) => {
      if (next) this.brokerConfigs.set(key, next);
      else this.brokerConfigs.delete(key);
      return [{ kind: 'brokerConfig', revision, key, value: next ? { ...next } : null }];
    }, true);
  }

  async alterGroupConfigs(groupId: string, configs: Record<string, string> | null, fence?: Fence): Promise<void> {
    this.checkFence(fence);
    const next = configs && Object.keys(configs).length > 0 ? { ...configs } : null;
    if (!next && !this.groupConfigs.has(groupId)) return;
    this.commit((revision) => {
      if (next) this.groupConfigs.set(groupId, next);
      else this.groupConfigs.delete(groupId);
      return [{ kind: 'groupConfig', revision, groupId, value: next ? { ...next } : null }];
    }, true);
  }

  async alterFeatures(levels: ReadonlyMap<string, number>, fence?: Fence): Promise<void> {
    this.checkFence(fence);
    const changed = [...levels].filter(([name, level]) => (this.features.get(name) ?? 0) !== level);
    if (changed.length === 0) return;
    this.commit((revision) => changed.map(([name, level]): MetadataEvent => {
      if (level > 0) this.features.set(name, level);
      else this.features.delete(name);
      return { kind: 'feature', revision, name, level: level > 0 ? level : null };
    }), true);
  }

  async close(): Promise<void> {
    this.watchers.clear();
  }
}

function stripSession<T extends { session: string }>(v: T): Omit<T, 'session'> {
  const { session: _session, ...rest } = v;
  void _session;
  return rest;
}
