/**
 * What the consumer group coordinator needs to know about topics: ids, names and partition
 * counts (Kafka's coordinators read the metadata image for this). The broker's view reads its
 * cluster metadata; tests use MemoryTopicView.
 */
export interface TopicDescription {
  topicId: string;
  name: string;
  partitions: number;
}

export interface TopicView {
  byName(name: string): TopicDescription | undefined;
  byId(topicId: string): TopicDescription | undefined;
  /** Every topic name, internal topics included. */
  names(): Iterable<string>;
  /** The racks of each partition's replicas (index = partition), when brokers have racks. */
  partitionRacks?(topicId: string): string[][];
}

export class MemoryTopicView implements TopicView {
  private readonly topics = new Map<string, TopicDescription>();
  private readonly racks = new Map<string, string[][]>();

  /** Replica racks per partition of a topic (rack-aware assignment tests). */
  setRacks(topicId: string, racks: string[][]): this {
    this.racks.set(topicId, racks);
    return this;
  }

  partitionRacks(topicId: string): string[][] {
    return this.racks.get(topicId) ?? [];
  }

  set(name: string, topicId: string, partitions: number): this {
    this.topics.set(name, { name, topicId, partitions });
    return this;
  }

  delete(name: string): void {
    this.topics.delete(name);
  }

  byName(name: string): TopicDescription | undefined {
    return this.topics.get(name);
  }

  byId(topicId: string): TopicDescription | undefined {
    for (const t of this.topics.values()) if (t.topicId === topicId) return t;
    return undefined;
  }

  names(): Iterable<string> {
    return this.topics.keys();
  }
}

export const NO_TOPICS: TopicView = new MemoryTopicView();
