/**
 * The suite's own helper client (kafkajs admin + producer), used only to set scenarios up: create
 * topics with configs, write fixture records, check whether a topic exists. What a scenario
 * asserts is always observed through the client under test.
 */
import kafkajs from 'kafkajs';
import type { TopicSpec } from './types.js';
import { KafkaConn } from '../../bench/lib/kafka-conn.js';
import { kafkaName } from './errors.js';

const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';
const errorName = (code: number) => kafkaName(code) ?? `error ${code}`;

const { Kafka, logLevel } = kafkajs;

/**
 * A just-created topic may be unknown for a moment to a Kafka broker's metadata cache (its
 * controller has it, the broker has not applied it yet): retry such answers for a few seconds.
 */
async function whileTopicUnknown<T>(fn: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      const unknown = /does not host this topic-partition|UNKNOWN_TOPIC_OR_PARTITION|LEADER_NOT_AVAILABLE|no leader for this topic-partition|not the leader for that topic-partition|NOT_LEADER_OR_FOLLOWER/i.test(`${(e as Error).message} ${(e as { type?: string }).type ?? ''}`);
      if (!unknown || Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

export class Harness {
  private kafka: kafkajs.Kafka;
  private admin: kafkajs.Admin;
  private producer: kafkajs.Producer;
  private ready: Promise<void> | null = null;

  constructor(readonly bootstrap: string) {
    this.kafka = new Kafka({ clientId: 'compat-harness', brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 5, initialRetryTime: 100 } });
    this.admin = this.kafka.admin();
    this.producer = this.kafka.producer({ allowAutoTopicCreation: false });
  }

  private connect(): Promise<void> {
    return (this.ready ??= Promise.all([this.admin.connect(), this.producer.connect()]).then(() => {}));
  }

  async createTopic(t: TopicSpec): Promise<void> {
    await this.connect();
    const ok = await this.admin.createTopics({
      topics: [{ topic: t.name, numPartitions: t.partitions, configEntries: Object.entries(t.configs ?? {}).map(([name, value]) => ({ name, value })) }],
      waitForLeaders: false,
    });
    if (!ok) throw new Error(`harness: topic ${t.name} already exists`);
    // kafkajs's own waitForLeaders gives up at the first UNKNOWN_TOPIC_OR_PARTITION, which a Kafka
    // broker answers until it has applied the new topic: wait here for every partition's leader.
    await whileTopicUnknown(async () => {
      const md = await this.admin.fetchTopicMetadata({ topics: [t.name] });
      const parts = md.topics[0]?.partitions ?? [];
      if (parts.length !== t.partitions || parts.some((p) => p.leader < 0)) throw new Error(`LEADER_NOT_AVAILABLE: ${t.name} not ready`);
    });
    // Its metadata may name a leader a moment before that broker serves the partition (answers
    // NOT_LEADER_OR_FOLLOWER, and a non-idempotent client that retries a multi-partition Produce
    // then stores the partitions that did succeed twice): ListOffsets is answered by the leader only.
    await whileTopicUnknown(() => this.offsets(t.name));
  }

  async produce(topic: string, records: { partition: number; key?: string; value: string; timestamp?: number }[]): Promise<void> {
    await this.connect();
    await whileTopicUnknown(() => this.producer.send({
      topic,
      acks: -1,
      messages: records.map((r) => ({ partition: r.partition, key: r.key, value: r.value, timestamp: r.timestamp !== undefined ? String(r.timestamp) : undefined })),
    }));
  }

  /** Topic names the broker lists (ListTopics through Metadata with no auto-creation). */
  async topics(): Promise<string[]> {
    await this.connect();
    return this.admin.listTopics();
  }

  /**
   * Earliest, latest and last stable offset (read_committed's end) of every partition, by ListOffsets on a raw connection (kafkajs's
   * fetchTopicOffsets fails with a TypeError while its metadata for a new topic is still empty).
   * Throws with the error's name when a partition answers an error.
   */
  async offsets(topic: string): Promise<{ partition: number; low: number; high: number; stable: number }[]> {
    const [host, port] = [this.bootstrap.slice(0, this.bootstrap.lastIndexOf(':')), Number(this.bootstrap.slice(this.bootstrap.lastIndexOf(':') + 1))];
    const conn = await KafkaConn.connect(host, port);
    try {
      const md = await conn.request(3, 1, { topics: [{ topicId: ZERO_UUID, name: topic }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
      const mt = md.topics[0];
      if (!mt || mt.errorCode !== 0) throw new Error(`${errorName(mt?.errorCode ?? 3)}: metadata of ${topic}`);
      const partitions = mt.partitions.map((p) => p.partitionIndex).sort((a, b) => a - b);
      const at = async (timestamp: bigint, isolationLevel = 0) => {
        const r = await conn.request(2, 2, { replicaId: -1, isolationLevel, topics: [{ name: topic, partitions: partitions.map((p) => ({ partitionIndex: p, currentLeaderEpoch: -1, timestamp })) }], timeoutMs: 5000 });
        const byPartition = new Map<number, number>();
        for (const p of r.topics[0].partitions) {
          if (p.errorCode !== 0) throw new Error(`${errorName(p.errorCode)}: ListOffsets ${topic}-${p.partitionIndex}`);
          byPartition.set(p.partitionIndex, Number(p.offset));
        }
        return byPartition;
      };
      const low = await at(-2n);
      const high = await at(-1n);
      const stable = await at(-1n, 1);
      return partitions.map((p) => ({ partition: p, low: low.get(p)!, high: high.get(p)!, stable: stable.get(p)! }));
    } finally {
      conn.close();
    }
  }

  /** Committed offsets of a group for a topic, per partition (-1: none). */
  async committed(groupId: string, topic: string): Promise<number[]> {
    await this.connect();
    const r = await this.admin.fetchOffsets({ groupId, topics: [topic] });
    return r[0].partitions.map((p) => Number(p.offset));
  }

  async close(): Promise<void> {
    if (!this.ready) return;
    await Promise.allSettled([this.admin.disconnect(), this.producer.disconnect()]);
  }
}
