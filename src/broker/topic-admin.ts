/**
 * Topic administration (Kafka's ControllerApis and the topic paths of KafkaApis): CreateTopics and
 * auto-creation, DeleteTopics, CreatePartitions, ElectLeaders, AlterPartitionReassignments, and
 * the config writes of AlterConfigs / IncrementalAlterConfigs. A change runs on the active
 * controller (here, or forwarded to it through the controller channel); the call returns once
 * this broker's metadata cache shows it and the replica manager applied it, so the client's next
 * request here sees the change. Config writes need no controller decision: they go straight to
 * the metadata store through the one metadata writer (fence, write, wait for the cache).
 *
 * Samsa's topic features are checked at creation: a view needs its source and takes its
 * partitions and replicas; a schedule topic needs its target; deleting a source deletes its views.
 */
import { KafkaApiError } from '../errors.js';
import { checkTopicCreatable } from '../cluster/topic-names.js';
import type { TopicRecord } from '../cluster/metadata-store.js';
import type { Logger } from '../logger.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { ClusterMember } from '../cluster/cluster-member.js';
import type { MetadataCache } from '../cluster/metadata-cache.js';
import type { PartitionState } from '../cluster/metadata-store.js';
import type { ElectionResult } from '../cluster/controller.js';
import { isReassigning } from '../cluster/reassignment.js';
import { INTERNAL_TOPICS } from '../cluster/topic-names.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import { checkViewCreation, viewPlacement, viewsOf } from '../views/views.js';
import { checkScheduleConfigs } from '../schedule/schedule-config.js';
import type { CreateTopicSpec } from './broker-services.js';
import { RETRY, type ControllerChannel } from './controller-channel.js';
import type { MetadataWriter } from './metadata-writer.js';
import { validateTopicConfigs } from './topic-configs.js';

/** How long topic changes wait for a controller, and for this broker's cache to show them. */
export const CONTROLLER_WAIT_MS = 30_000;
/** Forwarded requests use fixed versions: both ends are Samsa of the same release. */
const CREATE_TOPICS_VERSION = 7;
const DELETE_TOPICS_VERSION = 6;
const CREATE_PARTITIONS_VERSION = 3;

export interface TopicAdminEnv {
  logger: Logger;
  cluster: ClusterMember;
  metadataCache: MetadataCache;
  replicaManager: ReplicaManager;
  controllerChannel: ControllerChannel;
  writer: MetadataWriter;
  partitionState(topicId: string, partition: number): PartitionState | undefined;
}

export class TopicAdmin {
  private readonly creating = new Map<string, Promise<TopicRecord>>();

  constructor(private readonly env: TopicAdminEnv) {}

  private awaitMetadata(done: (c: MetadataCache) => boolean, what: string): Promise<void> {
    return this.env.writer.applied(done, what);
  }

  /**
   * Creates a topic (CreateTopics and auto-creation). Validates like Kafka's controller;
   * throws KafkaApiError with Kafka's code and message.
   */
  async createTopic(spec: CreateTopicSpec): Promise<TopicRecord> {
    const { name } = spec;
    if (name === '__cluster_metadata') throw new KafkaApiError(ErrorCode.INVALID_REQUEST, 'Creation of internal topic __cluster_metadata is prohibited.');
    checkTopicCreatable(this.env.metadataCache.topics, name);
    if (this.creating.has(name)) throw new KafkaApiError(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${name}' already exists.`);
    const manual = spec.assignments && spec.assignments.length > 0 ? spec.assignments : undefined;
    if (!manual) {
      // ReplicationControlManager's order: the factor's sign, then the count's, then placement.
      const rf = spec.replicationFactor;
      if (rf === 0 || rf < -1) throw new KafkaApiError(ErrorCode.INVALID_REPLICATION_FACTOR, 'Replication factor must be larger than 0, or -1 to use the default value.');
      if (spec.numPartitions === 0 || spec.numPartitions < -1) throw new KafkaApiError(ErrorCode.INVALID_PARTITIONS, 'Number of partitions was set to an invalid non-positive value.');
    }
    const configs = validateTopicConfigs(spec.configs);
    // Views (src/views/): the source must exist; the view takes its partition count and, unless
    // assigned by hand, its source's replicas (so the same broker usually leads both).
    const viewPartitions = checkViewCreation(configs, manual ? -1 : spec.numPartitions, this.env.metadataCache);
    const placement = manual ?? viewPlacement(configs, this.env.metadataCache, (id, p) => this.env.partitionState(id, p));
    const numPartitions = placement ? -1 : viewPartitions;
    const replicationFactor = placement ? -1 : spec.replicationFactor;
    // Schedule topics (src/schedule/): the target must exist and be writable.
    checkScheduleConfigs(name, configs, this.env.metadataCache);
    const isInternal = INTERNAL_TOPICS.has(name);
    const work = this.env.controllerChannel.route<TopicRecord>(
      `creating topic ${name}`, CONTROLLER_WAIT_MS, spec.forwarded ?? false,
      async () => {
        const created = await this.env.cluster.controller.createTopic({
          name, numPartitions, replicationFactor, assignments: placement,
          configs, isInternal, validateOnly: spec.validateOnly,
        });
        if (spec.validateOnly) return created.topic;
        await this.awaitMetadata((c) => c.topic(name)?.topicId === created.topic.topicId, `topic ${name} in the metadata cache`);
        return this.env.metadataCache.topic(name) ?? created.topic;
      },
      async (client) => {
        const res = await client.send(19, CREATE_TOPICS_VERSION, {
          topics: [{
            name, numPartitions, replicationFactor,
            assignments: (placement ?? []).map((brokerIds, partitionIndex) => ({ partitionIndex, brokerIds })),
            configs: Object.entries(configs).map(([k, value]) => ({ name: k, value })),
          }],
          timeoutMs: CONTROLLER_WAIT_MS, validateOnly: spec.validateOnly ?? false,
        });
        const r = res.topics[0];
        if (!r) throw new KafkaApiError(ErrorCode.UNKNOWN_SERVER_ERROR, `the controller did not answer for topic ${name}`);
        if (r.errorCode === ErrorCode.NOT_CONTROLLER) return RETRY;
        if (r.errorCode !== ErrorCode.NONE) throw new KafkaApiError(r.errorCode, r.errorMessage ?? undefined);
        const draft: TopicRecord = { name, topicId: r.topicId, partitions: r.numPartitions, replicationFactor: r.replicationFactor, configs, isInternal };
        if (spec.validateOnly) return draft;
        // Later requests to this broker should see the topic: wait (briefly) for the watch.
        await this.env.metadataCache.waitFor((c) => c.topic(name)?.topicId === r.topicId, 5000).catch(() => undefined);
        await this.env.replicaManager.applied(this.env.metadataCache.revision);
        return this.env.metadataCache.topic(name) ?? draft;
      },
    );
    if (spec.validateOnly) return work;
    this.creating.set(name, work);
    try {
      return await work;
    } finally {
      this.creating.delete(name);
    }
  }

  /** Metadata-triggered creation with the broker defaults; concurrent callers share one creation. */
  async autoCreateTopic(name: string): Promise<TopicRecord> {
    const pending = this.creating.get(name);
    if (pending) return pending;
    const existing = this.env.metadataCache.topic(name);
    if (existing) return existing;
    return this.createTopic({ name, numPartitions: -1, replicationFactor: -1, configs: {} });
  }

  async deleteTopic(name: string, opts: { forwarded?: boolean } = {}): Promise<TopicRecord> {
    const info = this.env.metadataCache.topic(name);
    if (!info) throw new KafkaApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const deleted = await this.deleteOneTopic(name, info, opts);
    // Deleting a source deletes its views (src/views/); one already gone is skipped.
    for (const view of viewsOf(this.env.metadataCache.topics, name)) {
      await this.deleteTopic(view, opts).catch((err) => {
        if (!(err instanceof KafkaApiError && err.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)) this.env.logger.warn(`deleting view ${view} of ${name} failed`, err);
      });
    }
    return deleted;
  }

  private async deleteOneTopic(name: string, info: TopicRecord, opts: { forwarded?: boolean }): Promise<TopicRecord> {
    const gone = (c: MetadataCache) => c.topic(name)?.topicId !== info.topicId;
    return this.env.controllerChannel.route<TopicRecord>(
      `deleting topic ${name}`, CONTROLLER_WAIT_MS, opts.forwarded ?? false,
      async () => {
        const deleted = await this.env.cluster.controller.deleteTopic(name);
        await this.awaitMetadata(gone, `topic ${name} gone from the metadata cache`);
        return deleted;
      },
      async (client) => {
        const res = await client.send(20, DELETE_TOPICS_VERSION, { topics: [{ name: null, topicId: info.topicId }], topicNames: [], timeoutMs: CONTROLLER_WAIT_MS });
        const r = res.responses[0];
        if (r?.errorCode === ErrorCode.NOT_CONTROLLER) return RETRY;
        if (r && r.errorCode !== ErrorCode.NONE) throw new KafkaApiError(r.errorCode, r.errorMessage ?? undefined);
        await this.env.metadataCache.waitFor(gone, 5000).catch(() => undefined);
        await this.env.replicaManager.applied(this.env.metadataCache.revision);
        return info;
      },
    );
  }

  /** CreatePartitions: the checks Kafka's broker makes first, then the controller places and writes. */
  async createPartitions(name: string, count: number, validateOnly: boolean, opts: { assignments?: number[][] | null; forwarded?: boolean } = {}): Promise<void> {
    const info = this.env.metadataCache.topic(name);
    if (!info) throw new KafkaApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    if (count < info.partitions) throw new KafkaApiError(ErrorCode.INVALID_PARTITIONS, `The topic ${name} currently has ${info.partitions} partition(s); ${count} would not be an increase.`);
    if (count === info.partitions) throw new KafkaApiError(ErrorCode.INVALID_PARTITIONS, `Topic already has ${info.partitions} partition(s).`);
    if (validateOnly && opts.assignments === undefined) return;
    const assignments = opts.assignments ?? undefined;
    const grown = (c: MetadataCache) => (c.topic(name)?.partitions ?? 0) >= count;
    await this.env.controllerChannel.route<void>(
      `adding partitions to ${name}`, CONTROLLER_WAIT_MS, opts.forwarded ?? false,
      async () => {
        await this.env.cluster.controller.createPartitions(name, count, assignments, validateOnly);
        if (!validateOnly) await this.awaitMetadata(grown, `${count} partitions of ${name} in the metadata cache`);
      },
      async (client) => {
        const res = await client.send(37, CREATE_PARTITIONS_VERSION, {
          topics: [{ name, count, assignments: assignments ? assignments.map((brokerIds) => ({ brokerIds })) : null }],
          timeoutMs: CONTROLLER_WAIT_MS, validateOnly,
        });
        const r = res.results[0];
        if (r?.errorCode === ErrorCode.NOT_CONTROLLER) return RETRY;
        if (r && r.errorCode !== ErrorCode.NONE) throw new KafkaApiError(r.errorCode, r.errorMessage ?? undefined);
        if (!validateOnly) {
          await this.env.metadataCache.waitFor(grown, 5000).catch(() => undefined);
          await this.env.replicaManager.applied(this.env.metadataCache.revision);
        }
      },
    );
  }

  /** ElectLeaders, run by the controller (forwarded there as the request it is); per-partition results. */
  async electLeaders(targets: { topic: string; partitions: number[] }[] | null, unclean: boolean, forwarded: boolean): Promise<ElectionResult[]> {
    return this.env.controllerChannel.route<ElectionResult[]>(
      'leader election', CONTROLLER_WAIT_MS, forwarded,
      () => this.env.cluster.controller.electLeaders(targets, unclean),
      async (client) => {
        const res = await client.send(43, 2, { electionType: unclean ? 1 : 0, topicPartitions: targets, timeoutMs: CONTROLLER_WAIT_MS });
        if (res.errorCode === ErrorCode.NOT_CONTROLLER) return RETRY;
        if (res.errorCode !== ErrorCode.NONE) throw new KafkaApiError(res.errorCode);
        return res.replicaElectionResults.flatMap((t) => t.partitionResult.map((p) => ({ topic: t.topic, partition: p.partitionId, errorCode: p.errorCode, errorMessage: p.errorMessage })));
      },
    );
  }

  /**
   * AlterPartitionReassignments, run by the controller (forwarded there as the request it is).
   * Returns once this broker's metadata cache shows the controller's changes, so that a
   * ListPartitionReassignments or Metadata asked here next sees the moves.
   */
  async alterPartitionReassignments(topics: { name: string; partitions: { partitionIndex: number; replicas: number[] | null }[] }[], forwarded: boolean): Promise<ElectionResult[]> {
    const results = await this.env.controllerChannel.route<ElectionResult[]>(
      'partition reassignment', CONTROLLER_WAIT_MS, forwarded,
      () => this.env.cluster.controller.alterPartitionReassignments(topics),
      async (client) => {
        const res = await client.send(45, 0, { timeoutMs: CONTROLLER_WAIT_MS, allowReplicationFactorChange: true, topics });
        if (res.errorCode === ErrorCode.NOT_CONTROLLER) return RETRY;
        if (res.errorCode !== ErrorCode.NONE) throw new KafkaApiError(res.errorCode, res.errorMessage ?? undefined);
        return res.responses.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, errorCode: p.errorCode, errorMessage: p.errorMessage })));
      },
    );
    // results[i] answers the i-th partition asked for: wait until this cache shows each change.
    const asked = topics.flatMap((t) => t.partitions.map((p) => p.replicas));
    await this.awaitMetadata((c) => results.every((r, i) => {
      if (r.errorCode !== ErrorCode.NONE) return true;
      const topic = c.topic(r.topic);
      const state = topic && c.partition(topic.topicId, r.partition);
      const target = asked[i];
      if (!state) return true;
      return target ? target.every((id, j) => state.replicas[j] === id) : !isReassigning(state);
    }), 'partition reassignments in the metadata cache');
    return results;
  }

  /**
   * Replaces a topic's dynamic config overrides. Written straight to the metadata store (a whole
   * replacement, so it needs no controller decision), fenced by the controller epoch on the
   * controller and by this broker's epoch elsewhere; the replica manager applies it to the logs.
   */
  async setTopicConfigs(name: string, configs: Record<string, string>): Promise<void> {
    const info = this.env.metadataCache.topic(name);
    if (!info) throw new KafkaApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const want = JSON.stringify(configs);
    await this.env.writer.write(`configs of ${name}`, (store, fence) => store.alterTopicConfigs(name, configs, fence), (c) => { const t = c.topic(name); return !t || JSON.stringify(t.configs) === want; });
  }

  /** Replaces them in the metadata store (fenced like topic configs) and waits for this broker's cache. */
  async setBrokerConfigs(key: string, configs: Record<string, string>): Promise<void> {
    const want = JSON.stringify(configs);
    await this.env.writer.write(`broker configs ${key}`, (store, fence) => store.alterBrokerConfigs(key, configs, fence), (c) => JSON.stringify(c.brokerConfigs.get(key) ?? {}) === want);
  }

  /**
   * Replaces a group's config overrides in the metadata store (fenced like topic configs; the
   * group need not exist) and waits for this broker's cache.
   */
  async setGroupConfigs(groupId: string, configs: Record<string, string>): Promise<void> {
    const want = JSON.stringify(configs);
    await this.env.writer.write(`group configs of ${groupId}`, (store, fence) => store.alterGroupConfigs(groupId, configs, fence), (c) => JSON.stringify(c.groupConfigs.get(groupId) ?? {}) === want);
  }

  /** Finalizes feature levels (UpdateFeatures, checked by the caller) and waits for this broker's cache. */
  async setFeatureLevels(levels: ReadonlyMap<string, number>): Promise<void> {
    await this.env.writer.write('feature levels', (store, fence) => store.alterFeatures(levels, fence), (c) => [...levels].every(([name, level]) => (c.features.get(name) ?? 0) === level));
  }
}
