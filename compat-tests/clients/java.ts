/**
 * The Java client driver (org.apache.kafka:kafka-clients, the reference client): one long-lived
 * JVM per driver running clients/java/Agent.java, one JSON command per line, so the JVM starts
 * once per run, not per operation. Every call has a deadline; at the deadline the agent is
 * killed and the call fails. Error names come from the agent (Errs.java: Errors.forException).
 *
 * Producers keep the client's defaults unless a scenario asks otherwise: with acks=all that means
 * idempotence is on, as for any Java application that does not configure it.
 */
import { spawn } from 'node:child_process';
import { JsonLinesAgent } from './agent.js';
import { javaRuntime } from './jvm.js';
import type { Driver, ErrName, OutRec, ProduceOpts, ProduceResult, ReadOpts, Rec, TxnBatch } from '../lib/types.js';

type Ack = { partition?: number; offset?: number; error: ErrName };

function produceResult(r: { acks: Ack[] }): ProduceResult {
  return { error: r.acks.find((a) => a.error !== null)?.error ?? null, acks: r.acks };
}

const recs = (list: Rec[]): Rec[] => list.map((l) => ({ ...l, tstype: l.tstype ?? null }));
const wire = (records: OutRec[]) => records.map((r) => ({ ...r, headers: r.headers ?? [] }));

export async function javaDriver(bootstrap: string): Promise<Driver> {
  const rt = await javaRuntime();
  const child = spawn(rt.java, [...rt.jvmArgs, '-cp', rt.classpath, 'Agent'], { stdio: ['pipe', 'pipe', 'pipe'] });
  const agent = new JsonLinesAgent(child, 'java agent', 15_000);
  let info: { version: string; java: string };
  try {
    info = await agent.call('init', { bootstrap }, 30_000);
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  return {
    name: 'java',
    version: `kafka-clients ${info.version} (Java ${info.java})`,
    writeCodecs: ['gzip', 'snappy', 'lz4', 'zstd'],
    readCodecs: ['gzip', 'snappy', 'lz4', 'zstd'],
    can: { nullKey: true, emptyKey: true, nullValue: true, emptyValue: true, headers: true, nullHeaderValue: true, binaryKey: true, explicitTimestamp: true, explicitPartition: true, reportsTimestampType: true },
    lacks: {},
    staticMembership: true,
    async produce(topic: string, records: OutRec[], o: ProduceOpts = {}) {
      const config: Record<string, string> = { 'compression.type': o.compression ?? 'none', acks: o.acks === undefined || o.acks === -1 ? 'all' : String(o.acks) };
      if (o.idempotent !== undefined) config['enable.idempotence'] = String(o.idempotent);
      if (o.clientId) config['client.id'] = o.clientId;
      // delivery.timeout.ms must cover linger.ms + request.timeout.ms, or the producer refuses the config.
      if (o.failFast) Object.assign(config, { 'max.block.ms': '5000', 'request.timeout.ms': '4000', 'delivery.timeout.ms': '6000' });
      return produceResult(await agent.call('produce', { topic, records: wire(records), config, handle: o.handle, timeoutMs: 35_000 }, 60_000));
    },
    async closeProducer(handle) {
      await agent.call('close_producer', { handle }, 20_000);
    },
    async read(topic: string, o: ReadOpts) {
      const config: Record<string, string> = { 'auto.offset.reset': o.reset ?? 'earliest' };
      if (o.isolation) config['isolation.level'] = o.isolation;
      const r = await agent.call('read', { topic, partitions: o.partitions, from: o.from, count: o.count, timeoutMs: o.timeoutMs, stopOnError: o.reset === 'none', config }, o.timeoutMs + 20_000);
      return { records: recs(r.records), errors: r.errors };
    },
    async createTopic(t) {
      return (await agent.call('create_topic', { name: t.name, partitions: t.partitions, configs: t.configs ?? {} })).error;
    },
    async deleteTopic(name) {
      return (await agent.call('delete_topic', { name })).error;
    },
    async describeTopic(name) {
      const r = await agent.call('describe_topic', { name });
      return r.error === null ? { error: null, partitions: r.partitions } : { error: r.error };
    },
    async describeConfigs(topic) {
      const r = await agent.call('describe_configs', { topic });
      return r.error === null ? { error: null, configs: r.configs } : { error: r.error };
    },
    async alterConfigs(topic, set) {
      return (await agent.call('alter_configs', { topic, set })).error;
    },
    async listOffsets(topic, partition, timestamps) {
      return agent.call('list_offsets', { topic, partition, timestamps });
    },
    async deleteRecords(topic, partition, before) {
      const r = await agent.call('delete_records', { topic, partition, before });
      return r.error === null ? { error: null, lowWatermark: r.lowWatermark } : { error: r.error };
    },
    async groupOpen(o) {
      await agent.call('group_open', o);
    },
    async groupPoll(handle, timeoutMs, max) {
      const r = await agent.call('group_poll', { handle, timeoutMs, max }, timeoutMs + 30_000);
      return { records: recs(r.records), errors: r.errors, assignment: r.assignment, assigns: r.assigns };
    },
    async groupCommit(handle) {
      return (await agent.call('group_commit', { handle }, 30_000)).error;
    },
    async groupClose(handle) {
      await agent.call('group_close', { handle }, 30_000);
    },
    async transactions(topic: string, transactionalId: string, batches: TxnBatch[]) {
      const r = await agent.call('txn', { topic, transactionalId, batches: batches.map((b) => ({ commit: b.commit, records: wire(b.records) })) }, 90_000);
      return { error: r.error, results: r.batches.map(produceResult) };
    },
    close: () => agent.close(),
  };
}
