/**
 * ShareFetch (key 78), versions 1-2: records for a share group member (KIP-932), with the
 * acknowledgements of what it read before piggybacked.
 *
 * Behavior (Kafka's KafkaApis.handleShareFetchRequest / SharePartitionManager):
 * - The share session (coordinator/share/share-partition-manager.ts): epoch 0 opens one with the
 *   named partitions, epoch n+1 adds the named partitions and drops ForgottenTopicsData, -1
 *   applies the acknowledgements and closes it (releasing what the member still holds, no fetch).
 *   SHARE_SESSION_NOT_FOUND, INVALID_SHARE_SESSION_EPOCH, INVALID_REQUEST (acknowledgements on
 *   an opening request, no group or member id) at the top level.
 * - A share session ends with the connection it last fetched on: what the member holds is
 *   released at once (Kafka 4.4's ShareSessionCache.ClientConnectionDisconnectListener), so a
 *   consumer that dies gives its records back without waiting for their locks.
 * - Acknowledgements first (AcknowledgeErrorCode per partition: INVALID_RECORD_STATE for records
 *   the member does not hold), then acquisition over every partition of the session: each record
 *   handed out is locked to the member for share.record.lock.duration.ms (the answer's
 *   acquisition_lock_timeout_ms) and listed in AcquiredRecords with its delivery count; batches go
 *   out whole, as stored, and the client keeps only the acquired offsets.
 * - max_records bounds the records acquired (whole batches may exceed it, as in Kafka), max_bytes
 *   the bytes; when nothing can be acquired the answer waits up to max_wait_ms for appends. The
 *   session's partitions are served round-robin (Kafka's PartitionRotateStrategy: from the one at
 *   the session epoch modulo their number), so none starves behind a busy one.
 * - A partition this broker does not lead: NOT_LEADER_OR_FOLLOWER with current_leader and the
 *   leader's endpoint; unknown topic id: UNKNOWN_TOPIC_ID; READ on the group and on each topic.
 * Version notes: v1 stable (max_records, batch_size); v2 share_acquire_mode (KIP-1206:
 * batch_optimized 0 acquires whole batches, record_limit 1 at most max_records, splitting a batch)
 * and is_renew_ack (KIP-1222, accepted).
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { PartitionData, ShareFetchResponse } from '../../protocol/generated/messages/share-fetch-response.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';
import type { SharePartitionManager, ShareSession } from '../../coordinator/share/share-partition-manager.js';
import type { RequestContext } from '../request-context.js';
import { currentLeaderOf, LeaderEndpoints } from '../leader-hints.js';

const DEFAULT_MAX_RECORDS = 500;
/** ShareFetchRequest v2 share_acquire_mode: 0 batch_optimized, 1 record_limit (KIP-1206). */
const SHARE_ACQUIRE_RECORD_LIMIT = 1;
const NO_RECORDS = Buffer.alloc(0);

function failed(errorCode: number, errorMessage: string | null = null): ShareFetchResponse {
  return { throttleTimeMs: 0, errorCode, errorMessage, acquisitionLockTimeoutMs: 0, responses: [], nodeEndpoints: [] };
}

function partitionData(partitionIndex: number): PartitionData {
  return {
    partitionIndex, errorCode: ErrorCode.NONE, errorMessage: null, acknowledgeErrorCode: ErrorCode.NONE, acknowledgeErrorMessage: null,
    // An empty record set, not null: librdkafka rejects a null (-1) size as a parse failure.
    currentLeader: { leaderId: -1, leaderEpoch: -1 }, records: NO_RECORDS, acquiredRecords: [],
  };
}

/** The connection each share session last fetched on (Kafka's ShareSessionCache.connectionIdToSessionMap). */
const sessionConnection = new WeakMap<ShareSession, number>();

function closeWithConnection(mgr: SharePartitionManager, session: ShareSession, ctx: RequestContext): void {
  if (sessionConnection.get(session) === ctx.connectionId) return;
  const connectionId = ctx.connectionId;
  sessionConnection.set(session, connectionId);
  ctx.closed.addEventListener('abort', () => {
    // A broker stopping closes every connection: the state stays as persisted (acquired records
    // are available again when the share-partition is loaded next).
    if (sessionConnection.get(session) !== connectionId || ctx.broker.stopping) return;
    // A session opened again (epoch 0) is another object: leave that one alone.
    if (![...mgr.sessions.values()].includes(session)) return;
    mgr.closeSession(session, true).catch((err) => ctx.broker.logger.error(`share session ${session.groupId} ${session.memberId}: release on disconnect failed`, err));
  }, { once: true });
}

export const shareFetchHandler = defineHandler({
  apiKey: 78,
  async handle(ctx, req) {
    const broker = ctx.broker;
    const groupId = req.groupId;
    const memberId = req.memberId;
    if (groupId === null || groupId === '' || memberId === null || memberId === '') return failed(ErrorCode.INVALID_REQUEST);
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, groupId)) return failed(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    const hasAcks = req.topics.some((t) => t.partitions.some((p) => p.acknowledgementBatches.length > 0));
    if (req.shareSessionEpoch === 0 && hasAcks) return failed(ErrorCode.INVALID_REQUEST);
    const mgr = broker.sharePartitions;
    const session = mgr.session(groupId, memberId, req.shareSessionEpoch, req.topics.map((t) => ({ topicId: t.topicId, partitions: t.partitions.map((p) => p.partitionIndex) })), req.forgottenTopicsData);
    if (typeof session === 'number') return failed(session);
    if (req.shareSessionEpoch !== -1) closeWithConnection(mgr, session, ctx);
    const cfg = mgr.configOf(groupId);
    const out = new Map<string, Map<number, PartitionData>>();
    const slot = (topicId: string, partition: number) => {
      const t = out.get(topicId) ?? out.set(topicId, new Map()).get(topicId)!;
      return t.get(partition) ?? t.set(partition, partitionData(partition)).get(partition)!;
    };
    const readable = (topicId: string) => {
      const info = broker.metadataCache.topicById(topicId);
      return !info || authorize(ctx, AclOperation.READ, ResourceType.TOPIC, info.name);
    };
    let hints: LeaderEndpoints | null = null;
    const leaderHint = (d: PartitionData, topicId: string, partition: number) => {
      if (d.errorCode !== ErrorCode.NOT_LEADER_OR_FOLLOWER && d.acknowledgeErrorCode !== ErrorCode.NOT_LEADER_OR_FOLLOWER) return;
      d.currentLeader = currentLeaderOf(broker, topicId, partition);
      (hints ??= new LeaderEndpoints(broker, ctx.listenerName)).add(d.currentLeader.leaderId);
    };
    // Acknowledgements of what was read before.
    for (const t of req.topics) {
      for (const p of t.partitions) {
        if (p.acknowledgementBatches.length === 0) continue;
        const d = slot(t.topicId, p.partitionIndex);
        d.acknowledgeErrorCode = readable(t.topicId)
          ? await mgr.acknowledge(groupId, memberId, t.topicId, p.partitionIndex, p.acknowledgementBatches)
          : ErrorCode.TOPIC_AUTHORIZATION_FAILED;
        leaderHint(d, t.topicId, p.partitionIndex);
      }
    }
    if (req.shareSessionEpoch === -1) {
      await mgr.closeSession(session);
    } else {
      // Acquisition over the whole session, waiting for appends while nothing can be had.
      const deadline = broker.clock.now() + Math.max(0, req.maxWaitMs);
      // A budget of 0 acquires nothing (as Kafka 4.4 answers it), rather than one record.
      const maxBytes = Math.max(0, Math.min(req.maxBytes, broker.config.fetchMaxBytes));
      const maxRecords = req.maxRecords > 0 ? req.maxRecords : DEFAULT_MAX_RECORDS;
      // Kafka's PartitionRotateStrategy.ROUND_ROBIN: the session's partitions from the one at the
      // session epoch (modulo their number) on, so one whose records fill max_records on every
      // fetch does not starve those after it.
      const all = [...session.partitions].flatMap(([topicId, ps]) => [...ps].map((partition) => ({ topicId, partition })));
      const rotateAt = all.length > 1 && req.shareSessionEpoch > 0 ? req.shareSessionEpoch % all.length : 0;
      const partitions = rotateAt > 0 ? [...all.slice(rotateAt), ...all.slice(0, rotateAt)] : all;
      for (;;) {
        const watched = partitions.map(({ topicId, partition }) => ({ topic: '', topicId, partitions: [{ partition }] }));
        const wake = broker.appendSignal({ topics: watched }, true);
        let records = 0;
        let bytes = 0;
        for (const { topicId, partition } of partitions) {
          const d = slot(topicId, partition);
          if (!readable(topicId)) { d.errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED; continue; }
          if (records >= maxRecords || bytes >= maxBytes) continue;
          const r = await mgr.acquire(groupId, memberId, topicId, partition, maxRecords - records, maxBytes - bytes, req.shareAcquireMode === SHARE_ACQUIRE_RECORD_LIMIT);
          d.errorCode = r.errorCode;
          leaderHint(d, topicId, partition);
          if (r.acquired.length > 0) {
            d.records = r.records;
            d.acquiredRecords = r.acquired;
            for (const a of r.acquired) records += Number(a.lastOffset - a.firstOffset) + 1;
            bytes += r.bytes;
          }
        }
        const remaining = deadline - broker.clock.now();
        const anyError = [...out.values()].some((m) => [...m.values()].some((d) => d.errorCode !== ErrorCode.NONE));
        if (records > 0 || remaining <= 0 || anyError || partitions.length === 0 || broker.stopping) break;
        // Woken by an append, or by the manager when records may be acquirable again (a release,
        // an expired lock, freed lock slots); a redelivery backoff ending does not signal, so
        // look again at least every 250 ms.
        if (ctx.closed.aborted) break;
        // One signal ends the wait: the connection closing or the manager's wake-up.
        const woken = new AbortController();
        const wakeUp = () => woken.abort();
        ctx.closed.addEventListener('abort', wakeUp);
        const stopWatch = mgr.onAvailable(groupId, partitions, wakeUp);
        try {
          await wake.wait(Math.min(remaining, 250), woken.signal);
        } finally {
          stopWatch();
          ctx.closed.removeEventListener('abort', wakeUp);
        }
        if (ctx.closed.aborted) break;
      }
    }
    const responses: ShareFetchResponse['responses'] = [...out].map(([topicId, ps]) => ({ topicId, partitions: [...ps.values()] }));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, acquisitionLockTimeoutMs: cfg.recordLockDurationMs, responses, nodeEndpoints: (hints as LeaderEndpoints | null)?.list() ?? [] };
  },
  errorResponse(_req, errorCode) {
    return failed(errorCode);
  },
});
