/**
 * CreatePartitions (key 37), versions 0-3.
 *
 * Behavior (Kafka's ControllerApis.createPartitions + ReplicationControlManager.createPartitions):
 * - A topic listed twice: one INVALID_REQUEST "Duplicate topic name." and nothing done for it.
 * - Unknown topic: UNKNOWN_TOPIC_OR_PARTITION (no message).
 * - count == current: INVALID_PARTITIONS "Topic already has N partition(s)."; count < current:
 *   INVALID_PARTITIONS "The topic T currently has N partition(s); M would not be an increase."
 * - assignments (when not null) must number exactly the partitions added: else
 *   INVALID_REPLICA_ASSIGNMENT "Attempted to add X additional partition(s), but only Y
 *   assignment(s) were specified."; each must name registered brokers, with the topic's replica
 *   count (validateManualPartitionAssignment messages, see CreateTopics). Without assignments the
 *   controller places the new partitions like the first ones (rack-aware); a broker that is not
 *   the controller forwards the topic to it.
 * - validate_only: the same checks and answers, no partition created.
 * - timeout_ms is not waited on: the new partitions exist when the answer leaves.
 * Version notes: v1 same as v0; v2 flexible; v3 same as v2 (throttling behaviour only).
 */
import { KafkaApiError } from '../../errors.js';
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { CreatePartitionsTopicResult } from '../../protocol/generated/messages/create-partitions-response.js';
import { apiErrorMessage } from '../topic-configs.js';
import { checkReplicaList } from './019-create-topics.js';
import { isForwarded } from '../controller-channel.js';
import { AclOperation, authorizeTopic } from './auth-helper.js';
import { mutationQuota, THROTTLING_QUOTA_EXCEEDED_MESSAGE } from '../../security/quotas.js';

export const createPartitionsHandler = defineHandler({
  apiKey: 37,
  async handle(ctx, req) {
    const broker = ctx.broker;
    const counts = new Map<string, number>();
    for (const t of req.topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
    const done = new Set<string>();
    const results: CreatePartitionsTopicResult[] = [];
    // controller_mutation_rate: strict from v3.
    const quota = mutationQuota(ctx, ctx.apiVersion >= 3, req.validateOnly || isForwarded(ctx.clientId));
    for (const t of req.topics) {
      if (done.has(t.name)) continue;
      done.add(t.name);
      if (counts.get(t.name)! > 1) {
        results.push({ name: t.name, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Duplicate topic name.' });
        continue;
      }
      // ACLs: ALTER on the topic (ALTER on the cluster does not cover it, unlike DeleteTopics' DELETE).
      if (!authorizeTopic(ctx, AclOperation.ALTER, t.name)) {
        results.push({ name: t.name, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: null });
        continue;
      }
      try {
        // Existence and count checks (Kafka's order), without creating anything yet.
        await broker.createPartitions(t.name, t.count, true);
        const info = broker.metadataCache.topic(t.name)!;
        if (t.assignments !== null) {
          const additional = t.count - info.partitions;
          if (t.assignments.length !== additional) {
            throw new KafkaApiError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
              `Attempted to add ${additional} additional partition(s), but only ${t.assignments.length} assignment(s) were specified.`);
          }
          for (const a of t.assignments) checkReplicaList(a.brokerIds, (id) => broker.isRegisteredBroker(id), info.replicationFactor);
        }
        const assignments = t.assignments?.map((a) => [...a.brokerIds]) ?? null;
        if (!quota.admit(t.count - info.partitions)) {
          results.push({ name: t.name, errorCode: ErrorCode.THROTTLING_QUOTA_EXCEEDED, errorMessage: THROTTLING_QUOTA_EXCEEDED_MESSAGE });
          continue;
        }
        // The controller places (or takes the assignments), writes, and this broker waits to see it.
        if (!req.validateOnly) await broker.createPartitions(t.name, t.count, false, { assignments, forwarded: isForwarded(ctx.clientId) });
        results.push({ name: t.name, errorCode: ErrorCode.NONE, errorMessage: null });
      } catch (err) {
        if (err instanceof KafkaApiError) {
          results.push({ name: t.name, errorCode: err.errorCode, errorMessage: apiErrorMessage(err) });
        } else {
          broker.logger.error(`CreatePartitions: ${t.name} failed`, err);
          results.push({ name: t.name, errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: null });
        }
      }
    }
    return { throttleTimeMs: quota.finish(), results };
  },
  errorResponse(req, errorCode) {
    const names = [...new Set(req.topics.map((t) => t.name))];
    return { throttleTimeMs: 0, results: names.map((name) => ({ name, errorCode, errorMessage: null })) };
  },
});
