/**
 * Probes: Produce (behaviours.md P1-P27), idempotent sequences (I1-I9) and transactional
 * verification on the produce path (R8-R9).
 */
import { batch, createTopic, initProducer, openTransaction, produce, topicId, type BatchOptions } from './fixtures.js';
import { sortAt, type Json } from './normalise.js';
import type { Probe, ProbeCtx } from './runner.js';
import { requestFrame } from './wire.js';

interface ProduceBody {
  topic?: string;
  partition?: number;
  records?: Buffer | null;
  acks?: number;
  transactionalId?: string | null;
}

const body = (topic: string, o: ProduceBody) => ({
  transactionalId: o.transactionalId ?? null,
  acks: o.acks ?? -1,
  timeoutMs: 10_000,
  topicData: [{ name: o.topic ?? topic, partitionData: [{ index: o.partition ?? 0, records: o.records === undefined ? batch() : o.records }] }],
});

/** Kafka orders a Produce response by its internal maps (appended partitions first); clients match by name. */
const sortResponses = (j: Json): Json => sortAt(sortAt(j, 'responses', 'name'), 'responses.[].partitionResponses', (x) => String((x as any).index).padStart(5, '0'));

/**
 * A Produce probe on a topic of its own (`pp-<id>`, 2 partitions, `configs`), so no probe sees
 * another's appends.
 */
function p(id: string, version: number, about: string, b: ProduceBody, extra: Partial<Probe> & { configs?: Record<string, string> } = {}): Probe {
  const topic = `pp-${id}`;
  const { configs, ...rest } = extra;
  return {
    id: `produce/${id}`,
    api: 0,
    version,
    about,
    setup: (ctx) => createTopic(ctx, topic, 2, configs ?? {}),
    body: body(topic, b),
    normalise: sortResponses,
    ...rest,
  };
}

const b = (o: BatchOptions) => batch(o);

/** An old-format (magic 0/1) message set of one message. */
function legacyMessageSet(magic: 0 | 1): Buffer {
  const value = Buffer.from('legacy');
  const bodyLen = 4 + 1 + 1 + (magic === 1 ? 8 : 0) + 4 + 4 + value.length;
  const buf = Buffer.alloc(12 + bodyLen);
  buf.writeBigInt64BE(0n, 0);
  buf.writeInt32BE(bodyLen, 8);
  let o = 16; // after the CRC (left 0: the broker rejects the format before any CRC check)
  buf.writeInt8(magic, o++);
  buf.writeInt8(0, o++);
  if (magic === 1) {
    buf.writeBigInt64BE(0n, o);
    o += 8;
  }
  buf.writeInt32BE(-1, o);
  o += 4;
  buf.writeInt32BE(value.length, o);
  value.copy(buf, o + 4);
  return buf;
}

function basicProbes(): Probe[] {
  return [
    p('v3-min', 3, 'oldest record-batch version: success (P19)', { records: b({ prefix: 'v3' }) }),
    p('v7-librdkafka-2.0', 7, 'success at the version librdkafka 2.0.2 and kafkajs send', { records: b({ prefix: 'v7', count: 3 }) }),
    p('v9-first-flexible', 9, 'success, first flexible version', { records: b({ prefix: 'v9' }) }),
    p('v11-max', 11, 'success at the newest advertised version', { records: b({ prefix: 'v11' }), partition: 1 }),
    p('v12-non-transactional', 12, 'success at v12 (transactions V2 changes only transactional batches)', { records: b({ prefix: 'v12' }) }),
    {
      ...p('v13-max', 13, 'success at v13, the topic named by its id (KIP-516)', { records: b({ prefix: 'v13' }) }),
      setup: async (ctx: ProbeCtx) => {
        await createTopic(ctx, 'pp-v13-max', 2, {});
        ctx.state['pp-v13-max'] = await topicId(ctx, 'pp-v13-max');
      },
      body: (ctx: ProbeCtx) => ({ transactionalId: null, acks: -1, timeoutMs: 10_000, topicData: [{ name: '', topicId: ctx.state['pp-v13-max'], partitionData: [{ index: 0, records: b({ prefix: 'v13' }) }] }] }),
      // The topic id differs between the two targets; the answer names it.
      normalise: (j: Json) => sortResponses(JSON.parse(JSON.stringify(j).replace(/"topicId":"[^"]*"/g, '"topicId":"<id>"')) as Json),
    },
    p('v0-refused', 0, 'Produce v0 (message format 0): Kafka 4 closes the connection (X1)', { records: legacyMessageSet(0) }),
    p('v2-refused', 2, 'Produce v2 (message format 1)', { records: legacyMessageSet(1) }),
    p('v9-unknown-topic', 9, 'unknown topic (P1): never auto-created', { topic: 'probe-produce-missing' }),
    p('v9-partition-out-of-range', 9, 'partition index >= partition count (P2)', { partition: 5 }),
    p('v9-negative-partition', 9, 'negative partition index (P2)', { partition: -1 }),
    p('v9-acks-2', 9, 'acks=2 (P3): INVALID_REQUIRED_ACKS', { acks: 2 }),
    p('v9-acks-minus-2', 9, 'acks=-2 (P3)', { acks: -2 }),
    p('v9-acks-0-success', 9, 'acks=0, success (P4): no response at all', { acks: 0, records: b({ prefix: 'acks0' }) }),
    p('v9-acks-0-error', 9, 'acks=0 with an unknown topic (P5): connection closed', { acks: 0, topic: 'probe-produce-missing' }),
    p('v9-acks-1', 9, 'acks=1 success', { acks: 1, records: b({ prefix: 'acks1' }) }),
    p('v9-bad-crc', 9, 'batch CRC does not match (P6): CORRUPT_MESSAGE', { records: b({ patch: (x) => x.writeUInt32BE(0x12345678, 17) }) }),
    p('v9-too-large', 9, 'batch larger than max.message.bytes (P7): MESSAGE_TOO_LARGE', { records: b({ count: 20 }) }, { configs: { 'max.message.bytes': '200' } }),
    p('v9-too-large-bad-crc', 9, 'oversized batch with a bad CRC (P7: size checked first)', { records: b({ count: 20, patch: (x) => x.writeUInt32BE(1, 17) }) }, { configs: { 'max.message.bytes': '200' } }),
    p('v9-magic-1', 9, 'magic 1 message set on v3+ (P8): INVALID_RECORD', { records: legacyMessageSet(1) }),
    p('v9-magic-0', 9, 'magic 0 message set on v3+ (P8)', { records: legacyMessageSet(0) }),
    p('v9-magic-3', 9, 'magic 3 (P9): CORRUPT_MESSAGE', { records: b({ patch: (x) => x.writeInt8(3, 16) }) }),
    p('v9-batch-length-below-14', 9, 'declared batch length < 14 (P9)', { records: b({ patch: (x) => x.writeInt32BE(10, 8) }) }),
    p('v9-empty-records', 9, 'zero-length records (P10): INVALID_RECORD', { records: Buffer.alloc(0) }),
    p('v9-truncated-batch', 9, 'one batch shorter than its declared length (P10)', { records: b({ count: 2 }).subarray(0, 70) }),
    p('v9-two-batches', 9, 'two batches in one partition (P11): INVALID_RECORD', { records: Buffer.concat([b({ prefix: 'two-a' }), b({ prefix: 'two-b' })]) }),
    p('v7-zstd', 7, 'zstd batch on Produce v7: accepted', { records: b({ compression: 'zstd', prefix: 'zstd7' }) }),
    p('v6-zstd', 6, 'zstd batch on Produce v3-6 (P12): UNSUPPORTED_COMPRESSION_TYPE', { records: b({ compression: 'zstd', prefix: 'zstd6' }) }),
    p('v9-gzip', 9, 'gzip batch: accepted', { records: b({ compression: 'gzip', prefix: 'gzip', count: 4 }) }),
    p('v9-base-offset-nonzero', 9, 'batch base offset != 0 (P13): INVALID_RECORD', { records: b({ baseOffset: 5n }) }),
    p('v9-last-offset-delta-mismatch', 9, 'lastOffsetDelta + 1 != record count (P14)', { records: b({ count: 2, patch: (x) => x.writeInt32BE(5, 23), recrc: true }) }),
    p('v9-record-count-zero', 9, 'record count 0 (P14)', { records: b({ patch: (x) => x.writeInt32BE(0, 57), recrc: true }) }),
    p('v9-control-bit', 9, 'control bit on a client batch (P15): INVALID_RECORD', { records: b({ control: true }) }),
    p('v9-pid-without-sequence', 9, 'producer_id >= 0 with base_sequence -1 (P16)', { records: b({ producerId: 999_999n, producerEpoch: 0, baseSequence: -1 }) }),
    p('v9-timestamp-far-future', 9, 'CreateTime two hours ahead (P17: message.timestamp.after.max.ms = 1 h)', {
      records: b({ records: [{ key: Buffer.from('k'), value: Buffer.from('v'), timestamp: BigInt(Date.now() + 2 * 3600_000) }] }),
    }),
    p('v9-log-append-time-bit-create-topic', 9, 'LogAppendTime bit on a CreateTime topic, in-range timestamp (P17b): accepted', { records: b({ timestampType: 'logAppend', prefix: 'latbit' }) }),
    p('v9-log-append-time-topic', 9, 'LogAppendTime topic (P20): log_append_time set', { records: b({ prefix: 'lat' }) }, { configs: { 'message.timestamp.type': 'LogAppendTime' } }),
    p('v9-log-append-time-bit-on-lat-topic', 9, 'LogAppendTime bit on a LogAppendTime topic (P17b)', { records: b({ timestampType: 'logAppend', prefix: 'lat2' }) }, { configs: { 'message.timestamp.type': 'LogAppendTime' } }),
    p('v9-compacted-no-key', 9, 'compacted topic, record without key (P18): INVALID_RECORD', { records: b({ keys: false }) }, { configs: { 'cleanup.policy': 'compact' } }),
    p('v9-compacted-with-key', 9, 'compacted topic, keyed record: accepted', { records: b({ prefix: 'ck' }) }, { configs: { 'cleanup.policy': 'compact' } }),
    p('v9-internal-topic', 9, 'write to __consumer_offsets by a client (P21): INVALID_TOPIC_EXCEPTION', { topic: '__consumer_offsets', records: b({}) }),
    p('v9-transactional-without-id', 9, 'transactional batch, transactional_id null (P22): TRANSACTIONAL_ID_AUTHORIZATION_FAILED', {
      records: b({ producerId: 999_998n, producerEpoch: 0, baseSequence: 0, transactional: true }),
    }),
    p('v9-min-isr-2', 9, 'acks=-1, min.insync.replicas=2 on one replica (P24): accepted', { records: b({ prefix: 'isr' }) }, { configs: { 'min.insync.replicas': '2' } }),
    // Kafka never answers this one (nor anything after it on that connection): the outcome is "timeout".
    p('v9-null-records', 9, 'records null (P27)', { records: null }, { deadlineMs: 2000 }),
    p('v9-trailing-bytes', 9, 'bytes after the body are ignored', {}, {
      frame: () => requestFrame(0, 9, body('pp-v9-trailing-bytes', { records: b({ prefix: 'trail' }) }), { correlationId: 7, trailing: Buffer.from([1, 2, 3]) }),
    }),
    p('v9-two-topics-one-unknown', 9, 'one unknown topic next to a good one (P1: the others are handled normally)', {}, {
      body: {
        transactionalId: null,
        acks: -1,
        timeoutMs: 10_000,
        topicData: [
          { name: 'probe-produce-missing', partitionData: [{ index: 0, records: b({}) }] },
          { name: 'pp-v9-two-topics-one-unknown', partitionData: [{ index: 1, records: b({ prefix: 'mixed' }) }] },
        ],
      },
    }),
  ];
}

/** A fresh idempotent producer with `batches` accepted one-record batches (sequences 0..n-1) on `topic`. */
async function idemProducer(ctx: ProbeCtx, name: string, topic: string, batches: number): Promise<void> {
  const pr = await initProducer(ctx, name, null);
  ctx.state[name] = pr;
  for (let i = 0; i < batches; i++) {
    await produce(ctx, topic, 0, batch({ producerId: pr.producerId, producerEpoch: pr.producerEpoch, baseSequence: i, prefix: `${name}-${i}-` }));
  }
}

/** An idempotent-producer probe on a topic of its own (`pi-<id>`). */
function idem(id: string, about: string, batches: number, mk: (pr: { producerId: bigint; producerEpoch: number }) => BatchOptions, version = 9): Probe {
  const topic = `pi-${id}`;
  return {
    id: `produce/idempotent-${id}`,
    api: 0,
    version,
    about,
    setup: async (ctx) => {
      await createTopic(ctx, topic, 1);
      if (batches >= 0) await idemProducer(ctx, topic, topic, batches);
    },
    body: (ctx) => body(topic, { records: batch(mk(ctx.state[topic])) }),
  };
}

function idempotentProbes(): Probe[] {
  return [
    idem('unallocated-pid-seq-42', 'first batch of a producer id the partition has no state for, sequence 42 (I1): accepted', -1, () => ({ producerId: 424_242n, producerEpoch: 3, baseSequence: 42, prefix: 'i1' })),
    idem('exact-retry', 'exact retry of the last batch (I2): NONE, offset of the original', 2, (pr) => ({ ...pr, baseSequence: 1, prefix: 'pi-exact-retry-1-' })),
    idem('retry-older', 'retry of the first of 2 batches (I2: within the last 5)', 2, (pr) => ({ ...pr, baseSequence: 0, prefix: 'pi-retry-older-0-' })),
    idem('retry-beyond-five', 'retry of a batch older than the 5 remembered (I3): OUT_OF_ORDER_SEQUENCE_NUMBER', 7, (pr) => ({ ...pr, baseSequence: 0, prefix: 'pi-retry-beyond-five-0-' })),
    idem('sequence-gap', 'sequence gap (I4): OUT_OF_ORDER_SEQUENCE_NUMBER', 1, (pr) => ({ ...pr, baseSequence: 5 })),
    idem('epoch-lower', 'epoch lower than stored (I5): INVALID_PRODUCER_EPOCH', 1, (pr) => ({ producerId: pr.producerId, producerEpoch: pr.producerEpoch - 1, baseSequence: 1 })),
    idem('epoch-higher-seq-0', 'epoch higher than stored, sequence 0 (I6): accepted', 1, (pr) => ({ producerId: pr.producerId, producerEpoch: pr.producerEpoch + 1, baseSequence: 0 })),
    idem('epoch-higher-seq-3', 'epoch higher than stored, sequence 3 (I6): OUT_OF_ORDER_SEQUENCE_NUMBER', 1, (pr) => ({ producerId: pr.producerId, producerEpoch: pr.producerEpoch + 1, baseSequence: 3 })),
    idem('in-sequence', 'next sequence, three records (accepted)', 1, (pr) => ({ ...pr, baseSequence: 1, count: 3 })),
    idem('v3-min', 'idempotent batch at Produce v3', -1, () => ({ producerId: 555_555n, producerEpoch: 0, baseSequence: 0, prefix: 'iv3' }), 3),
    {
      ...idem('sequence-wrap', 'last sequence 2147483647, next batch at 0 (I7): accepted', -1, () => ({ producerId: 777_777n, producerEpoch: 0, baseSequence: 0, prefix: 'wrap2' })),
      setup: async (ctx) => {
        await createTopic(ctx, 'pi-sequence-wrap', 1);
        await produce(ctx, 'pi-sequence-wrap', 0, batch({ producerId: 777_777n, producerEpoch: 0, baseSequence: 2147483647, prefix: 'wrap' }));
      },
    },
  ];
}

function transactionalProbes(): Probe[] {
  /** A transactional-produce probe on its own topic `pt-<id>` with its own transactional id. */
  const tx = (id: string, version: number, about: string, open: boolean, mk: (topic: string, pr: { producerId: bigint; producerEpoch: number }) => ProduceBody): Probe => {
    const topic = `pt-${id}`;
    return {
      id: `produce/txn-${id}`,
      api: 0,
      version,
      about,
      setup: async (ctx) => {
        await createTopic(ctx, topic, 1);
        ctx.state[topic] = open ? await openTransaction(ctx, topic, topic) : await initProducer(ctx, topic, topic);
      },
      body: (ctx) => body(topic, mk(topic, ctx.state[topic])),
    };
  };
  const txBatch = (pr: { producerId: bigint; producerEpoch: number }, seq: number, o: BatchOptions = {}) => batch({ producerId: pr.producerId, producerEpoch: pr.producerEpoch, baseSequence: seq, transactional: true, ...o });
  return [
    tx('partition-not-added-v9', 9, 'transactional batch to a partition not in the transaction (R8): INVALID_TXN_STATE on v <= 10', false, (t, pr) => ({ transactionalId: t, records: txBatch(pr, 0) })),
    tx('partition-not-added-v11', 11, 'same on v11 (R8): TRANSACTION_ABORTABLE', false, (t, pr) => ({ transactionalId: t, records: txBatch(pr, 0) })),
    tx('unknown-transactional-id', 9, 'transactional_id unknown to the coordinator (R9): INVALID_PRODUCER_ID_MAPPING', false, () => ({
      transactionalId: 'probe-ptx-never-initialised', records: txBatch({ producerId: 888_888n, producerEpoch: 0 }, 0),
    })),
    tx('pid-mismatch', 9, 'transactional batch whose producer id is not the transactional id\'s (R9)', true, (t, pr) => ({
      transactionalId: t, records: txBatch({ producerId: pr.producerId + 12345n, producerEpoch: pr.producerEpoch }, 0),
    })),
    tx('added-partition', 9, 'next batch in the open transaction: accepted', true, (t, pr) => ({ transactionalId: t, records: txBatch(pr, 1, { prefix: 'd1' }) })),
    tx('stale-epoch', 9, 'transactional batch with an epoch below the coordinator\'s (R10)', true, (t, pr) => ({ transactionalId: t, records: txBatch({ ...pr, producerEpoch: pr.producerEpoch - 1 }, 1) })),
    tx('non-transactional-while-open', 9, 'non-transactional batch from a producer with an open transaction here (I9): INVALID_TXN_STATE', true, (_t, pr) => ({
      records: batch({ ...pr, baseSequence: 1 }),
    })),
  ];
}

export function produceProbes(): Probe[] {
  return [...basicProbes(), ...idempotentProbes(), ...transactionalProbes()];
}
