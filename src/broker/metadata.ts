/**
 * The broker's view of the cluster metadata for request handlers: topics by name and id, the
 * cluster id. It reads the metadata cache (src/cluster/metadata-cache.ts), which follows the
 * metadata store (a file for one node, etcd for a cluster); changes go through the controller
 * (Broker.createTopic and friends), never through this view.
 *
 * Topic rules follow Kafka's controller (ReplicationControlManager / Topic.validate): legal names
 * are 1-249 chars of [a-zA-Z0-9._-] and not "." or ".."; names that collide once '.' and '_' are
 * treated as equal are refused.
 */
import { randomBytes } from 'node:crypto';
import { KafkaApiError } from '../errors.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { MetadataCache } from '../cluster/metadata-cache.js';
import type { TopicRecord } from '../cluster/metadata-store.js';

/** A topic as the metadata holds it (name, id, partition count, replication factor, config overrides). */
export type TopicInfo = TopicRecord;

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

/** Kafka 4.4's Topic.INTERNAL_TOPICS. */
export const INTERNAL_TOPICS = new Set(['__consumer_offsets', '__transaction_state', '__share_group_state']);

export class ClusterMetadata {
  constructor(private readonly cache: MetadataCache, readonly nodeId: number) {}

  /** Every topic, by name. */
  get topics(): ReadonlyMap<string, TopicInfo> {
    return this.cache.topics;
  }

  get clusterId(): string {
    return this.cache.clusterId ?? '';
  }

  get(name: string): TopicInfo | undefined {
    return this.cache.topic(name);
  }

  getById(id: string): TopicInfo | undefined {
    return this.cache.topicById(id);
  }

  /** Throws KafkaApiError with Kafka's code and message when `name` cannot be created. */
  checkCreatable(name: string): void {
    const problem = topicNameProblem(name);
    if (problem) throw new KafkaApiError(ErrorCode.INVALID_TOPIC_EXCEPTION, problem);
    if (this.cache.topic(name)) throw new KafkaApiError(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${name}' already exists.`);
    const canon = name.replace(/\./g, '_');
    for (const existing of this.cache.topics.keys()) {
      if (existing.replace(/\./g, '_') === canon) {
        throw new KafkaApiError(ErrorCode.INVALID_TOPIC_EXCEPTION, `Topic '${name}' collides with existing topic: ${existing}`);
      }
    }
  }
}
