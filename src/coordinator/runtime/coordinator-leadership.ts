/**
 * Which shards a coordinator holds: those of the internal partitions this broker leads (Kafka's
 * onElection / onResignation), each loaded at the leader epoch it leads at.
 *
 * `reconcile()` is level-triggered, like the replica manager: it looks at every partition's role
 * now, loads the shards of newly led partitions (from their log, which a follower copy kept up to
 * date), reloads a shard whose partition was lost and led again in between (another leader may
 * have written meanwhile), and unloads the shards of partitions led elsewhere. Passes never
 * overlap; calls during a pass schedule one more. The broker calls it on every leadership change
 * of the internal topic.
 *
 * `check(p)` is the gate of every operation: NOT_COORDINATOR when another broker leads `p`,
 * COORDINATOR_LOAD_IN_PROGRESS while this broker leads it but its shard is not loaded at the
 * current epoch yet (a reconcile is then on its way), and also while this broker's metadata names
 * it the leader (or has not heard of the partition yet) but its replica has not taken the
 * leadership: a broker that answers FindCoordinator from a metadata cache a little ahead of this
 * one's may name this broker for a partition just created or moved here. Kafka answers
 * NOT_COORDINATOR in that window and its clients find the coordinator again; some (kafkajs's
 * sendOffsets, which retries a few times and finds the same broker) give up, while every client
 * waits and retries on COORDINATOR_LOAD_IN_PROGRESS.
 */
import { KafkaApiError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { CoordinatorLog } from './coordinator-log.js';
import type { CoordinatorRuntime, CoordinatorShard } from './runtime.js';

export interface CoordinatorPartitions {
  /** The leader epoch this broker leads the partition at, or null when it does not lead it. */
  ledEpoch(partition: number): number | null;
  /**
   * While ledEpoch is null: whether this broker's metadata names it the partition's leader or does
   * not know the partition yet (its replica is about to lead it, or may be). Absent: never.
   */
  awaitingLeadership?(partition: number): boolean;
  log(partition: number): CoordinatorLog;
}

export class CoordinatorLeadership<S extends CoordinatorShard<R>, R> {
  private pass: Promise<void> | null = null;
  private dirty = false;
  private count = 0;

  constructor(
    private readonly runtime: CoordinatorRuntime<S, R>,
    private readonly source: CoordinatorPartitions,
    private readonly logger: Logger,
    private readonly name: string,
  ) {}

  /** Follows `numPartitions` partitions from now on; resolves after the first pass. */
  start(numPartitions: number): Promise<void> {
    this.count = numPartitions;
    return this.reconcile();
  }

  /** Makes the loaded shards match the partitions led here now; resolves when that pass is done. */
  reconcile(): Promise<void> {
    this.dirty = true;
    if (!this.pass) {
      this.pass = (async () => {
        try {
          while (this.dirty) {
            this.dirty = false;
            await this.once();
          }
        } finally {
          this.pass = null;
        }
      })();
    }
    return this.pass;
  }

  private async once(): Promise<void> {
    const work: Promise<void>[] = [];
    for (let p = 0; p < this.count; p++) {
      const epoch = this.source.ledEpoch(p);
      const loaded = this.runtime.loadedEpoch(p);
      if (loaded !== null && loaded === epoch) continue;
      work.push((async () => {
        if (loaded !== null) {
          await this.runtime.unload(p);
          this.logger.info(`${this.name}: partition ${p} unloaded (${epoch === null ? 'led elsewhere now' : `reloading at leader epoch ${epoch}`})`);
        }
        if (epoch !== null) await this.runtime.load(p, this.source.log(p), epoch);
      })().catch(async (err) => {
        // Not left half-loaded: the next reconcile (the next request for it) tries again.
        this.logger.error(`${this.name}: partition ${p}: loading failed`, err);
        await this.runtime.unload(p).catch(() => undefined);
      }));
    }
    await Promise.all(work);
  }

  /** Throws unless the shard of `partition` is here at the epoch this broker leads it at now. */
  check(partition: number): void {
    const epoch = this.source.ledEpoch(partition);
    if (epoch === null) {
      if (!this.source.awaitingLeadership?.(partition)) throw new KafkaApiError(ErrorCode.NOT_COORDINATOR);
      void this.reconcile();
      throw new KafkaApiError(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    }
    if (this.runtime.loadedEpoch(partition) !== epoch) {
      void this.reconcile();
      throw new KafkaApiError(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    }
  }
}
