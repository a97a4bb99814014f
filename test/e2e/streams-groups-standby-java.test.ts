/**
 * Standby tasks of a streams group (KIP-1071) with the Kafka Streams 4.4 Java client
 * (`group.protocol=streams`, compat-tests/frameworks/WordCount.java: a stateless subtopology, a
 * repartition topic, a stateful count with its changelog) and Kafka 4.4's own tools:
 * 1. `kafka-configs --entity-type groups` (ConfigCommand) sets streams.num.standby.replicas=1 on
 *    the application's group;
 * 2. one instance runs every task; a second instance (another process) joins: the active tasks
 *    are split, and every stateful task gets one standby, on the process that does not run it
 *    (stateless tasks get none), as Kafka 4.4's sticky assignor places them;
 * 3. `kafka-streams-groups --describe --members --verbose` (StreamsGroupCommand) shows each
 *    member's active and standby tasks and no warm-up tasks (Kafka 4.4 assigns none);
 * 4. the second instance stops: the first runs every task again, without standbys.
 * Skipped without java.
 * @samsa-timeout 300
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { javaMissing } from '../../tools/kafka/kafka.js';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { stopJvm, type JvmProcess } from '../../compat-tests/frameworks/jvm.js';
import { streamsApps } from './_streams-apps.js';
import { wordCountInput } from '../../compat-tests/frameworks/streams.js';
import { describeRun, hostPort } from '../support/clients.js';
import { until as untilValue } from '../support/until.js';
import { kafkaTool } from '../support/kafka-tools.js';

const { Kafka, logLevel } = kafkajs;
const missing = javaMissing();
const APP = 'wc-streams-standby';
const IN = `${APP}-lines`;
const OUT = `${APP}-counts`;
const verbose = process.env.SAMSA_STREAMS_LOG === '1';

let b: RunningBroker | null = null;
const apps = streamsApps(() => b!.bootstrap, APP, IN, OUT, verbose);

test.after(async () => {
  await apps.killAll();
  await b?.stop();
  apps.removeDirs();
});

type TaskList = { subtopologyId: string; partitions: number[] }[];
const ids = (t: TaskList | undefined) => (t ?? []).flatMap((x) => x.partitions.map((p) => `${x.subtopologyId}_${p}`)).sort();
const describe = () => b!.broker.groupCoordinator.streamsGroupDescribe(APP, null, false);
const until = (pred: () => boolean | Promise<boolean>, ms: number, what: string) => untilValue(what, ms, async () => ((await pred()) ? true : null));

const start = (stateDir: string, tag: string): Promise<JvmProcess> => apps.start(stateDir, tag);

test('Streams 4.4 with streams.num.standby.replicas=1: a standby of every stateful task on the other process, shown by kafka-streams-groups --describe; no warm-up tasks', async () => {
  if (missing) return void console.log(`streams-groups-standby-java: skipped: ${missing}`);
  b = await startBroker({ port: 0 });
  const tool = (cls: string, ...args: string[]) => kafkaTool(cls, ['--bootstrap-server', hostPort(b!.port), ...args], { timeoutMs: 90_000 });
  const kafka = new Kafka({ clientId: `${APP}-check`, brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  const consumer = kafka.consumer({ groupId: `${APP}-check`, readUncommitted: false });
  let seen = 0;
  try {
    await admin.connect();
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic: IN, numPartitions: 4, replicationFactor: 1 }, { topic: OUT, numPartitions: 2, replicationFactor: 1 }] });
    const configured = await tool('org.apache.kafka.tools.ConfigCommand', '--alter', '--entity-type', 'groups', '--entity-name', APP, '--add-config', 'streams.num.standby.replicas=1');
    assert.is(configured.code, 0, describeRun(configured));
    await producer.connect();
    const { lines } = wordCountInput(40);
    await producer.send({ topic: IN, acks: -1, messages: lines.map((value, i) => ({ key: `line-${i}`, value })) });
    await consumer.connect();
    await consumer.subscribe({ topic: OUT, fromBeginning: true });
    await consumer.run({ eachMessage: async () => { seen++; } });

    const dirA = mkdtempSync(path.join(os.tmpdir(), 'samsa-sgs-a-'));
    const dirB = mkdtempSync(path.join(os.tmpdir(), 'samsa-sgs-b-'));
    apps.dir(dirA);
    apps.dir(dirB);
    await start(dirA, 'A');
    await until(() => seen > 0, 90_000, 'A counts');
    const bApp = await start(dirB, 'B');
    await until(async () => {
      const g = await describe();
      return g.members.length === 2 && g.groupState === 'Stable' && g.members.every((m) => ids(m.assignment?.activeTasks).length === 4);
    }, 120_000, 'two instances, 4 active tasks each, Stable');

    const g = await describe();
    const stateful = new Set((g.topology?.subtopologies ?? []).filter((s) => s.stateChangelogTopics.length > 0).map((s) => s.subtopologyId));
    assert.is(stateful.size, 1, `WordCount has one stateful subtopology: ${JSON.stringify(g.topology)}`);
    const [m0, m1] = g.members;
    const statefulOf = (t: string[]) => t.filter((x) => stateful.has(x.split('_')[0]));
    assert.equal(ids(m0.assignment?.standbyTasks), statefulOf(ids(m1.assignment?.activeTasks)), 'member 0 keeps a standby of each stateful task member 1 runs');
    assert.equal(ids(m1.assignment?.standbyTasks), statefulOf(ids(m0.assignment?.activeTasks)), 'and the other way round');
    assert.ok(g.members.every((m) => ids(m.assignment?.warmupTasks).length === 0 && ids(m.targetAssignment?.warmupTasks).length === 0), 'no warm-up tasks');

    const described = await tool('org.apache.kafka.tools.streams.StreamsGroupCommand', '--describe', '--group', APP, '--members', '--verbose');
    assert.is(described.code, 0, describeRun(described));
    if (verbose) console.log(described.stdout);
    // The tool's ASSIGNMENTS column: "ACTIVE: 0:[0,1]; 1:[0,1]; STANDBY: 1:[2,3]; TARGET-ACTIVE: ...", a kind only when it has tasks.
    const shown = (t: TaskList | undefined) => [...(t ?? [])].sort((x, y) => (x.subtopologyId < y.subtopologyId ? -1 : 1))
      .map((x) => `${x.subtopologyId}:[${[...x.partitions].sort((p, q) => p - q).join(',')}]; `).join('');
    for (const m of g.members) {
      const row = described.stdout.split('\n').find((l) => l.includes(m.memberId));
      assert.ok(row, `a row for ${m.memberId}:\n${described.stdout}`);
      assert.ok(row!.includes(`STANDBY: ${shown(m.assignment?.standbyTasks)}TARGET-ACTIVE`), `${m.memberId}'s standbys: ${row}`);
      assert.ok(row!.includes(`TARGET-STANDBY: ${shown(m.targetAssignment?.standbyTasks)}`), `${m.memberId}'s target standbys: ${row}`);
    }
    assert.not.match(described.stdout, /WARMUP/, 'no warm-up tasks (the tool prints WARMUP: when a member has some)');

    const stopped = await stopJvm(bApp);
    assert.ok(stopped.code === 0 || stopped.code === 143, `B stopped cleanly: ${stopped.stderr.slice(-1000)}`);
    await until(async () => {
      const d = await describe();
      return d.members.length === 1 && ids(d.members[0].assignment?.activeTasks).length === 8;
    }, 90_000, 'A alone with every task again');
    assert.equal(ids((await describe()).members[0].assignment?.standbyTasks), [], 'no standby within the only process');
  } finally {
    await consumer.disconnect().catch(() => {});
    await producer.disconnect().catch(() => {});
    await admin.disconnect().catch(() => {});
  }
});

test.run();
