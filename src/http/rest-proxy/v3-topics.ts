/**
 * REST Proxy v3: clusters, brokers, topics, partitions and replicas (Confluent's
 * ClustersResource, BrokersResource, TopicsResource, PartitionsResource, ReplicasResource).
 * Reads go through an in-process Metadata request as the HTTP user; topics are created and
 * deleted with in-process CreateTopics / DeleteTopics, so ACLs, name and config validation and
 * the controller's placement apply as for an admin client.
 */
import type { RestProxyRequest } from './rest-common.js';
import { sendInProcess } from '../in-process.js';
import {
  V3Links, ZERO_UUID, badRequest, clusterIdOf, intSegment, isObject, jsonBody, kafkaError, metadata, noContent, notFound, ok, optionalInt,
  optionalString, topicMetadata,
} from './v3-common.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic } from '../../protocol/generated/messages/metadata-response.js';
import type { CreateTopicsResponse } from '../../protocol/generated/messages/create-topics-response.js';
import type { DeleteTopicsResponse } from '../../protocol/generated/messages/delete-topics-response.js';

function clusterData(l: V3Links, controllerId: number): Record<string, unknown> {
  return l.resource('KafkaCluster', l.url(), l.crn(), {
    cluster_id: l.clusterId,
    ...(controllerId >= 0 ? { controller: l.related('brokers', controllerId) } : {}),
    acls: l.related('acls'),
    brokers: l.related('brokers'),
    broker_configs: l.related('broker-configs'),
    consumer_groups: l.related('consumer-groups'),
    topics: l.related('topics'),
    partition_reassignments: l.related('topics', '-', 'partitions', '-', 'reassignment'),
  });
}

/** GET /v3/clusters: the one cluster this broker belongs to. */
export async function listClusters(r: RestProxyRequest): Promise<void> {
  const l = new V3Links(r.baseUrl, clusterIdOf(r));
  const md = await metadata(r, []);
  ok(r, { kind: 'KafkaClusterList', metadata: { self: `${r.baseUrl}/v3/clusters`, next: null }, data: [clusterData(l, md.controllerId)] });
}

export async function getCluster(r: RestProxyRequest, l: V3Links): Promise<void> {
  const md = await metadata(r, []);
  ok(r, clusterData(l, md.controllerId));
}

function brokerData(l: V3Links, b: MetadataResponseBroker): Record<string, unknown> {
  return l.resource('KafkaBroker', l.url('brokers', b.nodeId), l.crn('broker', b.nodeId), {
    cluster_id: l.clusterId, broker_id: b.nodeId, host: b.host, port: b.port, rack: b.rack,
    configs: l.related('brokers', b.nodeId, 'configs'),
    partition_replicas: l.related('brokers', b.nodeId, 'partition-replicas'),
  });
}

/** GET .../brokers and .../brokers/{id}. */
export async function brokers(r: RestProxyRequest, l: V3Links, id: string | undefined): Promise<void> {
  const md = await metadata(r, []);
  const all = [...md.brokers].sort((a, b) => a.nodeId - b.nodeId);
  if (id === undefined) return ok(r, l.collection('KafkaBrokerList', l.url('brokers'), all.map((b) => brokerData(l, b))));
  const n = intSegment(id);
  const b = all.find((x) => x.nodeId === n);
  if (!b) throw notFound();
  ok(r, brokerData(l, b));
}

function topicData(l: V3Links, name: string, isInternal: boolean, partitions: number, replicationFactor: number): Record<string, unknown> {
  return l.resource('KafkaTopic', l.url('topics', name), l.crn('topic', name), {
    cluster_id: l.clusterId, topic_name: name, is_internal: isInternal, replication_factor: replicationFactor, partitions_count: partitions,
    partitions: l.related('topics', name, 'partitions'),
    configs: l.related('topics', name, 'configs'),
    partition_reassignments: l.related('topics', name, 'partitions', '-', 'reassignment'),
  });
}

function fromMetadata(l: V3Links, t: MetadataResponseTopic): Record<string, unknown> {
  return topicData(l, t.name ?? '', t.isInternal, t.partitions.length, t.partitions[0]?.replicaNodes.length ?? 0);
}

/** GET .../topics: the topics the user may describe, internal ones left out (as Admin.listTopics), by name. */
export async function listTopics(r: RestProxyRequest, l: V3Links): Promise<void> {
  const md = await metadata(r, null);
  const topics = md.topics.filter((t) => t.errorCode === ErrorCode.NONE && !t.isInternal && t.name !== null)
    .sort((a, b) => (a.name! < b.name! ? -1 : a.name! > b.name! ? 1 : 0));
  ok(r, l.collection('KafkaTopicList', l.url('topics'), topics.map((t) => fromMetadata(l, t))));
}

export async function getTopic(r: RestProxyRequest, l: V3Links, topic: string): Promise<void> {
  ok(r, fromMetadata(l, await topicMetadata(r, topic)));
}

/**
 * POST .../topics: `{topic_name, partitions_count?, replication_factor?, replicas_assignments?,
 * configs?: [{name, value}], validate_only?}`; 201 with the topic and a Location (200 when only
 * validated).
 */
export async function createTopic(r: RestProxyRequest, l: V3Links): Promise<void> {
  const body = jsonBody(r);
  if (!isObject(body)) throw badRequest('The request body must be a JSON object.');
  const name = optionalString(body, 'topic_name');
  if (name === undefined || name === '') throw badRequest('Missing required properties: topicName');
  const partitions = optionalInt(body, 'partitions_count');
  const replication = optionalInt(body, 'replication_factor');
  const validateOnly = body.validate_only === true;
  const configs: { name: string; value: string | null }[] = [];
  if (body.configs !== undefined && body.configs !== null) {
    if (!Array.isArray(body.configs)) throw badRequest('configs: an array of {name, value} is expected');
    for (const c of body.configs) {
      if (!isObject(c) || typeof c.name !== 'string') throw badRequest('configs: each entry needs a name');
      configs.push({ name: c.name, value: c.value === undefined || c.value === null ? null : String(c.value) });
    }
  }
  const assignments: { partitionIndex: number; brokerIds: number[] }[] = [];
  if (Array.isArray(body.replicas_assignments)) {
    for (const a of body.replicas_assignments) {
      if (!isObject(a) || !Array.isArray(a.broker_ids)) throw badRequest('replicas_assignments: each entry needs partition_id and broker_ids');
      assignments.push({ partitionIndex: optionalInt(a, 'partition_id') ?? 0, brokerIds: a.broker_ids.map(Number) });
    }
  }
  const res = await sendInProcess(r.broker, 19, 7, {
    topics: [{ name, numPartitions: assignments.length > 0 ? -1 : partitions ?? -1, replicationFactor: assignments.length > 0 ? -1 : replication ?? -1, assignments, configs }],
    timeoutMs: 30_000, validateOnly,
  }, { user: r.user }) as CreateTopicsResponse;
  const t = res.topics[0];
  if (!t) throw kafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, 'the CreateTopics answer names no topic');
  if (t.errorCode !== ErrorCode.NONE) throw kafkaError(t.errorCode, t.errorCode === ErrorCode.TOPIC_ALREADY_EXISTS ? `Topic '${name}' already exists.` : t.errorMessage);
  const data = topicData(l, name, false, t.numPartitions, t.replicationFactor);
  if (!validateOnly) r.res.setHeader('Location', l.url('topics', name));
  ok(r, data, validateOnly ? 200 : 201);
}

export async function deleteTopic(r: RestProxyRequest, _l: V3Links, topic: string): Promise<void> {
  const res = await sendInProcess(r.broker, 20, 6, { topics: [{ name: topic, topicId: ZERO_UUID }], topicNames: [], timeoutMs: 30_000 }, { user: r.user }) as DeleteTopicsResponse;
  const t = res.responses[0];
  if (t && t.errorCode !== ErrorCode.NONE) throw kafkaError(t.errorCode, t.errorMessage);
  noContent(r);
}

function partitionData(l: V3Links, topic: string, p: MetadataResponsePartition): Record<string, unknown> {
  const i = p.partitionIndex;
  return l.resource('KafkaPartition', l.url('topics', topic, 'partitions', i), l.crn('topic', topic, 'partition', i), {
    cluster_id: l.clusterId, topic_name: topic, partition_id: i,
    ...(p.leaderId >= 0 ? { leader: l.related('topics', topic, 'partitions', i, 'replicas', p.leaderId) } : {}),
    replicas: l.related('topics', topic, 'partitions', i, 'replicas'),
    reassignment: l.related('topics', topic, 'partitions', i, 'reassignment'),
  });
}

function replicaData(l: V3Links, topic: string, p: MetadataResponsePartition, broker: number): Record<string, unknown> {
  const i = p.partitionIndex;
  return l.resource('KafkaReplica', l.url('topics', topic, 'partitions', i, 'replicas', broker), l.crn('topic', topic, 'partition', i, 'replica', broker), {
    cluster_id: l.clusterId, topic_name: topic, partition_id: i, broker_id: broker,
    is_leader: p.leaderId === broker, is_in_sync: p.isrNodes.includes(broker),
    broker: l.related('brokers', broker),
  });
}

/**
 * GET .../topics/{t}/partitions[/{p}[/replicas[/{broker}]]]: `rest` is what follows
 * `partitions` in the path.
 */
export async function partitions(r: RestProxyRequest, l: V3Links, topic: string, rest: string[]): Promise<void> {
  const t = await topicMetadata(r, topic);
  const all = [...t.partitions].sort((a, b) => a.partitionIndex - b.partitionIndex);
  if (rest.length === 0) return ok(r, l.collection('KafkaPartitionList', l.url('topics', topic, 'partitions'), all.map((p) => partitionData(l, topic, p))));
  const n = intSegment(rest[0]!);
  const p = all.find((x) => x.partitionIndex === n);
  if (!p) throw notFound();
  if (rest.length === 1) return ok(r, partitionData(l, topic, p));
  if (rest[1] !== 'replicas' || rest.length > 3) throw notFound();
  if (rest.length === 2) {
    return ok(r, l.collection('KafkaReplicaList', l.url('topics', topic, 'partitions', n, 'replicas'), p.replicaNodes.map((b) => replicaData(l, topic, p, b))));
  }
  const broker = intSegment(rest[2]!);
  if (!p.replicaNodes.includes(broker)) throw notFound();
  ok(r, replicaData(l, topic, p, broker));
}
