/**
 * Samsa's own topic features on the data path, behind the hook interfaces the replica manager
 * owns (replication/fetch-messages.ts FetchHooks, replication/append-records.ts AppendHooks), so
 * Produce and Fetch carry no special case for them:
 * - views (src/views/, samsa.view.source): read-only, and a consumer's fetch reads the source's
 *   partition of the same index, filtered on headers;
 * - retired partitions (cluster/partition-retirement.ts, samsa.partitions.keep): keyless batches
 *   NOT_LEADER_OR_FOLLOWER without a leader hint (the client refreshes metadata and picks another
 *   partition), batches with a keyed record INVALID_RECORD naming the retirement, each keyed
 *   record in record_errors;
 * - schedule topics (src/schedule/, samsa.schedule.target): a record whose samsa-deliver-at header
 *   is not decimal epoch ms fails the batch with INVALID_RECORD and its index, nothing stored.
 * Each hook is one property test on a topic without the feature.
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { PARTITIONS_KEEP, isRetired, keyedRecords, retiredFrom, retiredMessage } from '../cluster/partition-retirement.js';
import { appendFailed, type AppendHooks, type AppendResult } from '../replication/append-records.js';
import type { FetchHooks } from '../replication/fetch-messages.js';
import { VIEW_SOURCE, viewProduceError } from '../views/views.js';
import { viewReadThrough } from '../views/view-fetch.js';
import { SCHEDULE_TARGET, checkDeliverAtHeaders } from '../schedule/deliver-at.js';

const BATCH_HEADER_BYTES = 61;

function retiredAnswer(topic: string, index: number, info: { partitions: number; configs: Record<string, string> }, records: unknown): AppendResult {
  const keep = retiredFrom(info);
  const keyed = Buffer.isBuffer(records) && records.length >= BATCH_HEADER_BYTES ? keyedRecords(records) : [];
  if (keyed.length === 0) return appendFailed(ErrorCode.NOT_LEADER_OR_FOLLOWER, retiredMessage(topic, index, keep, false));
  const message = retiredMessage(topic, index, keep, true);
  return { ...appendFailed(ErrorCode.INVALID_RECORD, message), recordErrors: keyed.map((batchIndex) => ({ batchIndex, message })) };
}

export const topicFeatures: FetchHooks & AppendHooks = {
  readThrough: viewReadThrough,
  refuseTopic(topic) {
    if (topic.configs[VIEW_SOURCE] === undefined) return null;
    const e = viewProduceError(topic);
    return appendFailed(e.errorCode, e.message);
  },
  refusePartition(topic, partition, records) {
    if (topic.configs[PARTITIONS_KEEP] === undefined || !isRetired(topic, partition)) return null;
    return retiredAnswer(topic.name, partition, topic, records);
  },
  checkBatch(topic, records) {
    if (topic.configs[SCHEDULE_TARGET] === undefined) return null;
    const bad = checkDeliverAtHeaders(records);
    return bad && { ...appendFailed(ErrorCode.INVALID_RECORD, bad.message), recordErrors: [{ batchIndex: bad.batchIndex, message: bad.message }] };
  },
};
