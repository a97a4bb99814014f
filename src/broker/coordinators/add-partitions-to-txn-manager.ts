/**
 * Asks a transactional id's coordinator about a partition before a transactional write lands
 * there (Kafka's AddPartitionsToTxnManager, KIP-890):
 *
 * - `verify` (transactions V1, transaction.partition.verification.enable): is the partition
 *   already in the producer's ongoing transaction?
 * - `add` (transactions V2: Produce v12+, TxnOffsetCommit v5): add it to the transaction, as the
 *   client no longer sends AddPartitionsToTxn / AddOffsetsToTxn.
 *
 * The coordinator is the leader of the id's `__transaction_state` partition. When that is this
 * broker, its TxnCoordinator answers directly; otherwise the questions for one broker are
 * gathered into one AddPartitionsToTxn v5 (the broker form: several transactions, VerifyOnly per
 * transaction), one request in flight per broker, and what arrives meanwhile goes in the next.
 * The calls of one id, producer and epoch in the same request are merged (several partitions of a
 * produce); a call for the same id with another producer or epoch follows Kafka's rule: the lower
 * epoch is answered INVALID_PRODUCER_EPOCH, the same epoch NETWORK_EXCEPTION for the older call.
 *
 * An `add` that meets the previous transaction still writing its markers (CONCURRENT_TRANSACTIONS:
 * a V2 producer starts its next transaction as soon as EndTxn answers) is asked again every 20 ms
 * for up to 1 s (Kafka's add.partitions.to.txn.retry.backoff.ms and .max.ms are 20 and 100;
 * Samsa's markers wait for the ISR, so it waits longer).
 *
 * Answers, per partition: NONE, INVALID_TXN_STATE (not in the transaction; the produce path turns
 * it into TRANSACTION_ABORTABLE for new clients), INVALID_PRODUCER_ID_MAPPING,
 * INVALID_PRODUCER_EPOCH (Kafka turns PRODUCER_FENCED into it: producers expect it here), or a
 * retriable CONCURRENT_TRANSACTIONS / NOT_COORDINATOR / COORDINATOR_NOT_AVAILABLE /
 * COORDINATOR_LOAD_IN_PROGRESS / NETWORK_EXCEPTION, which the caller maps for its clients.
 *
 * State: `pending` and `inFlight` belong to the event loop; a transaction's own state is read and
 * changed only in its coordinator shard's queue (TxnCoordinator), on whichever broker leads it.
 */
import type { Clock, Timer } from '../../clock.js';
import type { Logger } from '../../logger.js';
import { KafkaApiError } from '../../errors.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { BrokerConnectionError, type BrokerClient } from '../../replication/broker-client.js';

export type TxnPartitionOperation = 'verify' | 'add';

/** The retriable answers (the coordinator busy, moving or out of reach), which callers map for their clients. */
export const RETRIABLE_TXN_ANSWERS: ReadonlySet<number> = new Set<number>([
  ErrorCode.CONCURRENT_TRANSACTIONS, ErrorCode.NETWORK_EXCEPTION, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR,
]);

/** The local coordinator's two single-attempt answers (TxnCoordinator). */
export interface LocalTxnCoordinator {
  verifyPartitions(transactionalId: string, producerId: number, epoch: number, partitions: readonly TxnPartition[]): Promise<number[]>;
  addPartitions(transactionalId: string, producerId: number, epoch: number, partitions: readonly TxnPartition[], fencedCode: number, tv2: boolean): Promise<number>;
}

export interface TxnPartition {
  topic: string;
  partition: number;
}

export interface AddPartitionsToTxnManagerDeps {
  nodeId: number;
  clock: Clock;
  logger: Logger;
  coordinator: LocalTxnCoordinator;
  /** The broker leading the id's __transaction_state partition, or null when none (or no topic). */
  coordinatorOf(transactionalId: string): number | null;
  /** A connection to another broker (inter-broker listener), or null when it is not known. */
  client(nodeId: number): BrokerClient | null;
}

const ADD_RETRY_MS = 20;
const ADD_MAX_WAIT_MS = 1000;
/** How long an AddPartitionsToTxn to another broker may take (Kafka: request.timeout.ms). */
const REQUEST_TIMEOUT_MS = 30_000;

interface PendingTxn {
  producerId: number;
  epoch: number;
  op: TxnPartitionOperation;
  partitions: TxnPartition[];
  resolve: ((code: number) => void)[];
}

export class AddPartitionsToTxnManager {
  /** Per coordinator broker: the questions waiting for the next request, by transactional id. */
  private readonly pending = new Map<number, Map<string, PendingTxn>>();
  private readonly inFlight = new Set<number>();
  private readonly timers = new Set<Timer>();
  private closed = false;

  constructor(private readonly deps: AddPartitionsToTxnManagerDeps) {}

  /** One partition's verification or implicit add; resolves with its code (see the file comment). */
  async addOrVerify(transactionalId: string, producerId: number, epoch: number, tp: TxnPartition, op: TxnPartitionOperation): Promise<number> {
    const deadline = this.deps.clock.now() + ADD_MAX_WAIT_MS;
    for (;;) {
      const code = await this.once(transactionalId, producerId, epoch, tp, op);
      if (op !== 'add' || code !== ErrorCode.CONCURRENT_TRANSACTIONS || this.closed || this.deps.clock.now() >= deadline) return code;
      await new Promise<void>((resolve) => {
        const t = this.deps.clock.setTimeout(() => { this.timers.delete(t); resolve(); }, ADD_RETRY_MS);
        this.timers.add(t);
      });
    }
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) t.cancel();
    this.timers.clear();
    for (const byId of this.pending.values()) for (const p of byId.values()) for (const r of p.resolve) r(ErrorCode.NETWORK_EXCEPTION);
    this.pending.clear();
  }

  private async once(transactionalId: string, producerId: number, epoch: number, tp: TxnPartition, op: TxnPartitionOperation): Promise<number> {
    if (transactionalId === '') return ErrorCode.INVALID_REQUEST;
    const node = this.deps.coordinatorOf(transactionalId);
    if (node === null) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (node === this.deps.nodeId) return this.askLocal(transactionalId, producerId, epoch, tp, op);
    return new Promise<number>((resolve) => this.enqueue(node, transactionalId, { producerId, epoch, op, partitions: [tp], resolve: [resolve] }));
  }

  private async askLocal(transactionalId: string, producerId: number, epoch: number, tp: TxnPartition, op: TxnPartitionOperation): Promise<number> {
    try {
      if (op === 'add') return await this.deps.coordinator.addPartitions(transactionalId, producerId, epoch, [tp], ErrorCode.INVALID_PRODUCER_EPOCH, true);
      return (await this.deps.coordinator.verifyPartitions(transactionalId, producerId, epoch, [tp]))[0];
    } catch (err) {
      if (err instanceof KafkaApiError) return err.errorCode;
      throw err;
    }
  }

  private enqueue(node: number, transactionalId: string, incoming: PendingTxn): void {
    if (this.closed) {
      for (const r of incoming.resolve) r(ErrorCode.NETWORK_EXCEPTION);
      return;
    }
    let byId = this.pending.get(node);
    if (!byId) this.pending.set(node, (byId = new Map()));
    const existing = byId.get(transactionalId);
    if (existing) {
      if (existing.producerId === incoming.producerId && existing.epoch === incoming.epoch && existing.op === incoming.op) {
        existing.partitions.push(...incoming.partitions);
        existing.resolve.push(...incoming.resolve);
        return;
      }
      if (incoming.epoch < existing.epoch) {
        for (const r of incoming.resolve) r(ErrorCode.INVALID_PRODUCER_EPOCH);
        return;
      }
      const code = existing.epoch < incoming.epoch ? ErrorCode.INVALID_PRODUCER_EPOCH : ErrorCode.NETWORK_EXCEPTION;
      for (const r of existing.resolve) r(code);
    }
    byId.set(transactionalId, incoming);
    // The questions of this turn of the event loop go together; later ones wait for the answer.
    if (!this.inFlight.has(node) && byId.size === 1 && !existing) (this.deps.clock.afterPendingIo ?? setImmediate)(() => this.send(node));
  }

  private send(node: number): void {
    const byId = this.pending.get(node);
    if (this.inFlight.has(node) || !byId || byId.size === 0) return;
    this.pending.delete(node);
    this.inFlight.add(node);
    void this.request(node, byId).finally(() => {
      this.inFlight.delete(node);
      this.send(node);
    });
  }

  private async request(node: number, byId: Map<string, PendingTxn>): Promise<void> {
    const txns = [...byId];
    const finishAll = (code: number) => {
      for (const [, t] of txns) for (const r of t.resolve) r(code);
    };
    const client = this.deps.client(node);
    if (!client) return finishAll(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    try {
      const r = await client.send(24, 5, {
        transactions: txns.map(([transactionalId, t]) => ({
          transactionalId, producerId: BigInt(t.producerId), producerEpoch: t.epoch, verifyOnly: t.op === 'verify',
          topics: groupByTopic(t.partitions),
        })),
        v3AndBelowTransactionalId: '', v3AndBelowProducerId: 0n, v3AndBelowProducerEpoch: 0, v3AndBelowTopics: [],
      }, REQUEST_TIMEOUT_MS);
      // The whole request refused (CLUSTER_AUTHORIZATION_FAILED: not worth telling the client).
      if (r.errorCode !== ErrorCode.NONE) return finishAll(r.errorCode === ErrorCode.CLUSTER_AUTHORIZATION_FAILED ? ErrorCode.INVALID_TXN_STATE : r.errorCode);
      const results = new Map(r.resultsByTransaction.map((t) => [t.transactionalId, t]));
      for (const [transactionalId, t] of txns) {
        const codes = new Map<string, number>();
        for (const topic of results.get(transactionalId)?.topicResults ?? []) {
          for (const p of topic.resultsByPartition) codes.set(`${topic.name}\u0000${p.partitionIndex}`, p.partitionErrorCode);
        }
        t.partitions.forEach((tp, i) => t.resolve[i](fromCoordinator(codes.get(`${tp.topic}\u0000${tp.partition}`) ?? ErrorCode.UNKNOWN_SERVER_ERROR)));
      }
    } catch (err) {
      if (!(err instanceof BrokerConnectionError)) this.deps.logger.error(`AddPartitionsToTxn to broker ${node} failed`, err);
      finishAll(ErrorCode.NETWORK_EXCEPTION);
    }
  }
}

/** A coordinator's per-partition answer as the partition leader passes it on (Kafka's handler). */
function fromCoordinator(code: number): number {
  if (code === ErrorCode.PRODUCER_FENCED) return ErrorCode.INVALID_PRODUCER_EPOCH;
  if (code === ErrorCode.TRANSACTION_ABORTABLE) return ErrorCode.INVALID_TXN_STATE;
  return code;
}

function groupByTopic(partitions: readonly TxnPartition[]): { name: string; partitions: number[] }[] {
  const byTopic = new Map<string, number[]>();
  for (const { topic, partition } of partitions) {
    let list = byTopic.get(topic);
    if (!list) byTopic.set(topic, (list = []));
    if (!list.includes(partition)) list.push(partition);
  }
  return [...byTopic].map(([name, ps]) => ({ name, partitions: ps }));
}
