/**
 * DeleteTopics (key 20), versions 1-6.
 *
 * Behavior (Kafka's ControllerApis.deleteTopics + ReplicationControlManager.deleteTopics):
 * - delete.topic.enable=false: the whole request fails before any work; every listed topic gets
 *   TOPIC_DELETION_DISABLED (v3+) or INVALID_REQUEST (v0-2, "Topic deletion is disabled.").
 * - v0-5 name topics in topic_names; v6 in topics[] by name or by id (not both:
 *   INVALID_REQUEST "You may not specify both topic name and topic id."; neither:
 *   "Neither topic name nor id were specified.").
 * - A name or id listed twice: one INVALID_REQUEST "Duplicate topic name." / "Duplicate topic id.";
 *   a name resolving to an id also listed: a single INVALID_REQUEST "The provided topic name maps
 *   to an ID that was already supplied." with the name and id, nothing deleted (the id entry gets
 *   no answer of its own, as in Kafka's ControllerApisTest.testInvalidDeleteTopicsRequest).
 * - ACLs: DELETE on the cluster allows every topic; else a name needs DESCRIBE (checked before it
 *   is looked up) and DELETE (after: a describable missing topic is UNKNOWN_TOPIC_OR_PARTITION);
 *   an id not describable answers TOPIC_AUTHORIZATION_FAILED with a null name.
 * - Unknown name: UNKNOWN_TOPIC_OR_PARTITION with the zero id; unknown id: UNKNOWN_TOPIC_ID, name null;
 *   both with the error's default text as message (v5+), as Kafka's controller answers.
 * - Success: NONE with the topic's name and id; the topic's logs are deleted before answering.
 * - Deviation: Kafka's controller deletes internal topics too (only the kafka-topics tool refuses).
 *   Samsa refuses `__consumer_offsets` / `__transaction_state`, whose logs hold the coordinators'
 *   state, with INVALID_TOPIC_EXCEPTION (the code DeleteRecords gives internal topics) and the
 *   kafka-topics tool's message "Topic T is a kafka internal topic and is not allowed to be marked
 *   for deletion.".
 * - Kafka shuffles the result order on purpose; Samsa answers in request order.
 * Version notes: v1 throttle; v4 flexible; v5 error_message; v6 topics by name or id (KIP-516).
 */
import { KafkaApiError } from '../../errors.js';
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { DeletableTopicResult } from '../../protocol/generated/messages/delete-topics-response.js';
import { INTERNAL_TOPICS } from '../../cluster/topic-names.js';
import { apiErrorMessage } from '../topic-configs.js';
import { isForwarded } from '../controller-channel.js';
import { AclOperation, authorizeClusterOrForwarded, authorizeTopic } from './auth-helper.js';
import { mutationQuota, THROTTLING_QUOTA_EXCEEDED_MESSAGE } from '../../security/quotas.js';
import { ZERO_UUID } from '../../protocol/reader.js';

/** The default texts of these errors, which Kafka's controller puts in the result (v5+). */
const UNKNOWN_TOPIC_MESSAGE = 'This server does not host this topic-partition.';
const UNKNOWN_TOPIC_ID_MESSAGE = 'This server does not host this topic ID.';

function result(name: string | null, topicId: string, errorCode: number, errorMessage: string | null = null): DeletableTopicResult {
  return { name, topicId, errorCode, errorMessage };
}

export const deleteTopicsHandler = defineHandler({
  apiKey: 20,
  async handle(ctx, req) {
    const broker = ctx.broker;
    const v = ctx.apiVersion;
    if (!broker.rawConfig['delete.topic.enable']) {
      throw v < 3
        ? new KafkaApiError(ErrorCode.INVALID_REQUEST, 'Topic deletion is disabled.')
        : new KafkaApiError(ErrorCode.TOPIC_DELETION_DISABLED);
    }
    const responses: DeletableTopicResult[] = [];
    // Entries in request order: a name to look up, an id to look up, or an answer already known.
    type Entry = { kind: 'name'; name: string } | { kind: 'id'; id: string };
    const entries: Entry[] = [];
    const nameCount = new Map<string, number>();
    const idCount = new Map<string, number>();
    const addName = (name: string) => {
      nameCount.set(name, (nameCount.get(name) ?? 0) + 1);
      entries.push({ kind: 'name', name });
    };
    if (v >= 6) {
      for (const t of req.topics) {
        if (t.name === null) {
          if (t.topicId === ZERO_UUID) {
            responses.push(result(null, ZERO_UUID, ErrorCode.INVALID_REQUEST, 'Neither topic name nor id were specified.'));
          } else {
            idCount.set(t.topicId, (idCount.get(t.topicId) ?? 0) + 1);
            entries.push({ kind: 'id', id: t.topicId });
          }
        } else if (t.topicId === ZERO_UUID) {
          addName(t.name);
        } else {
          responses.push(result(t.name, t.topicId, ErrorCode.INVALID_REQUEST, 'You may not specify both topic name and topic id.'));
        }
      }
    } else {
      for (const name of req.topicNames) addName(name);
    }

    // ACLs (the controller's deleteTopics): DELETE on the cluster allows every topic, else DESCRIBE and DELETE on each.
    const clusterDelete = authorizeClusterOrForwarded(ctx, AclOperation.DELETE);
    const may = (op: number, name: string) => clusterDelete || authorizeTopic(ctx, op, name);
    // Resolve everything to names first (ids of unknown topics answer UNKNOWN_TOPIC_ID).
    const toDelete = new Map<string, { name: string; id: string }>(); // by topic id
    const mapped = new Set<string>(); // ids a listed name also resolved to
    const answered = new Set<string>();
    for (const e of entries) {
      const key = e.kind === 'name' ? `n:${e.name}` : `i:${e.id}`;
      if (answered.has(key)) continue;
      answered.add(key);
      if (e.kind === 'name') {
        if (nameCount.get(e.name)! > 1) {
          responses.push(result(e.name, ZERO_UUID, ErrorCode.INVALID_REQUEST, 'Duplicate topic name.'));
          continue;
        }
        // DESCRIBE before the name is looked up, DELETE after (a describable missing topic is
        // UNKNOWN_TOPIC_OR_PARTITION whatever DELETE says), as the controller checks them.
        if (!may(AclOperation.DESCRIBE, e.name)) {
          responses.push(result(e.name, ZERO_UUID, ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Topic authorization failed.'));
          continue;
        }
        const info = broker.metadataCache.topic(e.name);
        if (!info) {
          responses.push(result(e.name, ZERO_UUID, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_TOPIC_MESSAGE));
          continue;
        }
        if (!may(AclOperation.DELETE, e.name)) {
          responses.push(result(e.name, ZERO_UUID, ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Topic authorization failed.'));
          continue;
        }
        if (idCount.has(info.topicId) || toDelete.has(info.topicId)) {
          // One answer, on the name; the id entry gets none (unless it was itself listed twice).
          responses.push(result(e.name, info.topicId, ErrorCode.INVALID_REQUEST, 'The provided topic name maps to an ID that was already supplied.'));
          mapped.add(info.topicId);
          toDelete.delete(info.topicId);
          continue;
        }
        toDelete.set(info.topicId, { name: info.name, id: info.topicId });
      } else {
        if (idCount.get(e.id)! > 1 || mapped.has(e.id)) continue; // answered below, once / on the name
        const info = broker.metadataCache.topicById(e.id);
        if (!info) {
          responses.push(result(null, e.id, ErrorCode.UNKNOWN_TOPIC_ID, UNKNOWN_TOPIC_ID_MESSAGE));
          continue;
        }
        if (!may(AclOperation.DESCRIBE, info.name)) {
          responses.push(result(null, e.id, ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Topic authorization failed.'));
          continue;
        }
        if (!may(AclOperation.DELETE, info.name)) {
          responses.push(result(info.name, e.id, ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Topic authorization failed.'));
          continue;
        }
        toDelete.set(info.topicId, { name: info.name, id: info.topicId });
      }
    }
    for (const [id, n] of idCount) {
      if (n > 1) {
        toDelete.delete(id);
        responses.push(result(null, id, ErrorCode.INVALID_REQUEST, 'Duplicate topic id.'));
      }
    }

    // controller_mutation_rate: strict from v5.
    const quota = mutationQuota(ctx, v >= 5, isForwarded(ctx.clientId));
    for (const { name, id } of toDelete.values()) {
      if (INTERNAL_TOPICS.has(name)) {
        responses.push(result(name, id, ErrorCode.INVALID_TOPIC_EXCEPTION,
          `Topic ${name} is a kafka internal topic and is not allowed to be marked for deletion.`));
        continue;
      }
      if (!quota.admit(broker.metadataCache.topic(name)?.partitions ?? 0)) {
        responses.push(result(name, id, ErrorCode.THROTTLING_QUOTA_EXCEEDED, THROTTLING_QUOTA_EXCEEDED_MESSAGE));
        continue;
      }
      try {
        await broker.deleteTopic(name, { forwarded: isForwarded(ctx.clientId) });
        responses.push(result(name, id, ErrorCode.NONE));
      } catch (err) {
        if (err instanceof KafkaApiError) {
          responses.push(result(name, id, err.errorCode, apiErrorMessage(err)));
        } else {
          broker.logger.error(`DeleteTopics: deleting ${name} failed`, err);
          responses.push(result(name, id, ErrorCode.UNKNOWN_SERVER_ERROR));
        }
      }
    }
    return { throttleTimeMs: quota.finish(), responses };
  },
  errorResponse(req, errorCode, ctx) {
    const responses = ctx.apiVersion >= 6
      ? req.topics.map((t) => result(t.name, t.topicId, errorCode))
      : req.topicNames.map((n) => result(n, ZERO_UUID, errorCode));
    return { throttleTimeMs: 0, responses };
  },
});
