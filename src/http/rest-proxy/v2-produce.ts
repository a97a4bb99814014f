/**
 * REST Proxy v2 produce (Confluent's ProduceToTopicAction / ProduceToPartitionAction):
 * `POST /topics/{t}` and `POST /topics/{t}/partitions/{p}` with a body `{records: [{key?, value,
 * partition?}]}` in the embedded format the Content-Type names: `application/vnd.kafka.json.v2+json`
 * (keys and values are JSON, stored as their JSON text), `application/vnd.kafka.binary.v2+json`
 * (base64; also what a bare `application/vnd.kafka.v2+json` or JSON body means), or avro,
 * jsonschema, protobuf with the Schema Registry (v2-schema-produce.ts). Answer:
 * `{offsets: [{partition, offset, error_code, error}], key_schema_id, value_schema_id}`.
 *
 * Records go through the broker's own Produce path in-process (acks=all), one batch per partition.
 * Partitioning is the Java producer's default: murmur2 of the serialized key, and records without a
 * key of one request stick to one partition (KIP-794). A missing topic is created when
 * auto.create.topics.enable allows (Metadata with allowAutoTopicCreation, as the producer asks).
 */
import type { RestProxyRequest } from './rest-common.js';
import { sendInProcess } from '../in-process.js';
import type { OutRecord } from './v2-common.js';
import { buildRecordBatch } from '../../protocol/records/record.js';
import { ErrorCode, isRetriable } from '../../protocol/generated/error-codes.js';
import type { ProduceResponse } from '../../protocol/generated/messages/produce-response.js';
import type { MetadataResponseTopic } from '../../protocol/generated/messages/metadata-response.js';
import { partitionForKey } from '../../protocol/murmur2.js';
import {
  embeddedFormatOf, isAuthorizationError, jsonBody, kafkaError, kafkaMessage, produceRecordsOf, recordPartitionOf, sendV2, sleep, topicNotFound, unprocessable, V2Error, type EmbeddedFormat,
} from './v2-common.js';
import { schemaRecords, type SchemaRecords } from './v2-schema-produce.js';
import { metadata, partitionIndexOf, topicMetadata } from './v2-topics.js';

const PRODUCE_VERSION = 9;
const PRODUCE_TIMEOUT_MS = 30_000;
/** How long a produce waits for a topic it just created (or one without leaders) to be writable. */
const TOPIC_READY_WAIT_MS = 10_000;


interface PartitionOffset {
  partition: number | null;
  offset: number | null;
  error_code: number | null;
  error: string | null;
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** A key or value in the request's embedded format as record bytes (null stays null: a tombstone). */
function encode(v: unknown, fmt: 'json' | 'binary', what: string): Buffer | null {
  if (v === null || v === undefined) return null;
  if (fmt === 'json') return Buffer.from(JSON.stringify(v), 'utf8');
  if (typeof v !== 'string') throw unprocessable(`${what}: binary data must be a base64 string`);
  const compact = v.replace(/\s+/g, '');
  if (!BASE64.test(compact)) throw unprocessable(`${what}: illegal base64 data`);
  return Buffer.from(compact, compact.includes('-') || compact.includes('_') ? 'base64url' : 'base64');
}

/** The embedded format of a produce request, from its Content-Type (binary when it names none). */
function produceFormat(r: RestProxyRequest): EmbeddedFormat {
  return embeddedFormatOf(r.req.headers['content-type'] ?? '') ?? 'binary';
}

function parseRecords(body: Record<string, unknown> | null, fmt: 'json' | 'binary', perRecordPartition: boolean): OutRecord[] {
  return produceRecordsOf(body).map((o, i) => ({
    key: encode(o.key, fmt, `records[${i}].key`), value: encode(o.value, fmt, `records[${i}].value`), partition: recordPartitionOf(o, i, perRecordPartition),
  }));
}

/**
 * The topic's metadata once every partition has a leader: created first when the broker
 * auto-creates topics; 40401 when it does not exist, 40301 when the user may not see it.
 */
async function writableTopic(r: RestProxyRequest, topic: string): Promise<MetadataResponseTopic> {
  const deadline = Date.now() + TOPIC_READY_WAIT_MS;
  for (;;) {
    const t = (await metadata(r, [topic], true)).topics[0];
    const code = t?.errorCode ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    if (code === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION || code === ErrorCode.INVALID_TOPIC_EXCEPTION) throw topicNotFound();
    if (isAuthorizationError(code)) throw kafkaError(code, `Not authorized to access topics: [${topic}]`);
    const ready = code === ErrorCode.NONE && t.partitions.length > 0 && t.partitions.every((p) => p.leaderId >= 0);
    if (ready) return t;
    if (Date.now() >= deadline) {
      if (code !== ErrorCode.NONE) throw kafkaError(code);
      return t;
    }
    await sleep(100);
  }
}

/** A record's error as Confluent's producer callback reports it (per record, not for the request). */
function recordError(code: number, message: string | null): PartitionOffset {
  const text = message ?? kafkaMessage(code);
  let errorCode: number = isRetriable(code) ? V2Error.KAFKA_RETRIABLE_ERROR : V2Error.KAFKA_ERROR;
  if (isAuthorizationError(code)) errorCode = V2Error.KAFKA_AUTHORIZATION;
  else if (code === ErrorCode.SASL_AUTHENTICATION_FAILED) errorCode = V2Error.KAFKA_AUTHENTICATION;
  return { partition: null, offset: null, error_code: errorCode, error: text };
}

/** Produces the records (each with its partition chosen) and answers one PartitionOffset per record, in order. */
async function produceRecords(r: RestProxyRequest, topic: string, records: OutRecord[], partitions: number): Promise<PartitionOffset[]> {
  const results: (PartitionOffset | null)[] = records.map(() => null);
  const byPartition = new Map<number, number[]>();
  const sticky = Math.floor(Math.random() * partitions);
  records.forEach((rec, i) => {
    if (rec.partition !== null && rec.partition >= partitions) {
      results[i] = recordError(ErrorCode.UNKNOWN_SERVER_ERROR, `Invalid partition given with record: ${rec.partition} is not in the range [0...${partitions}).`);
      return;
    }
    const p = rec.partition ?? (rec.key !== null ? partitionForKey(rec.key, partitions) : sticky);
    const list = byPartition.get(p);
    if (list) list.push(i);
    else byPartition.set(p, [i]);
  });
  if (byPartition.size > 0) {
    const now = BigInt(Date.now());
    const partitionData = [...byPartition].map(([index, idx]) => ({
      index, records: buildRecordBatch({ records: idx.map((i) => ({ key: records[i].key, value: records[i].value, timestamp: now })) }),
    }));
    const res: ProduceResponse = await sendInProcess(r.broker, 0, PRODUCE_VERSION, {
      transactionalId: null, acks: -1, timeoutMs: PRODUCE_TIMEOUT_MS, topicData: [{ name: topic, partitionData }],
    }, { user: r.user });
    const answers = new Map<number, { errorCode: number; baseOffset: bigint; errorMessage: string | null }>();
    for (const t of res.responses) for (const p of t.partitionResponses) answers.set(p.index, p);
    for (const [p, idx] of byPartition) {
      const a = answers.get(p);
      idx.forEach((i, n) => {
        if (!a) results[i] = recordError(ErrorCode.UNKNOWN_SERVER_ERROR, 'no answer for the partition');
        else if (a.errorCode !== ErrorCode.NONE) results[i] = recordError(a.errorCode, a.errorMessage);
        else results[i] = { partition: p, offset: Number(a.baseOffset) + n, error_code: null, error: null };
      });
    }
  }
  return results as PartitionOffset[];
}

function answer(r: RestProxyRequest, offsets: PartitionOffset[], keySchemaId: number | null, valueSchemaId: number | null): void {
  // ProduceResponse.getRequestStatus: 401/403 when a record failed so, else 200.
  let status = 200;
  if (offsets.some((o) => o.error_code === V2Error.KAFKA_AUTHENTICATION)) status = 401;
  else if (offsets.some((o) => o.error_code === V2Error.KAFKA_AUTHORIZATION)) status = 403;
  sendV2(r, status, { offsets, key_schema_id: keySchemaId, value_schema_id: valueSchemaId });
}

/**
 * The request's records as bytes: json and binary read at once (`plain`), the Schema Registry
 * formats once the topic is known to exist (`withSchemas`: schemas are registered then).
 */
async function readRequest(r: RestProxyRequest, perRecordPartition: boolean): Promise<{ plain: OutRecord[] | null; withSchemas: (topic: string) => Promise<SchemaRecords> }> {
  const fmt = produceFormat(r);
  const body = await jsonBody(r);
  if (fmt === 'json' || fmt === 'binary') {
    const plain = parseRecords(body, fmt, perRecordPartition);
    return { plain, withSchemas: async () => ({ records: plain, keySchemaId: null, valueSchemaId: null }) };
  }
  produceRecordsOf(body);
  return { plain: null, withSchemas: (topic) => schemaRecords(r, topic, body!, fmt, perRecordPartition) };
}

/** `POST /topics/{t}`. */
export async function produceToTopic(r: RestProxyRequest, topic: string): Promise<void> {
  const request = await readRequest(r, true);
  const t = await writableTopic(r, topic);
  const { records, keySchemaId, valueSchemaId } = await request.withSchemas(topic);
  answer(r, await produceRecords(r, topic, records, t.partitions.length), keySchemaId, valueSchemaId);
}

/** `POST /topics/{t}/partitions/{p}`: every record to that partition (40402 when it does not exist). */
export async function produceToPartition(r: RestProxyRequest, topic: string, segment: string): Promise<void> {
  const request = await readRequest(r, false);
  const t = await topicMetadata(r, topic);
  const partition = partitionIndexOf(segment, t);
  const { records, keySchemaId, valueSchemaId } = await request.withSchemas(topic);
  for (const rec of records) rec.partition = partition;
  answer(r, await produceRecords(r, topic, records, t.partitions.length), keySchemaId, valueSchemaId);
}
