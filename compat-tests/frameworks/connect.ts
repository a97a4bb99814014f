/**
 * Kafka Connect 4.4 in distributed mode against one broker: a worker (ConnectDistributed) with its
 * compacted config, offset and status topics and the `connect` group protocol, running a file
 * source connector (a file's lines to a topic) and a file sink connector (the topic to another
 * file) from FileLines.java, stopped and started again, then SIGKILLed and started again. What it observed is returned for the caller
 * to judge; it throws only when the run itself breaks (a worker exits, a deadline passes).
 *
 * 1. The worker starts, creates its three topics and joins its group; both connectors are created
 *    through the REST API (their configuration goes to the config topic).
 * 2. The first half of the lines is appended to the source file and waited for in the sink file.
 * 3. The worker is stopped (SIGTERM: the source task's offsets and the sink's consumer offsets
 *    are committed) and started again: it reads the connectors back from the config topic, their
 *    status from the status topic, and the source offset from the offset topic.
 * 4. The second half is appended; the sink file must then hold every line once, in order.
 * 5. With exactly-once source support on (KIP-618: each source poll a transaction with its
 *    offsets; the sink reads read_committed), as many lines again are appended, sent 5 a
 *    transaction, and the worker is SIGKILLed half-way through them and started again. The topic,
 *    read_committed by the Java consumer, must hold every line once, in order (the killed task's
 *    open transaction aborted, the new task going on from the committed offset); the sink, which
 *    commits its consumer offsets every 500 ms, must have every line at least once, in order.
 */
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import kafkajs from 'kafkajs';
import { freePort } from '../../tools/kafka/kafka.js';
import { startJvm, stopJvm, type JvmProcess } from './jvm.js';

const { Kafka, logLevel } = kafkajs;
/** Lines through the graceful restart; as many again through the SIGKILL. */
export const CONNECT_LINES = 200;

export interface ConnectOutcome {
  /** The sink file's lines after the graceful restart (phases 1-2). */
  sinkLines: string[];
  expectedLines: string[];
  /** The data topic read_committed by the Java consumer at the end (all phases). */
  topicLines: string[];
  /** The sink file's lines at the end (after the SIGKILL: at least once). */
  finalSinkLines: string[];
  allLines: string[];
  /** Lines in the sink file when the worker was killed. */
  sinkAtKill: number;
  /** cleanup.policy of the config, offset and status topics. */
  internalTopics: Record<string, string>;
  /** The worker group as DescribeGroups tells it while the worker runs. */
  group: { protocolType: string; state: string; members: number };
  /** The connectors' and tasks' states from the REST API after the restart. */
  statusAfterRestart: Record<string, { connector: string; tasks: string[] }>;
  ms: { firstStart: number; restart: number; total: number };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, ms: number, worker: JvmProcess, f: () => Promise<T | undefined | null | false>): Promise<T> {
  const end = Date.now() + ms;
  let last = '';
  for (;;) {
    if (worker.child.exitCode !== null || worker.child.signalCode !== null) {
      const e = await worker.exited;
      throw new Error(`the Connect worker exited (${e.code ?? e.signal}) before ${what}\n${e.stderr.slice(-4000)}`);
    }
    try {
      const v = await f();
      if (v) return v;
    } catch (e) {
      last = (e as Error).message;
    }
    if (Date.now() > end) throw new Error(`Connect: no ${what} within ${ms} ms${last ? ` (${last})` : ''}\n${(await Promise.race([worker.exited, sleep(0).then(() => null)]))?.stderr ?? ''}`);
    await sleep(250);
  }
}

/** Runs the scenario against `bootstrap`; `tag` keeps topic, group and file names apart. */
export async function connectDistributed(bootstrap: string, tag: string, log: (l: string) => void = () => {}): Promise<ConnectOutcome> {
  const started = Date.now();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'samsa-connect-'));
  const group = `connect-${tag}`;
  const topics = { config: `${group}-configs`, offset: `${group}-offsets`, status: `${group}-status` };
  const dataTopic = `${group}-lines`;
  const sourceFile = path.join(dir, 'source.txt');
  const sinkFile = path.join(dir, 'sink.txt');
  const port = await freePort();
  const rest = `http://127.0.0.1:${port}`;
  const props = path.join(dir, 'worker.properties');
  writeFileSync(props, Object.entries({
    'bootstrap.servers': bootstrap,
    'group.id': group,
    'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'config.storage.topic': topics.config,
    'offset.storage.topic': topics.offset,
    'status.storage.topic': topics.status,
    'config.storage.replication.factor': '1',
    'offset.storage.replication.factor': '1',
    'status.storage.replication.factor': '1',
    'offset.storage.partitions': '2',
    'status.storage.partitions': '1',
    'offset.flush.interval.ms': '500',
    // A worker that vanished would hold its tasks for 5 minutes by default, and stay in the
    // group for 10 s.
    'scheduled.rebalance.max.delay.ms': '2000',
    'session.timeout.ms': '6000',
    'heartbeat.interval.ms': '1000',
    listeners: `http://127.0.0.1:${port}`,
    'rest.advertised.host.name': '127.0.0.1',
    'rest.advertised.port': String(port),
    // Plugins by their ServiceLoader manifests only: no scan of every jar on the classpath.
    'plugin.discovery': 'service_load',
    // KIP-618: each source poll is a transaction (with its offsets, in the offset topic), the
    // config topic is written transactionally, a new task generation fences the old producers.
    'exactly.once.source.support': 'enabled',
    // The sink reads committed records only (an aborted source transaction is not delivered).
    'consumer.isolation.level': 'read_committed',
    // The killed worker's sink consumer stays in the sink's group for its session (45 s by default).
    'consumer.session.timeout.ms': '6000',
    'consumer.heartbeat.interval.ms': '1000',
    // The killed source task's open transaction ends at the latest at its timeout (60 s by
    // default): one Kafka 4.4 run took 66 s from the kill to the last line, where Samsa took 9 s.
    'producer.transaction.timeout.ms': '10000',
  }).map(([k, v]) => `${k}=${v}`).join('\n') + '\n');
  const allLines = Array.from({ length: 2 * CONNECT_LINES }, (_, i) => `line ${i} of ${tag}`);
  const expectedLines = allLines.slice(0, CONNECT_LINES);
  const sinkLines = () => (existsSync(sinkFile) ? readFileSync(sinkFile, 'utf8').split('\n').filter((l) => l !== '') : []);
  const restCall = async (method: string, p: string, body?: unknown) => {
    const r = await fetch(`${rest}${p}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
    const text = await r.text();
    if (!r.ok) throw new Error(`${method} ${p}: ${r.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  const status = async () => {
    const out: Record<string, { connector: string; tasks: string[] }> = {};
    for (const name of ['lines-source', 'lines-sink']) {
      const s = await restCall('GET', `/connectors/${name}/status`) as { connector: { state: string }; tasks: { state: string }[] };
      out[name] = { connector: s.connector.state, tasks: s.tasks.map((t) => t.state) };
    }
    return out;
  };
  const allRunning = async () => {
    const s = await status();
    return Object.values(s).every((c) => c.connector === 'RUNNING' && c.tasks.length === 1 && c.tasks[0] === 'RUNNING') ? s : null;
  };
  const kafka = new Kafka({ clientId: `${group}-check`, brokers: [bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  let worker: JvmProcess | null = null;
  try {
    await admin.connect();
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic: dataTopic, numPartitions: 1, replicationFactor: 1 }] });

    const t1 = Date.now();
    worker = await startJvm('org.apache.kafka.connect.cli.ConnectDistributed', [props], { onLine: (l) => log(`connect 1: ${l}`) });
    const w1 = worker;
    await until('REST answer', 120_000, w1, () => restCall('GET', '/connectors'));
    await restCall('POST', '/connectors', { name: 'lines-source', config: { 'connector.class': 'FileLines$Source', 'tasks.max': '1', file: sourceFile, topic: dataTopic, batch: '5', 'pause.ms': '20' } });
    await restCall('POST', '/connectors', { name: 'lines-sink', config: { 'connector.class': 'FileLines$Sink', 'tasks.max': '1', file: sinkFile, topics: dataTopic } });
    await until('connectors and tasks RUNNING', 60_000, w1, allRunning);
    const firstStart = Date.now() - t1;
    const half = CONNECT_LINES / 2;
    appendFileSync(sourceFile, expectedLines.slice(0, half).map((l) => `${l}\n`).join(''));
    await until('the first half in the sink file', 60_000, w1, async () => sinkLines().length >= half);
    const described = (await admin.describeGroups([group])).groups[0];
    const groupSeen = { protocolType: described.protocolType, state: described.state, members: described.members.length };
    log(`connect: first half through in ${Date.now() - t1} ms; group ${JSON.stringify(groupSeen)}`);

    const stopped = await stopJvm(w1);
    worker = null;
    log(`connect: worker stopped (${stopped.code ?? stopped.signal}) (${Date.now() - started} ms)`);
    const t2 = Date.now();
    worker = await startJvm('org.apache.kafka.connect.cli.ConnectDistributed', [props], { onLine: (l) => log(`connect 2: ${l}`) });
    const w2 = worker;
    const statusAfterRestart = await until('connectors and tasks RUNNING after the restart', 120_000, w2, allRunning);
    appendFileSync(sourceFile, expectedLines.slice(half).map((l) => `${l}\n`).join(''));
    await until('every line in the sink file', 60_000, w2, async () => sinkLines().length >= CONNECT_LINES && sinkLines().at(-1) === expectedLines.at(-1));
    const restart = Date.now() - t2;
    // Anything a duplicate would add arrives with the last line or before it: read once more after a flush interval.
    await sleep(1000);
    const final = sinkLines();

    // Phase 3: the worker SIGKILLed while the source sends the second lot (5 lines a transaction,
    // 20 ms apart), and started again.
    appendFileSync(sourceFile, allLines.slice(CONNECT_LINES).map((l) => `${l}\n`).join(''));
    await until('half of the second lot in the sink file', 60_000, w2, async () => sinkLines().length >= CONNECT_LINES * 1.5);
    w2.kill('SIGKILL');
    await w2.exited;
    worker = null;
    const sinkAtKill = sinkLines().length;
    log(`connect: worker killed with ${sinkAtKill} lines in the sink file (${Date.now() - started} ms)`);
    worker = await startJvm('org.apache.kafka.connect.cli.ConnectDistributed', [props], { onLine: (l) => log(`connect 3: ${l}`) });
    const w3 = worker;
    await until('every line of the second lot in the sink file', 120_000, w3, async () => sinkLines().at(-1) === allLines.at(-1));
    log(`connect: every line through after the kill (${Date.now() - started} ms)`);
    await stopJvm(w3);
    worker = null;
    const finalSinkLines = sinkLines();
    const reader = await startJvm('WordCount', ['values', bootstrap, dataTopic]);
    const topicLines = (await reader.line((l) => 'values' in l)).values as string[];
    await reader.exited;

    const configs = await admin.describeConfigs({ includeSynonyms: false, resources: Object.values(topics).map((name) => ({ type: 2, name, configNames: ['cleanup.policy'] })) });
    const internalTopics = Object.fromEntries(configs.resources.map((r) => [r.resourceName, r.configEntries.find((c) => c.configName === 'cleanup.policy')?.configValue ?? `error ${r.errorCode}`]));
    return { sinkLines: final, expectedLines, topicLines, finalSinkLines, allLines, sinkAtKill, internalTopics, group: groupSeen, statusAfterRestart, ms: { firstStart, restart, total: Date.now() - started } };
  } finally {
    if (worker) {
      worker.kill('SIGKILL');
      await worker.exited;
    }
    await admin.disconnect().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}
