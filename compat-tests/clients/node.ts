/**
 * In-process drivers: kafkajs 2.2.4 and @platformatic/kafka. Errors are caught and normalised
 * (lib/errors.ts); every wait is bounded.
 */
import kafkajs from 'kafkajs';
import { Admin as PAdmin, Consumer as PConsumer, Producer as PProducer } from '@platformatic/kafka';
import { fromJs } from '../lib/errors.js';
import type { Codec, Driver, ErrName, GroupPoll, OutRec, ProduceOpts, ProduceResult, ReadOpts, Rec } from '../lib/types.js';

const { Kafka, logLevel, CompressionTypes, ConfigResourceTypes } = kafkajs;
process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';

const b64 = (b: Buffer | null | undefined): string | null => (b === null || b === undefined ? null : Buffer.from(b).toString('base64'));
const unb64 = (s: string | null | undefined): Buffer | null => (s === null || s === undefined ? null : Buffer.from(s, 'base64'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Offsets per record from per-partition base offsets (records of one partition are sent in order). */
function perRecordOffsets(records: OutRec[], base: Map<number, number>, partitionOf: (i: number) => number | undefined): ProduceResult['acks'] {
  const next = new Map(base);
  return records.map((_, i) => {
    const p = partitionOf(i);
    if (p === undefined || !next.has(p)) return { partition: p, error: null };
    const o = next.get(p)!;
    next.set(p, o + 1);
    return { partition: p, offset: o, error: null };
  });
}

async function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<T>((_, rej) => { t = setTimeout(() => rej(new Error(`${what}: no answer within ${ms} ms`)), ms); })]);
  } finally {
    clearTimeout(t);
  }
}

// ---------------------------------------------------------------------------------------------
// kafkajs
// ---------------------------------------------------------------------------------------------

export async function kafkajsDriver(bootstrap: string, runId: string): Promise<Driver> {
  const mk = (clientId = 'compat-kafkajs', retries = 3) => new Kafka({ clientId, brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries, initialRetryTime: 100, maxRetryTime: 1000 } });
  const kafka = mk();
  const admin = kafka.admin();
  await admin.connect();
  const producers = new Map<string, kafkajs.Producer>();
  const groups = new Map<string, { consumer: kafkajs.Consumer; buf: Rec[]; assignment: number[]; assigns: number; next: Map<number, number>; topic: string }>();
  const codec: Record<string, number> = { none: CompressionTypes.None, gzip: CompressionTypes.GZIP };
  let seq = 0;

  const toMsg = (r: OutRec) => {
    const headers: Record<string, any> = {};
    for (const [k, v] of r.headers ?? []) {
      const val = unb64(v);
      headers[k] = k in headers ? [...(Array.isArray(headers[k]) ? headers[k] : [headers[k]]), val] : val;
    }
    return { partition: r.partition, key: unb64(r.key), value: unb64(r.value), headers, timestamp: r.timestamp !== undefined ? String(r.timestamp) : undefined };
  };
  const toRec = (partition: number, m: kafkajs.KafkaMessage): Rec => {
    const headers: [string, string | null][] = [];
    for (const [k, v] of Object.entries(m.headers ?? {})) {
      for (const x of Array.isArray(v) ? v : [v]) headers.push([k, b64(x as Buffer | null)]);
    }
    return { partition, offset: Number(m.offset), timestamp: Number(m.timestamp), tstype: null, key: b64(m.key), value: b64(m.value), headers };
  };

  const d: Driver = {
    name: 'kafkajs',
    version: 'kafkajs 2.2.4',
    writeCodecs: ['gzip'],
    readCodecs: ['gzip'],
    can: { nullKey: true, emptyKey: true, nullValue: true, emptyValue: true, headers: true, nullHeaderValue: false, binaryKey: true, explicitTimestamp: true, explicitPartition: true, reportsTimestampType: false },
    lacks: {
      codecs: 'kafkajs ships gzip only (snappy, lz4, zstd need codec plugins that are not installed)',
      staticMembership: 'kafkajs 2.2.4 has no group.instance.id',
      resetNone: 'kafkajs consumers always reset an out-of-range offset (no auto.offset.reset=none)',
    },
    async produce(topic, records, o: ProduceOpts = {}) {
      let producer = o.handle ? producers.get(o.handle) : undefined;
      if (!producer) {
        const k = o.clientId ? mk(o.clientId, o.failFast ? 1 : 5) : o.failFast ? mk('compat-kafkajs', 1) : kafka;
        producer = k.producer({ idempotent: !!o.idempotent, maxInFlightRequests: o.idempotent ? 1 : undefined, allowAutoTopicCreation: true });
        await producer.connect();
        if (o.handle) producers.set(o.handle, producer);
      }
      try {
        const res = await producer.send({ topic, acks: o.acks ?? -1, compression: codec[o.compression ?? 'none'], messages: records.map(toMsg) });
        const base = new Map(res.map((x) => [x.partition, Number(x.baseOffset)]));
        return { error: null, acks: perRecordOffsets(records, base, (i) => records[i].partition ?? (res.length === 1 ? res[0].partition : undefined)) };
      } catch (e) {
        const error = fromJs(e);
        return { error, acks: records.map(() => ({ error })) };
      } finally {
        if (!o.handle) await producer.disconnect();
      }
    },
    async closeProducer(handle) {
      await producers.get(handle)?.disconnect();
      producers.delete(handle);
    },
    async read(topic, o: ReadOpts) {
      // kafkajs consumers always join a group: a fresh group per read, no commits.
      const consumer = kafka.consumer({ groupId: `compat-kafkajs-read-${runId}-${seq++}`, readUncommitted: o.isolation === 'read_uncommitted', maxWaitTimeInMs: 100, sessionTimeout: 10000, heartbeatInterval: 1000, retry: { retries: 2 } });
      const out: Rec[] = [];
      const seen = new Set<string>();
      const errors: ErrName[] = [];
      let done!: () => void;
      const finished = new Promise<void>((r) => { done = r; });
      try {
        await consumer.connect();
        const fromBeginning = o.from === 'earliest' || (typeof o.from === 'number' && o.reset !== 'latest');
        await consumer.subscribe({ topic, fromBeginning });
        consumer.on(consumer.events.CRASH, (e) => { errors.push(fromJs(e.payload.error)); done(); });
        await consumer.run({
          autoCommit: false,
          eachMessage: async ({ partition, message }) => {
            if (!o.partitions.includes(partition)) return;
            // Without commits, a rebalance while reading (Kafka may rebalance as a new topic's
            // metadata settles) hands the same records out again: keep each offset once.
            const at = `${partition}:${message.offset}`;
            if (seen.has(at)) return;
            seen.add(at);
            out.push(toRec(partition, message));
            if (out.length >= o.count) done();
          },
        });
        if (typeof o.from === 'number') for (const p of o.partitions) consumer.seek({ topic, partition: p, offset: String(o.from) });
        await Promise.race([finished, sleep(o.timeoutMs)]);
      } catch (e) {
        errors.push(fromJs(e));
      } finally {
        await withDeadline(consumer.disconnect(), 15000, 'kafkajs disconnect').catch(() => {});
      }
      return { records: out.slice(0, Math.max(o.count, 0)), errors };
    },
    async createTopic(t) {
      try {
        const created = await admin.createTopics({ topics: [{ topic: t.name, numPartitions: t.partitions, configEntries: Object.entries(t.configs ?? {}).map(([name, value]) => ({ name, value })) }], waitForLeaders: false });
        // kafkajs resolves false (not an error) when the topic already exists.
        return created ? null : 'TOPIC_ALREADY_EXISTS';
      } catch (e) {
        return fromJs(e);
      }
    },
    async deleteTopic(name) {
      try {
        await admin.deleteTopics({ topics: [name], timeout: 10000 });
        return null;
      } catch (e) {
        return fromJs(e);
      }
    },
    async describeTopic(name) {
      try {
        const md = await admin.fetchTopicMetadata({ topics: [name] });
        return { error: null, partitions: md.topics[0].partitions.length };
      } catch (e) {
        return { error: fromJs(e) };
      }
    },
    async describeConfigs(topic) {
      try {
        const r = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }], includeSynonyms: false });
        const res = r.resources[0];
        if (res.errorCode) return { error: fromJs({ errorCode: res.errorCode }) };
        return { error: null, configs: Object.fromEntries(res.configEntries.map((c) => [c.configName, c.configValue])) };
      } catch (e) {
        return { error: fromJs(e) };
      }
    },
    async alterConfigs(topic, set) {
      try {
        await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: Object.entries(set).map(([name, value]) => ({ name, value })) }] });
        return null;
      } catch (e) {
        return fromJs(e);
      }
    },
    async listOffsets(topic, partition, timestamps) {
      const offs = await admin.fetchTopicOffsets(topic);
      const p = offs.find((x) => x.partition === partition)!;
      const byTime: Record<string, number> = {};
      for (const ts of timestamps) {
        const r = await admin.fetchTopicOffsetsByTimestamp(topic, ts);
        byTime[String(ts)] = Number(r.find((x) => x.partition === partition)!.offset);
      }
      return { earliest: Number(p.low), latest: Number(p.high), byTime };
    },
    async deleteRecords(topic, partition, before) {
      try {
        // kafkajs looks the leader up in the admin's cached metadata only: load it first.
        await admin.fetchTopicMetadata({ topics: [topic] });
        await admin.deleteTopicRecords({ topic, partitions: [{ partition, offset: String(before) }] });
        const offs = await admin.fetchTopicOffsets(topic);
        return { error: null, lowWatermark: Number(offs.find((x) => x.partition === partition)!.low) };
      } catch (e) {
        return { error: fromJs(e) };
      }
    },
    async groupOpen(o) {
      const consumer = kafka.consumer({ groupId: o.group, sessionTimeout: o.sessionTimeoutMs ?? 6000, heartbeatInterval: 500, rebalanceTimeout: 10000, maxWaitTimeInMs: 100, retry: { retries: 5 } });
      const g = { consumer, buf: [] as Rec[], assignment: [] as number[], assigns: 0, next: new Map<number, number>(), topic: o.topic };
      consumer.on(consumer.events.GROUP_JOIN, (e) => {
        g.assignment = ((e.payload.memberAssignment[o.topic] ?? []) as number[]).slice().sort((a, b) => a - b);
        g.assigns++;
      });
      await consumer.connect();
      await consumer.subscribe({ topic: o.topic, fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachMessage: async ({ partition, message }) => {
          g.buf.push(toRec(partition, message));
          g.next.set(partition, Number(message.offset) + 1);
        },
      });
      groups.set(o.handle, g);
    },
    async groupPoll(handle, timeoutMs, max = 1000): Promise<GroupPoll> {
      const g = groups.get(handle)!;
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline && g.buf.length < max) await sleep(50);
      const records = g.buf.splice(0, max);
      return { records, errors: [], assignment: g.assignment, assigns: g.assigns };
    },
    async groupCommit(handle) {
      const g = groups.get(handle)!;
      try {
        await g.consumer.commitOffsets([...g.next].map(([partition, offset]) => ({ topic: g.topic, partition, offset: String(offset) })));
        return null;
      } catch (e) {
        return fromJs(e);
      }
    },
    async groupClose(handle) {
      const g = groups.get(handle);
      groups.delete(handle);
      await withDeadline(g!.consumer.disconnect(), 20000, 'kafkajs consumer disconnect').catch(() => {});
    },
    async transactions(topic, transactionalId, batches) {
      const producer = kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 });
      const results: ProduceResult[] = [];
      try {
        await producer.connect();
        for (const b of batches) {
          const txn = await producer.transaction();
          const res = await txn.send({ topic, acks: -1, messages: b.records.map(toMsg) });
          if (b.commit) await txn.commit();
          else await txn.abort();
          const base = new Map(res.map((x) => [x.partition, Number(x.baseOffset)]));
          results.push({ error: null, acks: perRecordOffsets(b.records, base, (i) => b.records[i].partition) });
        }
        return { error: null, results };
      } catch (e) {
        return { error: fromJs(e), results };
      } finally {
        await producer.disconnect().catch(() => {});
      }
    },
    async close() {
      for (const p of producers.values()) await p.disconnect().catch(() => {});
      for (const h of [...groups.keys()]) await d.groupClose!(h);
      await admin.disconnect();
    },
  };
  return d;
}

// ---------------------------------------------------------------------------------------------
// @platformatic/kafka
// ---------------------------------------------------------------------------------------------

export async function platformaticDriver(bootstrap: string, runId: string): Promise<Driver> {
  const base = { bootstrapBrokers: [bootstrap], retries: 2, retryDelay: 200, timeout: 10_000 };
  const admin = new PAdmin({ clientId: 'compat-platformatic-admin', ...base });
  const reader = new PConsumer({ clientId: 'compat-platformatic-reader', groupId: `compat-platformatic-unused-${runId}`, ...base });
  const producers = new Map<string, PProducer<Buffer, Buffer, Buffer, Buffer>>();
  const groups = new Map<string, { consumer: PConsumer<Buffer, Buffer, Buffer, Buffer>; stream: any; buf: Rec[]; assigns: number; topic: string; next: Map<number, number> }>();

  const toMessages = (topic: string, records: OutRec[]) => records.map((r) => ({
    topic,
    partition: r.partition,
    key: unb64(r.key) ?? undefined,
    value: unb64(r.value) ?? undefined,
    headers: r.headers && r.headers.length ? new Map(r.headers.map(([k, v]) => [Buffer.from(k), unb64(v) as Buffer])) : undefined,
    timestamp: r.timestamp !== undefined ? BigInt(r.timestamp) : undefined,
  }));
  const offsetsFrom = (records: OutRec[], res: { offsets?: { partition: number; offset: bigint }[] }) => {
    const baseMap = new Map((res.offsets ?? []).map((o) => [o.partition, Number(o.offset)]));
    return perRecordOffsets(records, baseMap, (i) => records[i].partition ?? (baseMap.size === 1 ? [...baseMap.keys()][0] : undefined));
  };
  const listOff = async (topic: string, partition: number, ts: bigint): Promise<number> => {
    const m = await reader.listOffsets({ topics: [topic], partitions: { [topic]: [partition] }, timestamp: ts });
    return Number(m.get(topic)![partition]);
  };

  const d: Driver = {
    name: 'platformatic',
    version: '@platformatic/kafka 1.35.0',
    writeCodecs: ['gzip', 'snappy', 'lz4'],
    readCodecs: ['gzip', 'snappy', 'lz4'],
    can: { nullKey: true, emptyKey: true, nullValue: false, emptyValue: true, headers: true, nullHeaderValue: false, binaryKey: true, explicitTimestamp: true, explicitPartition: true, reportsTimestampType: false },
    lacks: {
      codecs: 'zstd needs node:zlib zstd (Node >= 22.15); this is Node 20',
      autoOffsetReset: 'plain reads use the low-level Consumer.fetch, which has no auto.offset.reset',
      staticMembership: '@platformatic/kafka\'s close() always sends LeaveGroup by member id, which ends a static membership on Kafka too: a static member restart cannot be expressed',
    },
    async produce(topic, records, o: ProduceOpts = {}) {
      let producer = o.handle ? producers.get(o.handle) : undefined;
      if (!producer) {
        producer = new PProducer({ clientId: o.clientId ?? 'compat-platformatic', ...base, retries: o.failFast ? 0 : o.handle ? 40 : 5, retryDelay: 250, idempotent: !!o.idempotent, autocreateTopics: true, ...(o.failFast ? { timeout: 5000 } : {}) });
        if (o.handle) producers.set(o.handle, producer);
      }
      try {
        const res = await producer.send({ acks: o.acks ?? -1, compression: o.compression ?? 'none', messages: toMessages(topic, records) });
        return { error: null, acks: offsetsFrom(records, res) };
      } catch (e) {
        const error = fromJs(e);
        return { error, acks: records.map(() => ({ error })) };
      } finally {
        if (!o.handle) await producer.close().catch(() => {});
      }
    },
    async closeProducer(handle) {
      await producers.get(handle)?.close().catch(() => {});
      producers.delete(handle);
    },
    async read(topic, o: ReadOpts) {
      const out: Rec[] = [];
      const errors: ErrName[] = [];
      const deadline = Date.now() + o.timeoutMs;
      try {
        const md = await reader.metadata({ topics: [topic], forceUpdate: true });
        const t = md.topics.get(topic)!;
        for (const p of o.partitions) {
          let offset = BigInt(o.from === 'earliest' ? await listOff(topic, p, -2n) : o.from === 'latest' ? await listOff(topic, p, -1n) : o.from);
          while (Date.now() < deadline && out.length < o.count) {
            const res = await reader.fetch({
              node: t.partitions[p].leader, maxWaitTime: 100, minBytes: 1, maxBytes: 10 << 20,
              isolationLevel: o.isolation === 'read_committed' ? 1 : 0,
              topics: [{ topicId: t.id, partitions: [{ partition: p, currentLeaderEpoch: -1, fetchOffset: offset, lastFetchedEpoch: -1, partitionMaxBytes: 10 << 20, logStartOffset: -1n } as any] }],
            });
            const part = res.responses[0].partitions[0];
            if (part.errorCode !== 0) {
              errors.push(fromJs({ errorCode: part.errorCode }));
              break;
            }
            // read_committed: skip aborted transactions' records (the client's job in Kafka): a producer's
            // batches are aborted from an aborted transaction's first offset up to that producer's next control batch.
            const pending = ((part.abortedTransactions ?? []) as { producerId: bigint; firstOffset: bigint }[]).slice().sort((x, y) => (x.firstOffset < y.firstOffset ? -1 : 1));
            const abortedNow = new Set<bigint>();
            for (const batch of part.records ?? []) {
              const isControl = (batch.attributes & 0x20) !== 0;
              while (pending.length && pending[0].firstOffset <= batch.firstOffset) abortedNow.add(pending.shift()!.producerId);
              const isAborted = o.isolation === 'read_committed' && (batch.attributes & 0x10) !== 0 && abortedNow.has(batch.producerId);
              if (isControl) abortedNow.delete(batch.producerId);
              for (const r of batch.records) {
                const off = batch.firstOffset + BigInt(r.offsetDelta);
                if (off < offset) continue;
                offset = off + 1n;
                if (isControl || isAborted) continue;
                // LogAppendTime batches (attribute bit 3): every record's timestamp is the batch's maxTimestamp.
                const logAppend = (batch.attributes & 0x08) !== 0;
                out.push({
                  partition: p, offset: Number(off), timestamp: Number(logAppend ? batch.maxTimestamp : batch.firstTimestamp + r.timestampDelta), tstype: null,
                  key: b64(r.key), value: b64(r.value),
                  headers: r.headers.map(([k, v]) => [k === null ? '' : k.toString('utf8'), b64(v)] as [string, string | null]),
                });
              }
              const after = batch.firstOffset + BigInt(batch.lastOffsetDelta) + 1n; // control and aborted batches too
              if (after > offset) offset = after;
            }
            const end = o.isolation === 'read_committed' ? part.lastStableOffset : part.highWatermark;
            if (offset >= end) break;
          }
        }
      } catch (e) {
        errors.push(fromJs(e));
      }
      return { records: out, errors };
    },
    async createTopic(t) {
      try {
        await admin.createTopics({ topics: [t.name], partitions: t.partitions, replicas: 1, configs: Object.entries(t.configs ?? {}).map(([name, value]) => ({ name, value })) });
        return null;
      } catch (e) {
        return fromJs(e);
      }
    },
    async deleteTopic(name) {
      try {
        await admin.deleteTopics({ topics: [name] });
        return null;
      } catch (e) {
        return fromJs(e);
      }
    },
    async describeTopic(name) {
      try {
        const md = await admin.metadata({ topics: [name], forceUpdate: true, autocreateTopics: false } as any);
        const t = md.topics.get(name);
        return t ? { error: null, partitions: t.partitionsCount ?? t.partitions.length } : { error: 'UNKNOWN_TOPIC_OR_PARTITION' };
      } catch (e) {
        // platformatic turns the broker's UNKNOWN_TOPIC_OR_PARTITION in Metadata into a UserError "Unknown topic X".
        if (/^Unknown topic /.test(String((e as Error).message))) return { error: 'UNKNOWN_TOPIC_OR_PARTITION' };
        return { error: fromJs(e) };
      }
    },
    async describeConfigs(topic) {
      try {
        const r = await admin.describeConfigs({ resources: [{ resourceType: 2, resourceName: topic }] });
        return { error: null, configs: Object.fromEntries(r[0].configs.map((c: any) => [c.name, c.value])) };
      } catch (e) {
        return { error: fromJs(e) };
      }
    },
    async alterConfigs(topic, set) {
      try {
        await admin.incrementalAlterConfigs({ resources: [{ resourceType: 2, resourceName: topic, configs: Object.entries(set).map(([name, value]) => ({ name, value, configOperation: 0 })) }] } as any);
        return null;
      } catch (e) {
        return fromJs(e);
      }
    },
    async listOffsets(topic, partition, timestamps) {
      const byTime: Record<string, number> = {};
      for (const ts of timestamps) byTime[String(ts)] = await listOff(topic, partition, BigInt(ts));
      return { earliest: await listOff(topic, partition, -2n), latest: await listOff(topic, partition, -1n), byTime };
    },
    async deleteRecords(topic, partition, before) {
      try {
        const r = await admin.deleteRecords({ topics: [{ name: topic, partitions: [{ partition, offset: BigInt(before) }] }] });
        return { error: null, lowWatermark: Number(r[0].partitions[0].lowWatermark) };
      } catch (e) {
        return { error: fromJs(e) };
      }
    },
    async groupOpen(o) {
      const consumer = new PConsumer({
        // Enough retries (about 10 s) to ride out a broker restart instead of ending the stream.
        clientId: `compat-platformatic-${o.handle}`, groupId: o.group, ...base, retries: 40, retryDelay: 250,
        sessionTimeout: o.sessionTimeoutMs ?? 6000, heartbeatInterval: 500, rebalanceTimeout: 10000,
        ...(o.instanceId ? { groupInstanceId: o.instanceId } : {}),
      });
      const g = { consumer, stream: null as any, buf: [] as Rec[], assigns: 0, topic: o.topic, next: new Map<number, number>() };
      consumer.on('consumer:group:join', () => { g.assigns++; });
      const stream = await consumer.consume({ topics: [o.topic], mode: 'committed', fallbackMode: 'earliest', autocommit: false, maxWaitTime: 100 });
      stream.on('data', (m: any) => {
        g.buf.push({ partition: m.partition, offset: Number(m.offset), timestamp: Number(m.timestamp), tstype: null, key: b64(m.key), value: b64(m.value), headers: [...(m.headers as Map<Buffer, Buffer>)].map(([k, v]) => [k.toString('utf8'), b64(v)]) });
        g.next.set(m.partition, Number(m.offset) + 1);
      });
      stream.on('error', () => {});
      g.stream = stream;
      groups.set(o.handle, g);
    },
    async groupPoll(handle, timeoutMs, max = 1000) {
      const g = groups.get(handle)!;
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline && g.buf.length < max) await sleep(50);
      const a = (g.consumer.assignments ?? []).find((x) => x.topic === g.topic);
      return { records: g.buf.splice(0, max), errors: [], assignment: [...(a?.partitions ?? [])].sort((x, y) => x - y), assigns: g.assigns };
    },
    async groupCommit(handle) {
      const g = groups.get(handle)!;
      try {
        await g.consumer.commit({ offsets: [...g.next].map(([partition, offset]) => ({ topic: g.topic, partition, offset: BigInt(offset), leaderEpoch: 0 })) });
        return null;
      } catch (e) {
        return fromJs(e);
      }
    },
    async groupClose(handle) {
      const g = groups.get(handle);
      groups.delete(handle);
      if (!g) return;
      await withDeadline((async () => { await g.stream.close(); await g.consumer.close(true); })(), 20000, 'platformatic consumer close').catch(() => {});
    },
    async transactions(topic, transactionalId, batches) {
      const producer = new PProducer({ clientId: 'compat-platformatic-txn', ...base, idempotent: true, transactionalId });
      const results: ProduceResult[] = [];
      try {
        for (const b of batches) {
          const txn = await producer.beginTransaction();
          const res = await txn.send({ messages: toMessages(topic, b.records) });
          if (b.commit) await txn.commit();
          else await txn.abort();
          results.push({ error: null, acks: offsetsFrom(b.records, res) });
        }
        return { error: null, results };
      } catch (e) {
        return { error: fromJs(e), results };
      } finally {
        await producer.close().catch(() => {});
      }
    },
    async close() {
      for (const p of producers.values()) await p.close().catch(() => {});
      for (const h of [...groups.keys()]) await d.groupClose!(h);
      await admin.close().catch(() => {});
      await reader.close().catch(() => {});
    },
  };
  return d;
}

export type { Codec };
