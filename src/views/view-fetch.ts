/**
 * The read side of a view for the Fetch and ListOffsets handlers: the source partition's log
 * (same index) and the compiled filter. Leadership and leader epochs of the view's own
 * partition are checked by the handler as for any topic; the source partition must be led here
 * too (on one node it always is; on a cluster a view whose leader differs from its source's
 * answers NOT_LEADER_OR_FOLLOWER, see docs/gaps.md).
 */
import { KafkaApiError } from '../errors.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { PartitionLog } from '../storage/partition-log.js';
import type { HeaderFilter } from './filter.js';
import { filterBatches } from './view-batches.js';
import { VIEW_SOURCE, viewFilter, viewSource } from './views.js';

export interface ViewRead {
  /** The source partition's log: offsets, high watermark, LSO and batches come from it. */
  log: PartitionLog;
  filter: HeaderFilter | null;
}

/** What a view's read needs of the broker: the source topic, and the partition it leads. */
export interface ViewSources {
  readonly metadataCache: { topic(name: string): { name: string; partitions: number } | undefined };
  readonly replicaManager: { getPartition(topic: string, partition: number): { isLeader: boolean; log: PartitionLog } | undefined };
}

/** The source log and filter of partition `index` of view `info`, or an error code for the partition. */
export function viewRead(broker: ViewSources, info: { configs: Record<string, string> }, index: number): ViewRead | number {
  const source = broker.metadataCache.topic(viewSource(info));
  if (!source || index >= source.partitions) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
  const partition = broker.replicaManager.getPartition(source.name, index);
  if (!partition || !partition.isLeader) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
  return { log: partition.log, filter: viewFilter(info) };
}

/** The filtered form of a read (whole batches); malformed records fail the partition with CORRUPT_MESSAGE. */
export function viewRecords<R extends { records: Buffer[] }>(read: R, filter: HeaderFilter | null): R {
  try {
    return { ...read, records: filterBatches(read.records, filter) };
  } catch (err) {
    if (err instanceof KafkaApiError) throw err;
    throw new KafkaApiError(ErrorCode.CORRUPT_MESSAGE, `a batch of the view's source could not be filtered: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * The data path's read-through of a view (replication/fetch-messages.ts FetchHooks): a consumer's
 * fetch of a view reads its source's partition of the same index, filtered; null for a topic that
 * is not a view. One property test per partition on the plain path.
 */
export function viewReadThrough(topic: { configs: Record<string, string> }): { source: string; transform: (records: Buffer[]) => Buffer[] } | null {
  const source = topic.configs[VIEW_SOURCE];
  if (source === undefined) return null;
  const filter = viewFilter(topic);
  return { source, transform: (records) => viewRecords({ records }, filter).records };
}
