/**
 * confluent-kafka-python and kafka-python drivers: one long-lived Python agent process per client
 * that takes one JSON command per line, so Python's start-up is paid once per run, not per
 * operation. Every call has a deadline; at the deadline the agent is killed and the call fails.
 *
 * Two generations of each: Debian's confluent-kafka 1.7 and kafka-python 2.0.2 under
 * /usr/bin/python3 (`confluent`, `kafka-python`), and PyPI's confluent-kafka 2.x and kafka-python
 * 3.x in the venv (`confluent2`, `kafka-python3`). confluent_agent.py serves both confluent
 * generations; kafka_python3_agent.py builds on kafka_python_agent.py.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { JsonLinesAgent } from './agent.js';
import { SYSTEM_PYTHON, VENV_PYTHON } from '../../test/support/external.js';
import { fromPython } from '../lib/errors.js';
import type { ClientName, Driver, ErrName, OutRec, ProduceOpts, ProduceResult, ReadOpts, Rec, TxnBatch } from '../lib/types.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** A JSON-lines agent script (confluent_agent.py, ...) under a Python interpreter. */
export class PythonAgent extends JsonLinesAgent {
  constructor(script: string, interpreter: string = SYSTEM_PYTHON) {
    super(spawn(interpreter, ['-u', path.join(HERE, script)], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } }), `python agent ${script}`);
  }
}

function produceResult(r: { reports: any[]; unflushed: number }): ProduceResult {
  const acks = r.reports.map((x) => (x === null ? { error: 'client:not-delivered' } : { partition: x.partition, offset: x.offset, error: fromPython(x.error) }));
  const first = acks.find((a) => a.error !== null);
  return { error: first ? first.error : r.unflushed > 0 ? 'client:unflushed' : null, acks };
}

function recs(list: any[]): Rec[] {
  return list.map((l) => ({ partition: l.partition, offset: l.offset, timestamp: l.timestamp, tstype: l.tstype ?? null, key: l.key, value: l.value, headers: l.headers }));
}

const wire = (records: OutRec[]) => records.map((r) => ({ ...r, headers: r.headers ?? [] }));

// ---------------------------------------------------------------------------------------------

const CODEC_CONF: Record<string, string> = { none: 'none', gzip: 'gzip', snappy: 'snappy', lz4: 'lz4', zstd: 'zstd' };

type AdminOp = 'listOffsets' | 'describeTopic' | 'alterConfigs';

/**
 * Topic and config administration, the same commands in every Python agent; `ops` names the
 * agent command where a newer client has a different call for it (e.g. the admin client's
 * ListOffsets instead of a consumer's).
 */
function adminOps(agent: PythonAgent, ops: Partial<Record<AdminOp, string>> = {}): Pick<Driver, 'createTopic' | 'deleteTopic' | 'describeTopic' | 'describeConfigs' | 'alterConfigs' | 'listOffsets'> {
  return {
    async listOffsets(topic, partition, timestamps) {
      const r = await agent.call(ops.listOffsets ?? 'list_offsets', { topic, partition, timestamps });
      const byTime: Record<string, number | ErrName> = {};
      for (const ts of timestamps) byTime[String(ts)] = typeof r[String(ts)] === 'number' ? r[String(ts)] : fromPython(r[String(ts)]);
      return { earliest: r.earliest, latest: r.latest, byTime };
    },
    async createTopic(t) {
      return fromPython((await agent.call('create_topic', { name: t.name, partitions: t.partitions, configs: t.configs ?? {} })).error);
    },
    async deleteTopic(name) {
      return fromPython((await agent.call('delete_topic', { name })).error);
    },
    async describeTopic(name) {
      const r = await agent.call(ops.describeTopic ?? 'describe_topic', { name });
      return { error: fromPython(r.error), partitions: r.partitions };
    },
    async describeConfigs(topic) {
      const r = await agent.call('describe_configs', { topic });
      return { error: fromPython(r.error), configs: r.configs ? Object.fromEntries(Object.entries(r.configs).map(([k, v]: [string, any]) => [k, v.value])) : undefined };
    },
    async alterConfigs(topic, set) {
      return fromPython((await agent.call(ops.alterConfigs ?? 'alter_configs', { topic, set })).error);
    },
  };
}

/** DeleteRecords, for the agents whose client has it (not the Debian generation). */
function deleteRecordsOp(agent: PythonAgent): Pick<Driver, 'deleteRecords'> {
  return {
    async deleteRecords(topic, partition, before) {
      const r = await agent.call('delete_records', { topic, partition, before });
      return r.error ? { error: fromPython(r.error) } : { error: null, lowWatermark: r.lowWatermark };
    },
  };
}

/** Consumer-group membership, the same commands in both Python agents. */
function groupOps(agent: PythonAgent): Pick<Driver, 'groupOpen' | 'groupPoll' | 'groupCommit' | 'groupClose'> {
  return {
    async groupOpen(o) {
      await agent.call('group_open', o);
    },
    async groupPoll(handle, timeoutMs, max) {
      const r = await agent.call('group_poll', { handle, timeoutMs, max }, timeoutMs + 20_000);
      return { records: recs(r.records), errors: r.errors.map(fromPython), assignment: r.assignment, assigns: r.assigns };
    },
    async groupCommit(handle) {
      return fromPython((await agent.call('group_commit', { handle })).error);
    },
    async groupClose(handle) {
      await agent.call('group_close', { handle });
    },
  };
}

/**
 * One generation of a Python client. What it `lacks` (deleteRecords, transactions, idempotent,
 * staticMembership) is left out of the driver, so those scenarios are n/a with the reason.
 */
interface Generation {
  name: ClientName;
  interpreter: string;
  lacks: Driver['lacks'];
  /** Agent commands the newer client uses instead of the common ones. */
  ops?: Partial<Record<AdminOp, string>>;
}

async function confluentGeneration(bootstrap: string, g: Generation): Promise<Driver> {
  const agent = new PythonAgent('confluent_agent.py', g.interpreter);
  const info = await agent.call('init', { bootstrap }, 30_000);
  const d: Driver = {
    name: g.name,
    version: `confluent-kafka ${info.version} (librdkafka ${info.librdkafka})`,
    writeCodecs: ['gzip', 'snappy', 'lz4', 'zstd'],
    readCodecs: ['gzip', 'snappy', 'lz4', 'zstd'],
    can: { nullKey: true, emptyKey: true, nullValue: true, emptyValue: true, headers: true, nullHeaderValue: true, binaryKey: true, explicitTimestamp: true, explicitPartition: true, reportsTimestampType: true },
    lacks: g.lacks,
    staticMembership: true,
    async produce(topic: string, records: OutRec[], o: ProduceOpts = {}) {
      const config: Record<string, unknown> = { 'compression.type': CODEC_CONF[o.compression ?? 'none'], acks: String(o.acks ?? -1) };
      if (o.idempotent) config['enable.idempotence'] = true;
      else config['enable.idempotence'] = false;
      if (o.clientId) config['client.id'] = o.clientId;
      if (o.failFast) Object.assign(config, { 'message.timeout.ms': 5000, 'topic.metadata.propagation.max.ms': 2000 });
      return produceResult(await agent.call('produce', { topic, records: wire(records), config, handle: o.handle, timeoutS: 25 }));
    },
    async closeProducer(handle) {
      await agent.call('close_producer', { handle });
    },
    async read(topic: string, o: ReadOpts) {
      const reset = o.reset === 'none' ? 'error' : o.reset ?? 'earliest';
      const r = await agent.call('read', { topic, partitions: o.partitions, from: o.from, reset, count: o.count, timeoutMs: o.timeoutMs, isolation: o.isolation, stopOnError: o.reset === 'none' }, o.timeoutMs + 20_000);
      return { records: recs(r.records), errors: r.errors.map(fromPython) };
    },
    ...adminOps(agent, g.ops),
    ...(g.lacks.deleteRecords ? {} : deleteRecordsOp(agent)),
    ...groupOps(agent),
    async transactions(topic: string, transactionalId: string, batches: TxnBatch[]) {
      const r = await agent.call('txn', { topic, transactionalId, batches: batches.map((b) => ({ commit: b.commit, records: wire(b.records) })) }, 90_000);
      return { error: fromPython(r.error), results: r.batches.map(produceResult) };
    },
    close: () => agent.close(),
  };
  return d;
}

/** Debian's confluent-kafka 1.7 (librdkafka 2.0.2). */
export function confluentDriver(bootstrap: string): Promise<Driver> {
  return confluentGeneration(bootstrap, {
    name: 'confluent',
    interpreter: SYSTEM_PYTHON,
    lacks: { deleteRecords: 'confluent-kafka 1.7 has no AdminClient.delete_records (added in 2.4)' },
  });
}

/**
 * PyPI's confluent-kafka 2.x (librdkafka 2.15+): the same agent, with the admin calls 1.7 lacks
 * (delete_records, list_offsets, describe_topics, incremental_alter_configs).
 */
export function confluent2Driver(bootstrap: string): Promise<Driver> {
  return confluentGeneration(bootstrap, {
    name: 'confluent2',
    interpreter: VENV_PYTHON,
    lacks: {},
    ops: { listOffsets: 'admin_list_offsets', describeTopic: 'describe_topic_admin', alterConfigs: 'incremental_alter_configs' },
  });
}

async function kafkaPythonGeneration(bootstrap: string, g: Generation & { script: string; nullHeaderValue: boolean }): Promise<Driver> {
  const agent = new PythonAgent(g.script, g.interpreter);
  const info = await agent.call('init', { bootstrap }, 30_000);
  const d: Driver = {
    name: g.name,
    version: `kafka-python ${info.version}`,
    writeCodecs: ['gzip', 'snappy', 'lz4', 'zstd'],
    readCodecs: ['gzip', 'snappy', 'lz4', 'zstd'],
    can: { nullKey: true, emptyKey: true, nullValue: true, emptyValue: true, headers: true, nullHeaderValue: g.nullHeaderValue, binaryKey: true, explicitTimestamp: true, explicitPartition: true, reportsTimestampType: true },
    lacks: g.lacks,
    staticMembership: !g.lacks.staticMembership,
    async produce(topic, records, o: ProduceOpts = {}) {
      const config: Record<string, unknown> = { compression_type: o.compression && o.compression !== 'none' ? o.compression : null, acks: o.acks === -1 || o.acks === undefined ? 'all' : o.acks, max_in_flight_requests_per_connection: 1 };
      // 3.x turns idempotence on by default (KIP-679); say which, as for librdkafka. 2.0.2 rejects the key.
      if (!g.lacks.idempotent) config.enable_idempotence = o.idempotent === true;
      if (o.clientId) config.client_id = o.clientId;
      if (o.failFast) Object.assign(config, { max_block_ms: 5000, request_timeout_ms: 5000 });
      return produceResult(await agent.call('produce', { topic, records: wire(records), config, handle: o.handle, timeoutS: 25 }));
    },
    async closeProducer(handle) {
      await agent.call('close_producer', { handle });
    },
    async read(topic, o) {
      const isolation = g.lacks.transactions ? undefined : o.isolation;
      const r = await agent.call('read', { topic, partitions: o.partitions, from: o.from, reset: o.reset ?? 'earliest', count: o.count, timeoutMs: o.timeoutMs, isolation, stopOnError: o.reset === 'none' }, o.timeoutMs + 20_000);
      return { records: recs(r.records), errors: r.errors.map(fromPython) };
    },
    ...adminOps(agent, g.ops),
    ...(g.lacks.deleteRecords ? {} : deleteRecordsOp(agent)),
    ...groupOps(agent),
    close: () => agent.close(),
  };
  if (!g.lacks.transactions) {
    d.transactions = async (topic, transactionalId, batches) => {
      const r = await agent.call('txn', { topic, transactionalId, batches: batches.map((b) => ({ commit: b.commit, records: wire(b.records) })) }, 90_000);
      return { error: fromPython(r.error), results: r.batches.map(produceResult) };
    };
  }
  return d;
}

/** Debian's kafka-python 2.0.2. */
export function kafkaPythonDriver(bootstrap: string): Promise<Driver> {
  return kafkaPythonGeneration(bootstrap, {
    name: 'kafka-python',
    script: 'kafka_python_agent.py',
    interpreter: SYSTEM_PYTHON,
    nullHeaderValue: false,
    lacks: {
      deleteRecords: 'kafka-python 2.0.2 has no delete_records',
      transactions: 'kafka-python 2.0.2 has no transactional producer and no isolation_level',
      idempotent: 'kafka-python 2.0.2 has no idempotent producer',
      staticMembership: 'kafka-python 2.0.2 has no group_instance_id',
    },
  });
}

/** PyPI's kafka-python 3.x: idempotence, transactions, read_committed, group_instance_id, the admin client's DeleteRecords and ListOffsets. */
export function kafkaPython3Driver(bootstrap: string): Promise<Driver> {
  return kafkaPythonGeneration(bootstrap, {
    name: 'kafka-python3',
    script: 'kafka_python3_agent.py',
    interpreter: VENV_PYTHON,
    // send() rejects a None header value ("All headers items must be (str, bytes) tuples"), though it decodes one.
    nullHeaderValue: false,
    lacks: {},
  });
}
