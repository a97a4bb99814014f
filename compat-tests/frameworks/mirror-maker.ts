/**
 * MirrorMaker 2 (connect-mirror, dedicated mode: `org.apache.kafka.connect.mirror.MirrorMaker`)
 * between a real Apache Kafka and Samsa, both ways at once, in one MirrorMaker process. What it
 * observed is returned for the caller to judge; it throws only when the run itself breaks (the
 * process exits, a deadline passes).
 *
 * 1. Each cluster gets a topic of 3 partitions with 300 keyed records carrying a header
 *    (`orders` on Kafka, `payments` on Samsa) and a topic config MirrorMaker copies
 *    (retention.ms), and a consumer group that committed half of each partition (`billing` on
 *    Kafka, `ledger` on Samsa).
 * 2. MirrorMaker runs the flows kafka->samsa (`orders`, group `billing`) and samsa->kafka
 *    (`payments`, group `ledger`): on each target a Connect herder with its config, offset and
 *    status topics, the source connector (the remote topic `<source>.<topic>`, its partitions,
 *    configs and records), the checkpoint connector (the groups' offsets translated through the
 *    offset-syncs topic on the source, `sync.group.offsets.enabled` writing them to the target's
 *    group) and the heartbeat connector.
 * 3. While it runs, 30 more records go to each source topic; they must arrive too.
 * 4. Then each remote topic must hold its source's records, partition by partition, in order,
 *    with keys, values, headers and timestamps; the remote topic has the source's partition count
 *    and retention.ms; the group on the target has offsets for the remote topic at most the source
 *    group's (translation never skips a record); and a consumer of that group on the target,
 *    started from those offsets, reads every record the source group had not consumed (failover
 *    and failback lose nothing).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import kafkajs from 'kafkajs';
import { mirrorMakerJars } from '../../tools/kafka/frameworks.js';
import { startJvm, stopJvm, type JvmProcess } from './jvm.js';

const { Kafka, logLevel } = kafkajs;
type Admin = kafkajs.Admin;

export const MM2_PARTITIONS = 3;
/** Records per partition before MirrorMaker starts; the group committed half of them. */
export const MM2_BEFORE = 100;
/** Records per topic sent while it runs. */
export const MM2_LIVE = 30;
const RETENTION_MS = '86400000';

/** One record as both sides are compared: partition, offset-free. */
export interface Rec { key: string; value: string; header: string; timestamp: string }

export interface MirrorLeg {
  /** `kafka->samsa` or `samsa->kafka`. */
  flow: string;
  remoteTopic: string;
  /** Partition count of the remote topic, and its retention.ms. */
  partitions: number;
  retentionMs: string | undefined;
  /** Per partition, the source's records and the remote topic's. */
  source: Rec[][];
  remote: Rec[][];
  /** Per partition: the source group's committed offset, and the target group's for the remote topic (-1: none). */
  sourceCommitted: number[];
  translated: number[];
  /** What a consumer of the group on the target read from the translated offsets to the end, per partition (values). */
  resumed: string[][];
  /** MirrorMaker's internal topics found on the target (heartbeats, checkpoints, its Connect topics). */
  internalTopics: string[];
}

export interface MirrorOutcome {
  version: string;
  legs: MirrorLeg[];
  ms: { firstRecords: number; groupsSynced: number; total: number };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, ms: number, mm: JvmProcess, tail: string[], f: () => Promise<T | undefined | null | false>): Promise<T> {
  const end = Date.now() + ms;
  let last = '';
  for (;;) {
    if (mm.child.exitCode !== null || mm.child.signalCode !== null) {
      const e = await mm.exited;
      throw new Error(`MirrorMaker exited (${e.code ?? e.signal}) before ${what}\n${tail.join('\n')}\n${e.stderr.slice(-3000)}`);
    }
    try {
      const v = await f();
      if (v) return v;
    } catch (e) {
      last = (e as Error).message;
    }
    if (Date.now() > end) throw new Error(`MirrorMaker: no ${what} within ${ms} ms${last ? ` (${last})` : ''}\n${tail.slice(-60).join('\n')}`);
    await sleep(500);
  }
}

/** Record timestamps: recent, so that neither broker's retention (retention.ms is one day) deletes them. */
const BASE_TS = Date.now() - 3_600_000;
const record = (topic: string, p: number, i: number) => ({
  partition: p,
  key: `${topic}-k${p}-${i}`,
  value: `${topic} p${p} #${i}`,
  headers: { origin: `${topic}/${p}/${i}` },
  timestamp: String(BASE_TS + p * 100_000 + i),
});

/** Every record of `topic`, per partition, from offset `from[p]` (0 when absent) to the end. */
async function readAll(kafka: kafkajs.Kafka, admin: Admin, topic: string, from: number[] = []): Promise<Rec[][]> {
  const ends = await admin.fetchTopicOffsets(topic);
  const out: Rec[][] = ends.map(() => []);
  const want = ends.map((e) => Number(e.high));
  const start = ends.map((e) => Math.max(Number(e.low), from[e.partition] ?? 0));
  if (want.every((w, p) => w <= start[p]!)) return out;
  const consumer = kafka.consumer({ groupId: `mm2-check-${topic}-${Date.now()}`, maxWaitTimeInMs: 200 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    let done: () => void = () => {};
    const finished = new Promise<void>((r) => (done = r));
    const next = ends.map((e) => start[e.partition]!);
    consumer.on(consumer.events.GROUP_JOIN, () => {
      for (const e of ends) consumer.seek({ topic, partition: e.partition, offset: String(start[e.partition]) });
    });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        const o = Number(message.offset);
        if (o < next[partition]!) return;
        next[partition] = o + 1;
        out[partition]!.push({ key: message.key?.toString() ?? '', value: message.value?.toString() ?? '', header: message.headers?.origin?.toString() ?? '', timestamp: message.timestamp });
        if (next.every((n, p) => n >= want[p]!)) done();
      },
    });
    await Promise.race([finished, sleep(30_000).then(() => { throw new Error(`reading ${topic}: ${next.join(',')} of ${want.join(',')} after 30 s`); })]);
  } finally {
    await consumer.disconnect();
  }
  return out;
}

async function seed(kafka: kafkajs.Kafka, admin: Admin, topic: string, group: string): Promise<void> {
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: MM2_PARTITIONS, replicationFactor: 1, configEntries: [{ name: 'retention.ms', value: RETENTION_MS }] }] });
  await send(kafka, topic, 0, MM2_BEFORE);
  await admin.setOffsets({ groupId: group, topic, partitions: Array.from({ length: MM2_PARTITIONS }, (_, p) => ({ partition: p, offset: String(MM2_BEFORE / 2) })) });
}

async function send(kafka: kafkajs.Kafka, topic: string, from: number, to: number): Promise<void> {
  const producer = kafka.producer({ idempotent: true });
  await producer.connect();
  try {
    const messages = [];
    for (let p = 0; p < MM2_PARTITIONS; p++) for (let i = from; i < to; i++) messages.push(record(topic, p, i));
    await producer.send({ topic, acks: -1, messages });
  } finally {
    await producer.disconnect();
  }
}

/** Runs the scenario between a Kafka at `kafkaBootstrap` and a Samsa at `samsaBootstrap`. */
export async function mirrorMakerBothWays(kafkaBootstrap: string, samsaBootstrap: string, log: (l: string) => void = () => {}): Promise<MirrorOutcome> {
  const started = Date.now();
  const jars = mirrorMakerJars();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'samsa-mm2-'));
  const clusters = { kafka: kafkaBootstrap, samsa: samsaBootstrap };
  const flows = [
    { source: 'kafka' as const, target: 'samsa' as const, topic: 'orders', group: 'billing' },
    { source: 'samsa' as const, target: 'kafka' as const, topic: 'payments', group: 'ledger' },
  ];
  const props = path.join(dir, 'mm2.properties');
  writeFileSync(props, Object.entries({
    clusters: 'kafka, samsa',
    'kafka.bootstrap.servers': kafkaBootstrap,
    'samsa.bootstrap.servers': samsaBootstrap,
    ...Object.fromEntries(flows.flatMap((f) => [[`${f.source}->${f.target}.enabled`, 'true'], [`${f.source}->${f.target}.topics`, f.topic], [`${f.source}->${f.target}.groups`, f.group]])),
    // One broker each.
    'replication.factor': '1',
    'heartbeats.topic.replication.factor': '1',
    'checkpoints.topic.replication.factor': '1',
    'offset-syncs.topic.replication.factor': '1',
    'config.storage.replication.factor': '1',
    'offset.storage.replication.factor': '1',
    'status.storage.replication.factor': '1',
    'tasks.max': '1',
    // Seconds, not Kafka's minutes: topics, groups and configs looked at, checkpoints and
    // heartbeats emitted, group offsets written to the target.
    'refresh.topics.interval.seconds': '2',
    'refresh.groups.interval.seconds': '2',
    'sync.topic.configs.interval.seconds': '2',
    'emit.checkpoints.interval.seconds': '1',
    'emit.heartbeats.interval.seconds': '1',
    'sync.group.offsets.enabled': 'true',
    'sync.group.offsets.interval.seconds': '1',
    // No authorizer on either broker: ACL sync would only log SECURITY_DISABLED.
    'sync.topic.acls.enabled': 'false',
  }).map(([k, v]) => `${k}=${v}`).join('\n') + '\n');

  const client = (name: 'kafka' | 'samsa') => new Kafka({ clientId: `mm2-check-${name}`, brokers: [clusters[name]], logLevel: logLevel.NOTHING });
  const kafkas = { kafka: client('kafka'), samsa: client('samsa') };
  const admins = { kafka: kafkas.kafka.admin(), samsa: kafkas.samsa.admin() };
  const tail: string[] = [];
  let mm: JvmProcess | null = null;
  try {
    await Promise.all([admins.kafka.connect(), admins.samsa.connect()]);
    await Promise.all(flows.map((f) => seed(kafkas[f.source], admins[f.source], f.topic, f.group)));
    mm = await startJvm('org.apache.kafka.connect.mirror.MirrorMaker', [props], {
      classpath: jars.classpath,
      jvmArgs: ['-Dorg.slf4j.simpleLogger.logFile=System.out', `-Dorg.slf4j.simpleLogger.defaultLogLevel=${process.env.SAMSA_FRAMEWORKS_LOG === '1' ? 'info' : 'warn'}`],
      onLine: (l) => {
        log(`mm2: ${l}`);
        tail.push(l);
        if (tail.length > 200) tail.shift();
      },
    });
    const m = mm;
    const remoteOf = (f: (typeof flows)[number]) => `${f.source}.${f.topic}`;
    const endsOf = async (admin: Admin, topic: string) => (await admin.fetchTopicOffsets(topic)).map((o) => Number(o.high));
    await until('the first records on both remote topics', 180_000, m, tail, async () => {
      for (const f of flows) if (!(await endsOf(admins[f.target], remoteOf(f))).some((e) => e > 0)) return false;
      return true;
    });
    const firstRecords = Date.now() - started;
    log(`mm2: first records mirrored both ways after ${firstRecords} ms`);
    await Promise.all(flows.map((f) => send(kafkas[f.source], f.topic, MM2_BEFORE, MM2_BEFORE + MM2_LIVE / MM2_PARTITIONS)));
    const perPartition = MM2_BEFORE + MM2_LIVE / MM2_PARTITIONS;
    await until('every record on both remote topics', 120_000, m, tail, async () => {
      for (const f of flows) if (!(await endsOf(admins[f.target], remoteOf(f))).every((e) => e >= perPartition)) return false;
      return true;
    });
    const committedOn = async (admin: Admin, group: string, topic: string) => {
      const r = await admin.fetchOffsets({ groupId: group, topics: [topic] });
      return (r[0]?.partitions ?? []).sort((a, b) => a.partition - b.partition).map((p) => Number(p.offset));
    };
    await until('the groups\' offsets on both targets, every partition', 120_000, m, tail, async () => {
      for (const f of flows) {
        const o = await committedOn(admins[f.target], f.group, remoteOf(f));
        if (o.length < MM2_PARTITIONS || !o.every((x) => x >= 0)) return false;
      }
      return true;
    });
    const groupsSynced = Date.now() - started;
    log(`mm2: group offsets synced both ways after ${groupsSynced} ms`);
    // A few more sync rounds (one a second): none may move an offset back or past the source's.
    await sleep(3000);
    await stopJvm(m);
    mm = null;

    const legs: MirrorLeg[] = [];
    for (const f of flows) {
      const target = admins[f.target];
      const remoteTopic = remoteOf(f);
      const translated = await committedOn(target, f.group, remoteTopic);
      const sourceCommitted = await committedOn(admins[f.source], f.group, f.topic);
      const configs = await target.describeConfigs({ includeSynonyms: false, resources: [{ type: 2, name: remoteTopic, configNames: ['retention.ms'] }] });
      const topics = await target.listTopics();
      // The group on the target, as an application failing over would run it.
      const resumed = (await readGroup(kafkas[f.target], f.group, remoteTopic)).map((rs) => rs.map((r) => r.value));
      legs.push({
        flow: `${f.source}->${f.target}`,
        remoteTopic,
        partitions: (await endsOf(target, remoteTopic)).length,
        retentionMs: configs.resources[0]?.configEntries.find((c) => c.configName === 'retention.ms')?.configValue,
        source: await readAll(kafkas[f.source], admins[f.source], f.topic),
        remote: await readAll(kafkas[f.target], target, remoteTopic),
        sourceCommitted,
        translated: Array.from({ length: MM2_PARTITIONS }, (_, p) => translated[p] ?? -1),
        resumed,
        internalTopics: topics.filter((t) => t.includes('heartbeats') || t.includes('checkpoints') || t.startsWith('mm2-')).sort(),
      });
    }
    return { version: jars.version, legs, ms: { firstRecords, groupsSynced, total: Date.now() - started } };
  } finally {
    if (mm) {
      mm.kill('SIGKILL');
      await mm.exited;
    }
    await Promise.all([admins.kafka.disconnect().catch(() => {}), admins.samsa.disconnect().catch(() => {})]);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A consumer in `group` on `topic`, from the group's committed offsets to the end; commits nothing. */
async function readGroup(kafka: kafkajs.Kafka, group: string, topic: string): Promise<Rec[][]> {
  const admin = kafka.admin();
  await admin.connect();
  const ends = (await admin.fetchTopicOffsets(topic)).map((o) => Number(o.high));
  await admin.disconnect();
  const out: Rec[][] = ends.map(() => []);
  const consumer = kafka.consumer({ groupId: group, maxWaitTimeInMs: 200, sessionTimeout: 10_000 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: false });
    let done: () => void = () => {};
    const finished = new Promise<void>((r) => (done = r));
    const next = ends.map(() => -1);
    const check = () => {
      if (next.every((n, p) => n >= ends[p]!)) done();
    };
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        for (const message of batch.messages) out[batch.partition]!.push({ key: message.key?.toString() ?? '', value: message.value?.toString() ?? '', header: '', timestamp: message.timestamp });
        next[batch.partition] = Number(batch.highWatermark);
        check();
      },
    });
    // Every partition has records past the group's offset; a partition that delivers none (no
    // offset on the target: the consumer starts at the end) leaves its list empty after 20 s.
    await Promise.race([finished, sleep(20_000)]);
  } finally {
    await consumer.disconnect();
  }
  return out;
}
