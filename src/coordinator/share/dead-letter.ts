/**
 * Dead-letter topics for share groups (KIP-1191, as Kafka 4.4 writes them): a record a consumer
 * REJECTs, or that reaches share.delivery.count.limit, is copied to the group's dead-letter topic
 * (group config errors.deadletterqueue.topic.name) before its Archived state is written.
 *
 * - The record: the original key and value when errors.deadletterqueue.copy.record.enable is
 *   true, else none; headers (UTF-8 text) __dlq.errors.topic, __dlq.errors.partition,
 *   __dlq.errors.offset, __dlq.errors.group, __dlq.errors.delivery.count and
 *   __dlq.errors.message ("Offset rejected by client." / "Offset delivery count exceeded the
 *   threshold."), as Kafka 4.4's ShareGroupDLQStateManager.
 * - The topic must exist with errors.deadletterqueue.group.enable=true (or be created when the
 *   broker's errors.deadletterqueue.auto.create.topics.enable is true), and its name may not start
 *   with "__"; otherwise the record is archived without a copy and the reason logged, as Kafka does.
 *   (Samsa also refuses such a name when the group config is set: broker/topic-configs.ts.)
 * - Partition: the source partition modulo the dead-letter topic's partition count.
 * - Exactly once: the copy is appended (and acknowledged by the ISR) before the archived state
 *   is persisted, and each share-partition remembers which offsets it copied. After a crash
 *   between the two, the record may be archived again; the share-partition, on loading, reads
 *   the tail of its dead-letter partition (the last DEDUPE_SCAN_BYTES) for copies of its own
 *   records and does not write those again.
 */
import type { Logger } from '../../logger.js';
import type { Clock } from '../../clock.js';
import type { PartitionState, TopicRecord } from '../../cluster/metadata-store.js';
import type { BrokerClientPool } from '../../replication/broker-client.js';
import type { ReplicaManager } from '../../replication/replica-manager.js';
import { buildRecordBatch, decodeRecordBatches, type RecordHeader, type RecordInput } from '../../protocol/records/record.js';
import type { PartitionLog } from '../../storage/partition-log.js';
import type { ArchivedRecord } from './share-partition.js';
import type { ShareGroupConfig } from './share-config.js';
import { ZERO_UUID } from '../../protocol/reader.js';

/** What the dead-letter writer needs of the broker (the broker's services provide it). */
export interface DeadLetterEnv {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly brokerClients: BrokerClientPool;
  partitionState(topicId: string, partition: number): PartitionState | undefined;
  readonly metadataCache: { topic(name: string): TopicRecord | undefined };
  readonly replicaManager: Pick<ReplicaManager, 'getPartition'>;
  createTopic(spec: { name: string; numPartitions: number; replicationFactor: number; configs: Record<string, string | null> }): Promise<TopicRecord>;
}

export const DLQ_HEADERS = {
  topic: '__dlq.errors.topic',
  partition: '__dlq.errors.partition',
  offset: '__dlq.errors.offset',
  group: '__dlq.errors.group',
  deliveryCount: '__dlq.errors.delivery.count',
  message: '__dlq.errors.message',
} as const;

export const DLQ_ENABLE_CONFIG = 'errors.deadletterqueue.group.enable';
const DEDUPE_SCAN_BYTES = 1 << 20;

const MESSAGES = { rejected: 'Offset rejected by client.', 'delivery-limit': 'Offset delivery count exceeded the threshold.' } as const;

export interface DeadLetterSource {
  groupId: string;
  topic: string;
  topicId: string;
  partition: number;
  log: PartitionLog;
}

const text = (s: string) => Buffer.from(s, 'utf8');

/** Why a dead-letter topic name cannot be used, or null (Kafka 4.4's checks at write time). */
export function deadLetterTopicProblem(broker: DeadLetterEnv, name: string, autoCreate: boolean): string | null {
  if (name.startsWith('__')) return `dead-letter topic ${name} cannot start with __`;
  const info = broker.metadataCache.topic(name);
  if (!info) return autoCreate ? null : `dead-letter topic ${name} does not exist and errors.deadletterqueue.auto.create.topics.enable is false`;
  if (info.configs[DLQ_ENABLE_CONFIG] !== 'true') return `dead-letter topic ${name} does not have ${DLQ_ENABLE_CONFIG}=true`;
  return null;
}

export class DeadLetterWriter {
  /** Per share-partition: the source offsets already copied (pruned below its start offset). */
  private readonly copied = new Map<string, Set<number>>();
  private readonly scanned = new Set<string>();

  constructor(private readonly broker: DeadLetterEnv) {}

  private static id(s: DeadLetterSource): string {
    return `${s.groupId}\u0000${s.topicId}\u0000${s.partition}`;
  }

  /**
   * Copies archived records to the group's dead-letter topic (nothing when the group has none).
   * Resolves once the copy is acknowledged; throws when it could not be written (the caller does
   * not persist the archived state then, and tries again).
   */
  async write(src: DeadLetterSource, archived: ArchivedRecord[], cfg: ShareGroupConfig, startOffset: number): Promise<void> {
    const name = cfg.deadLetterTopicName;
    if (name === '' || archived.length === 0) return;
    const problem = deadLetterTopicProblem(this.broker, name, cfg.deadLetterAutoCreate);
    if (problem) {
      this.broker.logger.warn(`share group ${src.groupId}: ${archived.length} archived records of ${src.topic}-${src.partition} not dead-lettered: ${problem}`);
      return;
    }
    let info = this.broker.metadataCache.topic(name);
    if (!info) info = await this.broker.createTopic({ name, numPartitions: 1, replicationFactor: -1, configs: { [DLQ_ENABLE_CONFIG]: 'true' } });
    const target = src.partition % info.partitions;
    const id = DeadLetterWriter.id(src);
    let copied = this.copied.get(id);
    if (!copied) this.copied.set(id, (copied = new Set()));
    if (!this.scanned.has(id)) {
      await this.scanTail(src, name, target, copied);
      this.scanned.add(id);
    }
    for (const o of copied) if (o < startOffset) copied.delete(o);
    const todo = archived.filter((a) => !copied!.has(a.offset));
    if (todo.length === 0) return;
    const originals = cfg.deadLetterCopyRecord ? await this.originals(src.log, todo) : new Map<number, { key: Buffer | null; value: Buffer | null }>();
    const records: RecordInput[] = todo.map((a) => {
      const o = originals.get(a.offset);
      const headers: RecordHeader[] = [
        { key: DLQ_HEADERS.topic, value: text(src.topic || src.topicId) },
        { key: DLQ_HEADERS.partition, value: text(String(src.partition)) },
        { key: DLQ_HEADERS.offset, value: text(String(a.offset)) },
        { key: DLQ_HEADERS.group, value: text(src.groupId) },
        { key: DLQ_HEADERS.deliveryCount, value: text(String(a.deliveryCount)) },
        { key: DLQ_HEADERS.message, value: text(MESSAGES[a.reason]) },
      ];
      return { key: o?.key ?? null, value: o?.value ?? null, headers };
    });
    await this.append(name, target, buildRecordBatch({ records }));
    for (const a of todo) copied.add(a.offset);
  }

  /** The copies of this share-partition's records among the last DEDUPE_SCAN_BYTES of its dead-letter partition. */
  private async scanTail(src: DeadLetterSource, name: string, partition: number, into: Set<number>): Promise<void> {
    const p = this.broker.replicaManager.getPartition(name, partition);
    if (!p?.isLeader) return;
    const log = p.log;
    let from = Math.max(log.logStartOffset, log.logEndOffset - 1);
    // Step back until the tail covers DEDUPE_SCAN_BYTES (or the log start).
    for (let step = 64; from > log.logStartOffset; step *= 4) {
      const probe = Math.max(log.logStartOffset, log.logEndOffset - step);
      const read = await log.read(probe, DEDUPE_SCAN_BYTES, { minOneMessage: true, maxOffset: log.logEndOffset });
      from = probe;
      const bytes = read.records.reduce((n, b) => n + b.length, 0);
      if (bytes >= DEDUPE_SCAN_BYTES || probe === log.logStartOffset) break;
    }
    const read = await log.read(from, DEDUPE_SCAN_BYTES * 2, { minOneMessage: true, maxOffset: log.logEndOffset });
    const want = [src.topic || src.topicId, String(src.partition), src.groupId];
    for (const buf of read.records) {
      for (const batch of decodeRecordBatches(buf)) {
        for (const r of batch.records) {
          const h = new Map(r.headers.map((x) => [x.key, x.value?.toString('utf8') ?? '']));
          if (h.get(DLQ_HEADERS.topic) === want[0] && h.get(DLQ_HEADERS.partition) === want[1] && h.get(DLQ_HEADERS.group) === want[2]) {
            into.add(Number(h.get(DLQ_HEADERS.offset)));
          }
        }
      }
    }
  }

  /** The key and value of each archived offset, read from the source log. */
  private async originals(log: PartitionLog, todo: ArchivedRecord[]): Promise<Map<number, { key: Buffer | null; value: Buffer | null }>> {
    const out = new Map<number, { key: Buffer | null; value: Buffer | null }>();
    const wanted = new Set(todo.map((a) => a.offset));
    let next = Math.min(...wanted);
    const last = Math.max(...wanted);
    while (next <= last) {
      const read = await log.read(next, 1 << 20, { minOneMessage: true, maxOffset: log.highWatermark });
      if (read.records.length === 0) break;
      let end = next;
      for (const buf of read.records) {
        for (const batch of decodeRecordBatches(buf)) {
          for (const r of batch.records) {
            const o = Number(r.offset);
            if (wanted.has(o)) out.set(o, { key: r.key === null ? null : Buffer.from(r.key), value: r.value === null ? null : Buffer.from(r.value) });
            end = Math.max(end, o + 1);
          }
        }
      }
      if (end <= next) break;
      next = end;
    }
    return out;
  }

  /** Appends a batch to the dead-letter partition: locally when led here (waiting for the ISR), else Produce acks=-1 to its leader. */
  private async append(name: string, partition: number, batch: Buffer): Promise<void> {
    const b = this.broker;
    const p = b.replicaManager.getPartition(name, partition);
    if (p?.isLeader) {
      const r = await p.log.appendAsLeader(batch, p.leaderEpoch);
      await p.log.flushUpTo(p.log.logEndOffset);
      await waitForHighWatermark(p.log, r.lastOffset + 1, b.clock.now() + 30_000);
      return;
    }
    const info = b.metadataCache.topic(name);
    const leader = info ? b.partitionState(info.topicId, partition)?.leader ?? -1 : -1;
    if (leader < 0) throw new Error(`dead-letter partition ${name}-${partition} has no leader`);
    const client = b.brokerClients.get(leader, 'share-dlq');
    if (!client) throw new Error(`dead-letter partition ${name}-${partition}: no client for broker ${leader}`);
    const res = await client.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 30_000, topicData: [{ name, topicId: ZERO_UUID, partitionData: [{ index: partition, records: batch }] }] });
    const r = res.responses[0]?.partitionResponses[0];
    if (!r || r.errorCode !== 0) throw new Error(`Produce to ${name}-${partition}: error ${r?.errorCode} ${r?.errorMessage ?? ''}`);
  }
}

/** Waits until the log's high watermark reaches `offset` (the ISR has the copy). */
async function waitForHighWatermark(log: PartitionLog, offset: number, deadline: number): Promise<void> {
  while (log.highWatermark < offset) {
    if (Date.now() > deadline) throw new Error('dead-letter append not acknowledged by the ISR in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
