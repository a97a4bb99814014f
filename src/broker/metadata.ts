/**
 * Cluster metadata of a single node: topics (name, id, partition count, config overrides), the
 * cluster id and this node's id. Persisted through a MetadataStore (a JSON file in the first log
 * dir for one node; the interface leaves room for a real coordination service later).
 *
 * Topic rules follow Kafka's controller (ReplicationControlManager / Topic.validate): legal names
 * are 1-249 chars of [a-zA-Z0-9._-] and not "." or ".."; names that collide once '.' and '_' are
 * treated as equal are refused.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync, openSync, fsyncSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { KafkaApiError } from '../errors.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';

export interface TopicInfo {
  name: string;
  topicId: string;
  partitions: number;
  replicationFactor: number;
  /** Dynamic topic config overrides (Kafka names → string values). */
  configs: Record<string, string>;
  isInternal: boolean;
}

export interface MetadataStore {
  load(): { clusterId: string | null; topics: TopicInfo[] };
  save(state: { clusterId: string; topics: TopicInfo[] }): void;
}

/** One JSON file, replaced atomically (write temp, fsync, rename). */
export class FileMetadataStore implements MetadataStore {
  private readonly file: string;
  constructor(private readonly dir: string) {
    this.file = join(dir, 'samsa-metadata.json');
  }

  load(): { clusterId: string | null; topics: TopicInfo[] } {
    if (!existsSync(this.file)) return { clusterId: null, topics: [] };
    const data = JSON.parse(readFileSync(this.file, 'utf8')) as { clusterId: string; topics: TopicInfo[] };
    return { clusterId: data.clusterId ?? null, topics: data.topics ?? [] };
  }

  save(state: { clusterId: string; topics: TopicInfo[] }): void {
    mkdirSync(this.dir, { recursive: true });
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify({ version: 1, ...state }, null, 1));
    const fd = openSync(tmp, 'r');
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, this.file);
  }
}

export class MemoryMetadataStore implements MetadataStore {
  private state: { clusterId: string | null; topics: TopicInfo[] } = { clusterId: null, topics: [] };
  load() {
    return { clusterId: this.state.clusterId, topics: this.state.topics.map((t) => ({ ...t, configs: { ...t.configs } })) };
  }
  save(state: { clusterId: string; topics: TopicInfo[] }): void {
    this.state = { clusterId: state.clusterId, topics: state.topics.map((t) => ({ ...t, configs: { ...t.configs } })) };
  }
}

export const MAX_TOPIC_NAME_LENGTH = 249;
const LEGAL = /^[a-zA-Z0-9._-]+$/;

/** null when legal, else Kafka's reason. */
export function topicNameProblem(name: string): string | null {
  if (name.length === 0) return 'Topic name is invalid: the empty string is not allowed';
  if (name === '.' || name === '..') return `Topic name is invalid: '${name}' is not allowed`;
  if (name.length > MAX_TOPIC_NAME_LENGTH) return `Topic name is invalid: the length of '${name}' is longer than the max allowed length ${MAX_TOPIC_NAME_LENGTH}`;
  if (!LEGAL.test(name)) return `Topic name is invalid: '${name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'`;
  return null;
}

export function newUuid(): string {
  for (;;) {
    const b = randomBytes(16);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const s = b.toString('base64url');
    // Kafka reserves the zero uuid and ids starting with '-' (they look like CLI flags).
    if (!s.startsWith('-') && s !== 'AAAAAAAAAAAAAAAAAAAAAA') return s;
  }
}

export const INTERNAL_TOPICS = new Set(['__consumer_offsets', '__transaction_state']);

export class ClusterMetadata {
  readonly topics = new Map<string, TopicInfo>();
  private readonly byId = new Map<string, TopicInfo>();
  clusterId: string;

  constructor(private readonly store: MetadataStore, readonly nodeId: number, configuredClusterId?: string | null) {
    const loaded = store.load();
    this.clusterId = loaded.clusterId ?? configuredClusterId ?? newUuid();
    for (const t of loaded.topics) this.index(t);
    if (!loaded.clusterId) this.persist();
  }

  private index(t: TopicInfo): void {
    this.topics.set(t.name, t);
    this.byId.set(t.topicId, t);
  }

  private persist(): void {
    this.store.save({ clusterId: this.clusterId, topics: [...this.topics.values()] });
  }

  get(name: string): TopicInfo | undefined {
    return this.topics.get(name);
  }

  getById(id: string): TopicInfo | undefined {
    return this.byId.get(id);
  }

  /** Throws KafkaApiError with Kafka's code and message when `name` cannot be created. */
  checkCreatable(name: string): void {
    const problem = topicNameProblem(name);
    if (problem) throw new KafkaApiError(ErrorCode.INVALID_TOPIC_EXCEPTION, problem);
    if (this.topics.has(name)) throw new KafkaApiError(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${name}' already exists.`);
    const canon = name.replace(/\./g, '_');
    for (const existing of this.topics.keys()) {
      if (existing.replace(/\./g, '_') === canon) {
        throw new KafkaApiError(ErrorCode.INVALID_TOPIC_EXCEPTION, `Topic '${name}' collides with existing topic: ${existing}`);
      }
    }
  }

  addTopic(t: Omit<TopicInfo, 'topicId'> & { topicId?: string }): TopicInfo {
    const info: TopicInfo = { ...t, topicId: t.topicId || newUuid() };
    this.index(info);
    this.persist();
    return info;
  }

  removeTopic(name: string): TopicInfo | undefined {
    const t = this.topics.get(name);
    if (!t) return undefined;
    this.topics.delete(name);
    this.byId.delete(t.topicId);
    this.persist();
    return t;
  }

  setPartitionCount(name: string, count: number): void {
    const t = this.topics.get(name);
    if (!t) throw new KafkaApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    t.partitions = count;
    this.persist();
  }

  setConfigs(name: string, configs: Record<string, string>): void {
    const t = this.topics.get(name);
    if (!t) throw new KafkaApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    t.configs = configs;
    this.persist();
  }
}
