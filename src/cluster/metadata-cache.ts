/**
 * A broker's local copy of the cluster metadata (Kafka's MetadataCache / MetadataImage), kept
 * current by watching the store: read everything once at revision R, then apply every change from
 * R + 1 in order. Metadata answers, the controller and (later) the replica manager read from it;
 * nothing here waits on etcd once started.
 *
 * Each applied batch is emitted as 'change' with its events. If the watch fails (etcd compacted
 * the revision the watch wanted, or the store closed it), the cache reads everything again and
 * emits 'change' with `resynced: true` and no events: listeners must treat the cache as level
 * state ("what is true now"), never count on seeing every intermediate value. The controller does
 * exactly that.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from '../logger.js';
import {
  applyEvent,
  type BrokerRegistration, type ControllerRegistration, type MetadataEvent, type MetadataImage, type MetadataStore,
  type MetadataWatch, type PartitionState, type TopicRecord, type ClientQuotaRecord,
} from './metadata-store.js';
import type { AclBinding } from '../protocol/acl.js';

export interface MetadataChange {
  events: MetadataEvent[];
  resynced: boolean;
}

export class MetadataCache extends EventEmitter<{ change: [MetadataChange] }> {
  private image: MetadataImage;
  private watchHandle: MetadataWatch | null = null;
  private closed = false;
  private readonly topicsById = new Map<string, string>();

  private constructor(private readonly store: MetadataStore, image: MetadataImage, private readonly logger?: Logger) {
    super();
    this.image = image;
    this.reindex();
  }

  static async start(store: MetadataStore, logger?: Logger): Promise<MetadataCache> {
    const cache = new MetadataCache(store, await store.readImage(), logger);
    await cache.subscribe();
    return cache;
  }

  private reindex(): void {
    this.topicsById.clear();
    for (const t of this.image.topics.values()) this.topicsById.set(t.topicId, t.name);
  }

  private async subscribe(): Promise<void> {
    this.watchHandle = await this.store.watch(
      this.image.revision + 1,
      (events) => this.apply(events),
      (err) => void this.resync(err),
    );
  }

  private apply(events: MetadataEvent[]): void {
    if (this.closed) return;
    // Events at or below the image's revision are already in it (a watch restarted after a re-read).
    const base = this.image.revision;
    const fresh = events.filter((e) => e.revision > base);
    if (fresh.length === 0) return;
    for (const ev of fresh) {
      applyEvent(this.image, ev);
      if (ev.kind === 'topic') {
        if (ev.value) this.topicsById.set(ev.value.topicId, ev.name);
        else for (const [id, name] of this.topicsById) if (name === ev.name) this.topicsById.delete(id);
      }
    }
    this.emit('change', { events: fresh, resynced: false } satisfies MetadataChange);
  }

  private async resync(err: Error): Promise<void> {
    if (this.closed) return;
    this.logger?.warn(`metadata watch on ${this.store.description} failed (${err.message}); reading everything again`);
    for (let delay = 100; !this.closed; delay = Math.min(delay * 2, 2000)) {
      try {
        // Bounded: a cancellation that never completes must not freeze the cache.
        await Promise.race([this.watchHandle?.cancel().catch(() => {}), new Promise((r) => setTimeout(r, 1000).unref())]);
        this.image = await this.store.readImage();
        this.reindex();
        await this.subscribe();
        this.emit('change', { events: [], resynced: true } satisfies MetadataChange);
        return;
      } catch (e) {
        this.logger?.warn(`metadata re-read from ${this.store.description} failed (${(e as Error).message}); retrying in ${delay} ms`);
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  get revision(): number {
    return this.image.revision;
  }

  get clusterId(): string | null {
    return this.image.clusterId;
  }

  get controller(): ControllerRegistration | null {
    return this.image.controller;
  }

  /** Registered (alive) brokers, by node id. */
  get brokers(): ReadonlyMap<number, BrokerRegistration> {
    return this.image.brokers;
  }

  isAlive(nodeId: number): boolean {
    return this.image.brokers.has(nodeId);
  }

  /** Registered and not in controlled shutdown: may lead, and may be in an ISR. */
  isEligible(nodeId: number): boolean {
    const b = this.image.brokers.get(nodeId);
    return b !== undefined && !b.inControlledShutdown;
  }

  get topics(): ReadonlyMap<string, TopicRecord> {
    return this.image.topics;
  }

  topic(name: string): TopicRecord | undefined {
    return this.image.topics.get(name);
  }

  topicById(topicId: string): TopicRecord | undefined {
    const name = this.topicsById.get(topicId);
    return name === undefined ? undefined : this.image.topics.get(name);
  }

  /** Every ACL, by id. */
  get acls(): ReadonlyMap<string, AclBinding> {
    return this.image.acls;
  }

  /** Every client-quota entity's quotas, by entity key. */
  get quotas(): ReadonlyMap<string, ClientQuotaRecord> {
    return this.image.quotas;
  }

  /** Dynamic broker configs by broker id (as text) or DEFAULT_BROKER_CONFIGS. */
  get brokerConfigs(): ReadonlyMap<string, Readonly<Record<string, string>>> {
    return this.image.brokerConfigs;
  }

  /** Finalized feature levels by name (level 0 features absent). */
  get features(): ReadonlyMap<string, number> {
    return this.image.features;
  }

  /** Group config overrides by group id (groups need not exist). */
  get groupConfigs(): ReadonlyMap<string, Readonly<Record<string, string>>> {
    return this.image.groupConfigs;
  }

  partition(topicId: string, index: number): PartitionState | undefined {
    return this.topicById(topicId) ? this.image.partitions.get(topicId)?.get(index) : undefined;
  }

  /** Partitions of a topic that exists, in index order (partitions of uncommitted topics are hidden). */
  partitionsOf(topicId: string): PartitionState[] {
    if (!this.topicById(topicId)) return [];
    return [...(this.image.partitions.get(topicId)?.values() ?? [])].sort((a, b) => a.partition - b.partition);
  }

  /** Every partition of every existing topic. */
  allPartitions(): PartitionState[] {
    return [...this.image.topics.values()].flatMap((t) => this.partitionsOf(t.topicId));
  }

  /** Resolves once `pred` holds (checked now and after every change); rejects after `timeoutMs`. */
  waitFor(pred: (cache: MetadataCache) => boolean, timeoutMs: number, what = 'metadata condition'): Promise<void> {
    if (pred(this)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onChange = () => {
        if (!pred(this)) return;
        cleanup();
        resolve();
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.off('change', onChange);
      };
      this.on('change', onChange);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.watchHandle?.cancel().catch(() => {});
    this.removeAllListeners();
  }
}
