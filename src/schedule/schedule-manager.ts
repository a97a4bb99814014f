/**
 * Runs a PartitionScheduler for every partition of every schedule topic
 * (`samsa.schedule.target`) that this broker leads: on a cluster the scheduler follows the
 * source partition's leadership (ReplicaManager `leadershipChange`, plus a periodic check that
 * also notices new, deleted and re-configured schedule topics).
 *
 * The broker side of the scheduler's ports:
 * - source: the partition log, read up to its last stable offset (aborted transactions skipped);
 * - target: `appendAsLeader` on the target partition when this broker leads it, else Produce
 *   (acks=-1) to its leader, and ListOffsets / Fetch there for the recovery's reconciliation;
 * - checkpoint: `samsa-schedule.checkpoint` (JSON, written atomically) in the source partition's
 *   directory; a new leader without it reconciles from the target logs.
 *
 * Each partition's loop runs one round at a time; a failed round (or recovery) is retried after
 * a second, by recovering from the checkpoint (the crash path).
 */
import path from 'node:path';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { PartitionState, TopicRecord } from '../cluster/metadata-store.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import type { BrokerClientPool } from '../replication/broker-client.js';

/** What the schedule topics need of the broker (the Broker itself provides it). */
export interface ScheduleEnv {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly nodeId: number;
  readonly replicaManager: ReplicaManager;
  readonly brokerClients: BrokerClientPool;
  readonly metadataCache: { readonly topics: ReadonlyMap<string, TopicRecord>; topic(name: string): TopicRecord | undefined };
  partitionState(topicId: string, partition: number): PartitionState | undefined;
}
import type { Fs } from '../storage/fs.js';
import type { Timer } from '../clock.js';
import { PartitionScheduler, type CheckpointStore, type ScheduleCheckpoint, type ScheduleSource, type ScheduleTarget } from './partition-scheduler.js';
import { SCHEDULE_DELAY_MS, SCHEDULE_TARGET, SCHEDULE_TICK_MS } from './deliver-at.js';
import { ZERO_UUID } from '../protocol/reader.js';

export const CHECKPOINT_FILE = 'samsa-schedule.checkpoint';
const RECONCILE_INTERVAL_MS = 1000;
const RETRY_MS = 1000;
const SETTLE_MS = 30_000;

/** The checkpoint in the partition directory, found through the log each time (a move between log dirs changes it). */
function fileCheckpoints(fs: Fs, fileOf: () => string): CheckpointStore {
  return {
    async load() {
      const file = fileOf();
      if (!(await fs.exists(file))) return null;
      const c = JSON.parse((await fs.readFile(file)).toString('utf8')) as ScheduleCheckpoint;
      if (c.version !== 1) throw new Error(`${file}: unsupported checkpoint version ${String(c.version)}`);
      return c;
    },
    async save(c) {
      await fs.writeFileAtomic(fileOf(), Buffer.from(JSON.stringify(c)));
    },
  };
}

class Runner {
  private stopped = false;
  private timer: Timer | null = null;
  private wake: (() => void) | null = null;
  readonly done: Promise<void>;

  constructor(readonly scheduler: PartitionScheduler, readonly signature: string, private readonly broker: ScheduleEnv, private readonly tickMs: number) {
    this.done = this.run();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = this.broker.clock.setTimeout(resolve, ms);
    });
  }

  private async run(): Promise<void> {
    let recovered = false;
    while (!this.stopped) {
      try {
        if (!recovered) {
          await this.scheduler.recover();
          recovered = true;
        }
        await this.scheduler.runOnce();
        // A backlog runs round after round, but lets the event loop serve requests in between.
        if (!this.scheduler.backlogged) await this.sleep(this.tickMs);
        else await new Promise((resolve) => setImmediate(resolve));
      } catch (err) {
        if (this.stopped) break;
        this.broker.logger.warn(`scheduler of ${this.scheduler.topic}-${this.scheduler.partition}: ${(err as Error).message}; recovering from its checkpoint in ${RETRY_MS} ms`);
        recovered = false;
        await this.sleep(RETRY_MS);
      }
    }
    if (recovered) await this.scheduler.checkpoint().catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.wake?.();
    await this.done;
  }
}

export class ScheduleManager {
  private readonly runners = new Map<string, Runner>();
  private timer: Timer | null = null;
  private stopped = false;
  private reconciling: Promise<void> = Promise.resolve();

  constructor(private readonly broker: ScheduleEnv, private readonly fs: Fs) {}

  start(): void {
    this.broker.replicaManager.on('leadershipChange', () => this.reconcileSoon());
    this.reconcileSoon();
  }

  /** The schedulers running here (the CLI and tests). */
  get schedulers(): PartitionScheduler[] {
    return [...this.runners.values()].map((r) => r.scheduler);
  }

  private reconcileSoon(): void {
    if (this.stopped) return;
    this.reconciling = this.reconciling.then(() => this.reconcile()).catch((err) => this.broker.logger.warn(`schedule topics: ${(err as Error).message}`));
    this.timer?.cancel();
    this.timer = this.broker.clock.setTimeout(() => this.reconcileSoon(), RECONCILE_INTERVAL_MS);
  }

  private async reconcile(): Promise<void> {
    if (this.stopped) return;
    const broker = this.broker;
    const wanted = new Map<string, { topic: string; partition: number; signature: string; delayMs: number; tickMs: number; target: string }>();
    for (const info of broker.metadataCache.topics.values()) {
      const target = info.configs[SCHEDULE_TARGET];
      if (!target) continue;
      const delayMs = Number(info.configs[SCHEDULE_DELAY_MS] ?? 0);
      const tickMs = Number(info.configs[SCHEDULE_TICK_MS] ?? 100);
      for (let p = 0; p < info.partitions; p++) {
        const partition = broker.replicaManager.getPartition(info.name, p);
        if (!partition?.isLeader) continue;
        wanted.set(`${info.name}\u0000${p}`, { topic: info.name, partition: p, signature: `${info.topicId}/${target}/${delayMs}/${tickMs}/${partition.leaderEpoch}`, delayMs, tickMs, target });
      }
    }
    for (const [key, r] of this.runners) {
      const w = wanted.get(key);
      if (!w || w.signature !== r.signature) {
        this.runners.delete(key);
        await r.stop();
      }
    }
    for (const [key, w] of wanted) {
      if (this.runners.has(key) || this.stopped) continue;
      const log = broker.replicaManager.getPartition(w.topic, w.partition)?.log;
      if (!log) continue;
      const scheduler = new PartitionScheduler({
        topic: w.topic, partition: w.partition, delayMs: w.delayMs, tickMs: w.tickMs, clock: broker.clock,
        source: this.source(w.topic, w.partition), target: this.target(w.target),
        checkpoints: fileCheckpoints(this.fs, () => path.join(log.dir, CHECKPOINT_FILE)),
      });
      this.runners.set(key, new Runner(scheduler, w.signature, broker, w.tickMs));
    }
  }

  private source(topic: string, partition: number): ScheduleSource {
    const broker = this.broker;
    const log = () => {
      const p = broker.replicaManager.getPartition(topic, partition);
      if (!p?.isLeader) throw new Error(`no longer the leader of ${topic}-${partition}`);
      return p.log;
    };
    return {
      read: async (offset, maxBytes, maxOffset) => (await log().read(offset, maxBytes, { minOneMessage: true, maxOffset })).records,
      abortedTransactions: (from, to) => log().collectAbortedTransactions(from, to),
      endOffset: () => log().lastStableOffset,
      logStartOffset: () => log().logStartOffset,
      partitions: () => broker.metadataCache.topic(topic)?.partitions ?? 0,
    };
  }

  /**
   * The target's partitions: appended to directly where this broker leads them, else sent to the
   * leader (Produce acks=-1, ListOffsets and Fetch through the inter-broker client pool).
   */
  private target(name: string): ScheduleTarget {
    const broker = this.broker;
    const local = (p: number) => {
      const part = broker.replicaManager.getPartition(name, p);
      return part?.isLeader ? part : null;
    };
    const remote = (p: number) => {
      const info = broker.metadataCache.topic(name);
      const leader = info ? broker.partitionState(info.topicId, p)?.leader ?? -1 : -1;
      const client = leader >= 0 && leader !== broker.nodeId ? broker.brokerClients.get(leader, 'scheduler') : null;
      if (!info || !client) throw new Error(`target partition ${name}-${p} has no reachable leader`);
      return { client, topicId: info.topicId };
    };
    const listOffset = async (p: number, timestamp: bigint): Promise<number> => {
      const { client } = remote(p);
      const res = await client.send(2, 7, { replicaId: -1, isolationLevel: 0, timeoutMs: 30_000, topics: [{ name, partitions: [{ partitionIndex: p, currentLeaderEpoch: -1, timestamp}] }] });
      const r = res.topics[0]?.partitions[0];
      if (!r || r.errorCode !== 0) throw new Error(`ListOffsets of ${name}-${p} at its leader: error ${r?.errorCode}`);
      return Number(r.offset);
    };
    return {
      partitions: () => broker.metadataCache.topic(name)?.partitions ?? 0,
      append: async (p, batch) => {
        const part = local(p);
        if (part) {
          await part.log.appendAsLeader(batch, part.leaderEpoch);
          return;
        }
        const { client } = remote(p);
        const res = await client.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 30_000, topicData: [{ name, topicId: ZERO_UUID, partitionData: [{ index: p, records: batch }] }] });
        const r = res.responses[0]?.partitionResponses[0];
        if (!r || r.errorCode !== 0) throw new Error(`Produce to ${name}-${p} at its leader: error ${r?.errorCode} ${r?.errorMessage ?? ''}`);
      },
      logStartOffset: (p) => local(p)?.log.logStartOffset ?? listOffset(p, -2n),
      logEndOffset: (p) => local(p)?.log.logEndOffset ?? listOffset(p, -1n),
      // A remote leader's log end (OffsetForLeaderEpoch of its current epoch), waited for until its
      // high watermark covers it (at most SETTLE_MS): a delivery the old scheduler appended there
      // but not yet committed must be seen by the recovery, or it would be sent twice.
      settledEndOffset: async (p) => {
        const part = local(p);
        if (part) return part.log.logEndOffset;
        const { client } = remote(p);
        const info = broker.metadataCache.topic(name)!;
        const epoch = broker.partitionState(info.topicId, p)?.leaderEpoch ?? -1;
        const res = await client.send(23, 4, { replicaId: -1, topics: [{ topic: name, partitions: [{ partition: p, currentLeaderEpoch: -1, leaderEpoch: epoch }] }] });
        const r = res.topics[0]?.partitions[0];
        const end = r && r.errorCode === 0 ? Number(r.endOffset) : -1;
        const until = broker.clock.now() + SETTLE_MS;
        for (;;) {
          const hw = await listOffset(p, -1n);
          if (hw >= end || broker.clock.now() >= until) return hw;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      },
      read: async (p, offset, maxBytes) => {
        const part = local(p);
        if (part) return (await part.log.read(offset, maxBytes, { minOneMessage: true, maxOffset: part.log.logEndOffset })).records;
        const { client, topicId } = remote(p);
        const res = await client.send(1, 12, {
          clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1n }, maxWaitMs: 0, minBytes: 0, maxBytes, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
          topics: [{ topic: name, topicId, partitions: [{ partition: p, currentLeaderEpoch: -1, fetchOffset: BigInt(offset), lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: maxBytes, replicaDirectoryId: 'AAAAAAAAAAAAAAAAAAAAAA', highWatermark: 0x7fffffffffffffffn }] }],
          forgottenTopicsData: [], rackId: '',
        });
        const r = res.responses[0]?.partitions[0];
        if (!r || r.errorCode !== 0) throw new Error(`Fetch of ${name}-${p} at its leader: error ${r?.errorCode}`);
        return r.records === null ? [] : Array.isArray(r.records) ? (r.records as Buffer[]) : [r.records as Buffer];
      },
      // A remote append was acknowledged by the ISR (acks=-1): nothing to flush here.
      flush: async (p) => { const part = local(p); if (part) await part.log.flushUpTo(part.log.logEndOffset); },
    };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    await this.reconciling;
    await Promise.all([...this.runners.values()].map((r) => r.stop()));
    this.runners.clear();
  }
}
