/**
 * The broker's view of the cluster metadata for request handlers: topics by name and id, the
 * cluster id. It reads the metadata cache (src/cluster/metadata-cache.ts), which follows the
 * metadata store (a file for one node, etcd for a cluster); changes go through the controller
 * (Broker.createTopic and friends), never through this view.
 *
 * Names that collide once '.' and '_' are treated as equal are refused (Kafka's controller); the
 * name rules themselves are in cluster/topic-names.ts.
 */
import { KafkaApiError } from '../errors.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { MetadataCache } from '../cluster/metadata-cache.js';
import type { TopicRecord } from '../cluster/metadata-store.js';
import { topicNameProblem } from '../cluster/topic-names.js';

/** A topic as the metadata holds it (name, id, partition count, replication factor, config overrides). */
export type TopicInfo = TopicRecord;

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
