/**
 * The durable SharePersister (Kafka's DefaultStatePersister + PersisterStateManager): a
 * share-partition leader's reads and writes become the share coordinator's requests
 * (InitializeShareGroupState, ReadShareGroupState, WriteShareGroupState, DeleteShareGroupState,
 * ReadShareGroupStateSummary) for the coordinator of "group:topicId:partition". A channel
 * (state-channel.ts) delivers them: in process when this broker leads the state partition (always
 * on a single node), over the wire to the leader otherwise.
 *
 * Mapping of the SharePersister calls onto Kafka 4.4's rules, which refuse reads and writes of a
 * share-partition nobody initialised:
 * - read: ReadShareGroupState at the caller's leader epoch (which the coordinator records,
 *   fencing older leaders' writes); without one, at the leader epoch ReadShareGroupStateSummary
 *   reports. An uninitialised share-partition reads as null.
 * - write: WriteShareGroupState at the known state epoch. A share-partition not initialised yet,
 *   or a write carrying a newer state epoch (a reset), is first initialised
 *   (InitializeShareGroupState: that state epoch and start offset, no batches), then written.
 * - delete: DeleteShareGroupState (tombstones).
 * Retriable coordinator errors (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS,
 * COORDINATOR_NOT_AVAILABLE, a broken connection) are retried with backoff until
 * `retryTimeoutMs`; any other error is thrown as a KafkaApiError with Kafka's code and message.
 */
import { KafkaApiError } from '../../errors.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { PersistedShareState, PersistedStateBatch, SharePersister, ShareStateKey } from '../share/persister.js';
import { MESSAGES } from './share-shard.js';
import type { ShareStateChannel } from './state-channel.js';

const RETRIABLE = new Set<number>([ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NETWORK_EXCEPTION, ErrorCode.REQUEST_TIMED_OUT]);
const BACKOFF_MS = 50;
const MAX_BACKOFF_MS = 1000;

export interface ShareStateSummary {
  stateEpoch: number;
  leaderEpoch: number;
  startOffset: number;
  deliveryCompleteCount: number;
}

interface PartitionAnswer {
  errorCode: number;
  errorMessage: string | null;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class CoordinatorPersister implements SharePersister {
  /** The state epoch last seen per share-partition, so a write need not ask for it. */
  private readonly stateEpochs = new Map<string, number>();
  /** The newest leader epoch this persister read or wrote at, per share-partition. */
  private readonly leaderEpochs = new Map<string, number>();

  /**
   * `currentLeaderEpoch`: the data partition's leader epoch now (the broker's metadata), used by a
   * read that names none; it is never older than what the coordinator fences at.
   */
  constructor(
    private readonly channel: ShareStateChannel,
    private readonly retryTimeoutMs = 30_000,
    private readonly currentLeaderEpoch: (key: ShareStateKey) => number | null = () => null,
  ) {}

  private static id(k: ShareStateKey): string {
    return `${k.groupId}:${k.topicId}:${k.partition}`;
  }

  /** Sends until the answer is not a retriable coordinator error (or the retry time is over). */
  private async call<T extends PartitionAnswer>(send: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.retryTimeoutMs;
    for (let attempt = 0; ; attempt++) {
      let answer: T;
      try {
        answer = await send();
      } catch (e) {
        const code = e instanceof KafkaApiError ? e.errorCode : ErrorCode.NETWORK_EXCEPTION;
        if (!RETRIABLE.has(code) || Date.now() >= deadline) throw e;
        await sleep(Math.min(MAX_BACKOFF_MS, BACKOFF_MS * 2 ** attempt));
        continue;
      }
      if (!RETRIABLE.has(answer.errorCode) || Date.now() >= deadline) return answer;
      await sleep(Math.min(MAX_BACKOFF_MS, BACKOFF_MS * 2 ** attempt));
    }
  }

  private static fail(a: PartitionAnswer): never {
    throw new KafkaApiError(a.errorCode, a.errorMessage ?? undefined);
  }

  private static uninitialized(a: PartitionAnswer, message: string): boolean {
    return a.errorCode === ErrorCode.INVALID_REQUEST && a.errorMessage === message;
  }

  async read(key: ShareStateKey, leaderEpoch?: number): Promise<PersistedShareState | null> {
    let epoch = leaderEpoch;
    if (epoch === undefined) {
      const s = await this.readSummary(key);
      if (s === null) return null;
      // A new state (InitializeShareGroupState) reports leader epoch 0 while the coordinator still
      // fences below the newest epoch it saw: prefer the partition's current leader epoch, or the
      // newest epoch this persister used.
      epoch = Math.max(s.leaderEpoch, this.leaderEpochs.get(CoordinatorPersister.id(key)) ?? 0, this.currentLeaderEpoch(key) ?? 0);
    }
    const r = await this.call(async () => {
      const res = await this.channel.readState(key, { groupId: key.groupId, topics: [{ topicId: key.topicId, partitions: [{ partition: key.partition, leaderEpoch: epoch! }] }] });
      return res.results[0]?.partitions[0] ?? { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: null, stateEpoch: 0, startOffset: 0n, stateBatches: [] };
    });
    if (CoordinatorPersister.uninitialized(r, MESSAGES.READ_UNINITIALIZED_SHARE_PARTITION)) return null;
    if (r.errorCode !== ErrorCode.NONE) CoordinatorPersister.fail(r);
    this.stateEpochs.set(CoordinatorPersister.id(key), r.stateEpoch);
    this.leaderEpochs.set(CoordinatorPersister.id(key), epoch);
    return {
      stateEpoch: r.stateEpoch,
      leaderEpoch: epoch,
      startOffset: Number(r.startOffset),
      stateBatches: r.stateBatches.map((b) => ({ firstOffset: Number(b.firstOffset), lastOffset: Number(b.lastOffset), deliveryState: b.deliveryState, deliveryCount: b.deliveryCount })),
    };
  }

  /** ReadShareGroupStateSummary; null for a share-partition never initialised. */
  async readSummary(key: ShareStateKey): Promise<ShareStateSummary | null> {
    const r = await this.call(async () => {
      const res = await this.channel.readStateSummary(key, { groupId: key.groupId, topics: [{ topicId: key.topicId, partitions: [{ partition: key.partition, leaderEpoch: 0 }] }] });
      return res.results[0]?.partitions[0] ?? { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: null, stateEpoch: 0, leaderEpoch: 0, startOffset: 0n, deliveryCompleteCount: 0 };
    });
    if (r.errorCode !== ErrorCode.NONE) CoordinatorPersister.fail(r);
    // Kafka's answer for an unknown share-partition: start offset and delivery-complete count -1, epochs 0.
    if (r.startOffset === -1n && r.deliveryCompleteCount === -1 && r.stateEpoch === 0 && r.leaderEpoch === 0) return null;
    this.stateEpochs.set(CoordinatorPersister.id(key), r.stateEpoch);
    return { stateEpoch: r.stateEpoch, leaderEpoch: r.leaderEpoch, startOffset: Number(r.startOffset), deliveryCompleteCount: r.deliveryCompleteCount };
  }

  /** InitializeShareGroupState: a fresh state at `stateEpoch` starting at `startOffset`. */
  async initialize(key: ShareStateKey, stateEpoch: number, startOffset: number): Promise<void> {
    const r = await this.call(async () => {
      const res = await this.channel.initializeState(key, { groupId: key.groupId, topics: [{ topicId: key.topicId, partitions: [{ partition: key.partition, stateEpoch, startOffset: BigInt(startOffset) }] }] });
      return res.results[0]?.partitions[0] ?? { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: null };
    });
    if (r.errorCode !== ErrorCode.NONE) CoordinatorPersister.fail(r);
    this.stateEpochs.set(CoordinatorPersister.id(key), stateEpoch);
  }

  async write(key: ShareStateKey, change: { stateEpoch?: number; leaderEpoch: number; startOffset: number; stateBatches: PersistedStateBatch[]; deliveryCompleteCount?: number }): Promise<void> {
    const id = CoordinatorPersister.id(key);
    let known = this.stateEpochs.get(id);
    if (known === undefined) {
      const s = await this.readSummary(key);
      if (s === null) {
        await this.initialize(key, change.stateEpoch ?? 0, change.startOffset);
        known = change.stateEpoch ?? 0;
      } else known = s.stateEpoch;
    }
    if (change.stateEpoch !== undefined && change.stateEpoch > known) {
      await this.initialize(key, change.stateEpoch, change.startOffset);
      known = change.stateEpoch;
    }
    // A caller's older state epoch is sent as it is: the coordinator fences it (FENCED_STATE_EPOCH).
    const stateEpoch = change.stateEpoch ?? known;
    const send = () => this.call(async () => {
      const res = await this.channel.writeState(key, {
        groupId: key.groupId,
        topics: [{
          topicId: key.topicId,
          partitions: [{
            partition: key.partition, stateEpoch, leaderEpoch: change.leaderEpoch, startOffset: BigInt(change.startOffset),
            deliveryCompleteCount: change.deliveryCompleteCount ?? -1,
            stateBatches: change.stateBatches.map((b) => ({ firstOffset: BigInt(b.firstOffset), lastOffset: BigInt(b.lastOffset), deliveryState: b.deliveryState, deliveryCount: b.deliveryCount })),
          }],
        }],
      });
      return res.results[0]?.partitions[0] ?? { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: null };
    });
    let r = await send();
    if (CoordinatorPersister.uninitialized(r, MESSAGES.WRITE_UNINITIALIZED_SHARE_PARTITION)) {
      // Deleted meanwhile (or by another broker): start again from this write.
      await this.initialize(key, stateEpoch, change.startOffset);
      r = await send();
    }
    if (r.errorCode !== ErrorCode.NONE) {
      if (r.errorCode === ErrorCode.FENCED_STATE_EPOCH) this.stateEpochs.delete(id);
      CoordinatorPersister.fail(r);
    }
    if (change.leaderEpoch > (this.leaderEpochs.get(id) ?? -1)) this.leaderEpochs.set(id, change.leaderEpoch);
  }

  async delete(keys: ShareStateKey[]): Promise<void> {
    for (const key of keys) {
      const r = await this.call(async () => {
        const res = await this.channel.deleteState(key, { groupId: key.groupId, topics: [{ topicId: key.topicId, partitions: [{ partition: key.partition }] }] });
        return res.results[0]?.partitions[0] ?? { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: null };
      });
      this.stateEpochs.delete(CoordinatorPersister.id(key));
      this.leaderEpochs.delete(CoordinatorPersister.id(key));
      if (r.errorCode !== ErrorCode.NONE) CoordinatorPersister.fail(r);
    }
  }
}
