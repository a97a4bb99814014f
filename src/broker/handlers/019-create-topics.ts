/**
 * CreateTopics (key 19), versions 2-7.
 *
 * Behavior (Kafka's ControllerApis.createTopics + ReplicationControlManager.createTopics):
 * - One result per distinct name. A name listed twice gets a single INVALID_REQUEST
 *   "Duplicate topic name." and nothing is created for it.
 * - Checks per topic, in Kafka's order: `__cluster_metadata` (INVALID_REQUEST), legal name
 *   (INVALID_TOPIC_EXCEPTION "Topic name is invalid: ..."), already exists (TOPIC_ALREADY_EXISTS),
 *   '.'/'_' collision (INVALID_TOPIC_EXCEPTION), configs (INVALID_CONFIG: null value, unknown name,
 *   bad value), then partitions/replication factor (INVALID_REPLICATION_FACTOR / INVALID_PARTITIONS,
 *   -1 = num.partitions / default.replication.factor; a factor above the live broker count cannot
 *   be placed).
 * - Manual assignments: num_partitions and replication_factor must both be -1 (INVALID_REQUEST);
 *   each partition's replicas must be registered brokers (INVALID_REPLICA_ASSIGNMENT with Kafka's
 *   validateManualPartitionAssignment messages: empty list, unregistered broker, broker twice,
 *   inconsistent replica count); indexes must be 0..n-1 without repeats.
 * - The controller places replicas (rack-aware) and writes the topic; a broker that is not the
 *   controller forwards the topic to it (controller-channel.ts) and answers what it answered.
 * - validate_only: the same results, success fields included, nothing created; topic_id is a
 *   fresh random id that nothing keeps (Kafka's controller draws the id before it drops the
 *   records).
 * - Success (v5+): num_partitions, replication_factor and every effective topic config, sorted by
 *   name, with source / read_only / is_sensitive (src/config.ts resolveTopicConfig); v7 topic_id.
 *   Errors carry num_partitions -1, replication_factor -1, no configs.
 * - timeout_ms is not waited on: the answer leaves once this broker's metadata shows the topic.
 * Version notes: v1+ error_message and validate_only (min advertised 2); v2 throttle; v4 the
 * -1 defaults (KIP-464, accepted on every version as Kafka 4 does); v5 flexible, returns configs;
 * v7 topic_id.
 */
import { KafkaApiError } from '../../errors.js';
import { checkTopicCreatable } from '../../cluster/topic-names.js';
import { defineHandler } from '../handler.js';
import type { BrokerServices } from '../broker-services.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import {
  defaultCreatableTopicResult,
  type CreatableTopicResult,
} from '../../protocol/generated/messages/create-topics-response.js';
import type { CreatableTopic } from '../../protocol/generated/messages/create-topics-request.js';
import { resolveTopicConfig } from '../../config.js';
import { apiErrorMessage, validateTopicConfigs } from '../topic-configs.js';
import { newUuid } from '../../cluster/topic-names.js';
import { checkReplicaList } from '../../cluster/replica-placement.js';
import { isForwarded } from '../controller-channel.js';
import { AclOperation, authorizeClusterOrForwarded, authorizeTopic } from './auth-helper.js';
import { mutationQuota, THROTTLING_QUOTA_EXCEEDED_MESSAGE } from '../../security/quotas.js';
import { ZERO_UUID } from '../../protocol/reader.js';

export { checkReplicaList };

function failure(name: string, errorCode: number, errorMessage: string | null): CreatableTopicResult {
  return { ...defaultCreatableTopicResult(), name, errorCode, errorMessage };
}

/**
 * Kafka's validateManualPartitionAssignment against the registered brokers; returns the replica
 * lists by partition index, or throws INVALID_REQUEST / INVALID_REPLICA_ASSIGNMENT.
 */
function checkManualAssignments(t: CreatableTopic, isRegistered: (id: number) => boolean): number[][] {
  if (t.replicationFactor !== -1) {
    throw new KafkaApiError(ErrorCode.INVALID_REQUEST, 'A manual partition assignment was specified, but replication factor was not set to -1.');
  }
  if (t.numPartitions !== -1) {
    throw new KafkaApiError(ErrorCode.INVALID_REQUEST, 'A manual partition assignment was specified, but numPartitions was not set to -1.');
  }
  const byIndex = new Map<number, number[]>();
  let replicas: number | null = null;
  for (const a of t.assignments) {
    if (byIndex.has(a.partitionIndex)) {
      throw new KafkaApiError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `Found multiple manual partition assignments for partition ${a.partitionIndex}`);
    }
    checkReplicaList(a.brokerIds, isRegistered, replicas);
    replicas = a.brokerIds.length;
    byIndex.set(a.partitionIndex, a.brokerIds);
  }
  const lists: number[][] = [];
  for (let i = 0; i < byIndex.size; i++) {
    const l = byIndex.get(i);
    if (!l) throw new KafkaApiError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'partitions should be a consecutive 0-based integer sequence');
    lists.push([...l]);
  }
  return lists;
}

async function createOne(broker: BrokerServices, t: CreatableTopic, validateOnly: boolean, forwarded: boolean): Promise<CreatableTopicResult> {
  const name = t.name;
  if (name !== '__cluster_metadata') checkTopicCreatable(broker.metadataCache.topics, name);
  const raw: Record<string, string | null> = {};
  for (const c of t.configs) raw[c.name] = c.value;
  const configs = name === '__cluster_metadata' ? {} : validateTopicConfigs(raw, broker.rawConfig);
  const assignments = t.assignments.length > 0 ? checkManualAssignments(t, (id) => broker.isRegisteredBroker(id)) : undefined;
  const info = await broker.createTopic({ name, numPartitions: t.numPartitions, replicationFactor: t.replicationFactor, assignments, configs, validateOnly, forwarded });
  const entries = resolveTopicConfig(broker.rawConfig, info.configs).entries;
  return {
    name,
    topicId: validateOnly ? newUuid() : !info.topicId ? ZERO_UUID : info.topicId,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    topicConfigErrorCode: ErrorCode.NONE,
    numPartitions: info.partitions,
    replicationFactor: info.replicationFactor,
    configs: entries.map((e) => ({ name: e.name, value: e.value, readOnly: e.readOnly, configSource: e.configSource, isSensitive: e.isSensitive })),
  };
}

export const createTopicsHandler = defineHandler({
  apiKey: 19,
  async handle(ctx, req) {
    const counts = new Map<string, number>();
    for (const t of req.topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
    const answered = new Set<string>();
    const topics: CreatableTopicResult[] = [];
    // ACLs: CREATE on the cluster, or on each topic; DESCRIBE_CONFIGS for the configs in the answer.
    const clusterCreate = authorizeClusterOrForwarded(ctx, AclOperation.CREATE);
    // controller_mutation_rate: strict from v6 (THROTTLING_QUOTA_EXCEEDED), permissive before.
    const quota = mutationQuota(ctx, ctx.apiVersion >= 6, req.validateOnly || isForwarded(ctx.clientId));
    for (const t of req.topics) {
      if (answered.has(t.name)) continue;
      answered.add(t.name);
      if (counts.get(t.name)! > 1) {
        topics.push(failure(t.name, ErrorCode.INVALID_REQUEST, 'Duplicate topic name.'));
        continue;
      }
      if (!clusterCreate && !authorizeTopic(ctx, AclOperation.CREATE, t.name)) {
        topics.push(failure(t.name, ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Authorization failed.'));
        continue;
      }
      const partitions = t.numPartitions > 0 ? t.numPartitions : t.assignments.length > 0 ? t.assignments.length : ctx.broker.config.numPartitions;
      if (!quota.admit(partitions)) {
        topics.push(failure(t.name, ErrorCode.THROTTLING_QUOTA_EXCEEDED, THROTTLING_QUOTA_EXCEEDED_MESSAGE));
        continue;
      }
      try {
        const created = await createOne(ctx.broker, t, req.validateOnly, isForwarded(ctx.clientId));
        if (!authorizeTopic(ctx, AclOperation.DESCRIBE_CONFIGS, t.name)) {
          Object.assign(created, { configs: [], numPartitions: -1, replicationFactor: -1, topicConfigErrorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED });
        }
        topics.push(created);
      } catch (err) {
        if (err instanceof KafkaApiError) {
          topics.push(failure(t.name, err.errorCode, apiErrorMessage(err)));
        } else {
          ctx.broker.logger.error(`CreateTopics: creating ${t.name} failed`, err);
          topics.push(failure(t.name, ErrorCode.UNKNOWN_SERVER_ERROR, null));
        }
      }
    }
    return { throttleTimeMs: quota.finish(), topics };
  },
  errorResponse(req, errorCode) {
    const names = [...new Set(req.topics.map((t) => t.name))];
    return { throttleTimeMs: 0, topics: names.map((n) => failure(n, errorCode, null)) };
  },
});
