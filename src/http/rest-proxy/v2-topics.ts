/**
 * REST Proxy v2 metadata reads (Confluent's TopicsResource, PartitionsResource, BrokersResource):
 * `GET /topics` (names), `GET /topics/{t}` ({name, configs, partitions}), `GET /topics/{t}/partitions`,
 * `GET /topics/{t}/partitions/{p}`, `GET /topics/{t}/partitions/{p}/offsets` ({beginning_offset,
 * end_offset}) and `GET /brokers` ({brokers: [ids]}). Everything is asked in-process (Metadata,
 * DescribeConfigs, ListOffsets) as the HTTP user, so ACLs filter and refuse as for a client.
 */
import type { RestProxyRequest } from './rest-common.js';
import { sendInProcess } from '../in-process.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { MetadataResponse, MetadataResponsePartition, MetadataResponseTopic } from '../../protocol/generated/messages/metadata-response.js';
import type { DescribeConfigsResponse } from '../../protocol/generated/messages/describe-configs-response.js';
import type { ListOffsetsResponse } from '../../protocol/generated/messages/list-offsets-response.js';
import { ZERO_UUID } from '../../protocol/reader.js';
import { isAuthorizationError, kafkaError, partitionNotFound, sendV2, topicNotFound } from './v2-common.js';

const METADATA_VERSION = 12;
const RESOURCE_TOPIC = 2;

/** Metadata in-process: every topic (null) or the named ones, optionally creating them (auto.create.topics.enable). */
export async function metadata(r: RestProxyRequest, topics: string[] | null, autoCreate = false): Promise<MetadataResponse> {
  return sendInProcess(r.broker, 3, METADATA_VERSION, {
    topics: topics === null ? null : topics.map((name) => ({ topicId: ZERO_UUID, name })),
    allowAutoTopicCreation: autoCreate, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false,
  }, { user: r.user });
}

/** One topic's metadata, or the REST error its Kafka error code means (40401 unknown, 40301 unauthorized). */
export async function topicMetadata(r: RestProxyRequest, topic: string): Promise<MetadataResponseTopic> {
  const t = (await metadata(r, [topic])).topics[0];
  if (!t || t.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION || t.errorCode === ErrorCode.INVALID_TOPIC_EXCEPTION) throw topicNotFound();
  if (isAuthorizationError(t.errorCode)) throw kafkaError(t.errorCode, `Not authorized to access topics: [${topic}]`);
  if (t.errorCode !== ErrorCode.NONE) throw kafkaError(t.errorCode);
  return t;
}

function partitionJson(p: MetadataResponsePartition) {
  return {
    partition: p.partitionIndex,
    leader: p.leaderId,
    replicas: p.replicaNodes.map((broker) => ({ broker, leader: broker === p.leaderId, in_sync: p.isrNodes.includes(broker) })),
  };
}

const byIndex = (a: MetadataResponsePartition, b: MetadataResponsePartition) => a.partitionIndex - b.partitionIndex;

export async function listTopics(r: RestProxyRequest): Promise<void> {
  const md = await metadata(r, null);
  sendV2(r, 200, md.topics.filter((t) => t.errorCode === ErrorCode.NONE && t.name !== null).map((t) => t.name as string).sort());
}

export async function getTopic(r: RestProxyRequest, topic: string): Promise<void> {
  const t = await topicMetadata(r, topic);
  const described: DescribeConfigsResponse = await sendInProcess(r.broker, 32, 4, {
    resources: [{ resourceType: RESOURCE_TOPIC, resourceName: topic, configurationKeys: null }], includeSynonyms: false, includeDocumentation: false,
  }, { user: r.user });
  const configs: Record<string, string | null> = {};
  const result = described.results[0];
  if (result && result.errorCode === ErrorCode.NONE) for (const c of result.configs) configs[c.name] = c.value;
  sendV2(r, 200, { name: topic, configs, partitions: [...t.partitions].sort(byIndex).map(partitionJson) });
}

export async function listPartitions(r: RestProxyRequest, topic: string): Promise<void> {
  const t = await topicMetadata(r, topic);
  sendV2(r, 200, [...t.partitions].sort(byIndex).map(partitionJson));
}

/** A partition index from a path segment, or 40402. */
export function partitionIndexOf(segment: string, t: MetadataResponseTopic): number {
  if (!/^\d{1,9}$/.test(segment)) throw partitionNotFound();
  const p = Number(segment);
  if (!t.partitions.some((x) => x.partitionIndex === p)) throw partitionNotFound();
  return p;
}

export async function getPartition(r: RestProxyRequest, topic: string, segment: string): Promise<void> {
  const t = await topicMetadata(r, topic);
  const p = partitionIndexOf(segment, t);
  sendV2(r, 200, partitionJson(t.partitions.find((x) => x.partitionIndex === p)!));
}

/** The earliest (-2) or latest (-1) offset of partitions, in-process ListOffsets; a failed partition is its error code. */
export async function listOffsets(r: Pick<RestProxyRequest, 'broker' | 'user'>, wanted: { topic: string; partition: number }[], timestamp: -1n | -2n): Promise<Map<string, bigint | { error: number }>> {
  const topics = new Map<string, number[]>();
  for (const w of wanted) {
    const list = topics.get(w.topic);
    if (list) list.push(w.partition);
    else topics.set(w.topic, [w.partition]);
  }
  const res: ListOffsetsResponse = await sendInProcess(r.broker, 2, 7, {
    replicaId: -1, isolationLevel: 0, timeoutMs: 30_000,
    topics: [...topics].map(([name, ps]) => ({ name, partitions: ps.map((partitionIndex) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp, maxNumOffsets: 1 })) })),
  }, { user: r.user });
  const out = new Map<string, bigint | { error: number }>();
  for (const t of res.topics) {
    for (const p of t.partitions) out.set(`${t.name}\0${p.partitionIndex}`, p.errorCode === ErrorCode.NONE ? p.offset : { error: p.errorCode });
  }
  return out;
}

export async function getPartitionOffsets(r: RestProxyRequest, topic: string, segment: string): Promise<void> {
  const t = await topicMetadata(r, topic);
  const partition = partitionIndexOf(segment, t);
  const key = `${topic}\0${partition}`;
  const [begin, end] = await Promise.all([listOffsets(r, [{ topic, partition }], -2n), listOffsets(r, [{ topic, partition }], -1n)]);
  const b = begin.get(key);
  const e = end.get(key);
  if (typeof b !== 'bigint') throw kafkaError(b?.error ?? ErrorCode.UNKNOWN_SERVER_ERROR);
  if (typeof e !== 'bigint') throw kafkaError(e?.error ?? ErrorCode.UNKNOWN_SERVER_ERROR);
  sendV2(r, 200, { beginning_offset: Number(b), end_offset: Number(e) });
}

export async function listBrokers(r: RestProxyRequest): Promise<void> {
  const md = await metadata(r, []);
  sendV2(r, 200, { brokers: md.brokers.map((b) => b.nodeId).sort((a, b) => a - b) });
}
