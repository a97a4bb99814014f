/**
 * Streams groups (KIP-1071) with the Kafka Streams 4.4 Java client (`group.protocol=streams`,
 * exactly_once_v2) against Samsa over real sockets, through compat-tests/frameworks/WordCount.java:
 * 1. one instance joins; Samsa creates the repartition and changelog topics the topology needs
 *    and assigns it every task; it counts the first third of the input;
 * 2. a second instance (another process) joins: the tasks are split between the two (no active
 *    task on both), and both count the second third; then it is stopped (SIGTERM: it leaves the
 *    group) and the first takes every task again;
 * 3. the application is stopped and started again on its state directory with the last third:
 *    the group, kept in __consumer_offsets, takes it back and it goes on from its committed
 *    offsets;
 * 4. a read_committed Java consumer reads each word's counts 1..n exactly once.
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
import { startJvm, stopJvm, type JvmProcess } from '../../compat-tests/frameworks/jvm.js';
import { streamsApps } from './_streams-apps.js';
import { wordCountInput } from '../../compat-tests/frameworks/streams.js';
import { until as untilValue } from '../support/until.js';

const { Kafka, logLevel } = kafkajs;
const missing = javaMissing();
const APP = 'wc-streams-groups';
const IN = `${APP}-lines`;
const OUT = `${APP}-counts`;
const LINES = 90;
const verbose = process.env.SAMSA_STREAMS_LOG === '1';

let b: RunningBroker | null = null;
const apps = streamsApps(() => b!.bootstrap, APP, IN, OUT, verbose);

test.after(async () => {
  await apps.killAll();
  await b?.stop();
  apps.removeDirs();
});

const describe = () => b!.broker.groupCoordinator.streamsGroupDescribe(APP, null, false);
const activeOf = (m: { assignment: { activeTasks: { subtopologyId: string; partitions: number[] }[] } | null }) =>
  (m.assignment?.activeTasks ?? []).flatMap((t) => t.partitions.map((p) => `${t.subtopologyId}_${p}`));

/** Resolves once `pred` holds (polled every 100 ms). */
const until = (pred: () => boolean | Promise<boolean>, ms: number, what: string) => untilValue(what, ms, async () => ((await pred()) ? true : null));

const start = (stateDir: string, tag: string): Promise<JvmProcess> => apps.start(stateDir, tag);

test('a Streams 4.4 application on streams groups: a member added and removed, a restart, each count exactly once', async () => {
  if (missing) {
    console.log(`streams-groups-java: skipped: ${missing}`);
    return;
  }
  b = await startBroker({ port: 0 });
  const { lines, expected } = wordCountInput(LINES);
  const third = LINES / 3;
  const increments = (n: number) => [...wordCountInput(n).expected.values()].reduce((x, y) => x + y, 0);
  const kafka = new Kafka({ clientId: `${APP}-check`, brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  const consumer = kafka.consumer({ groupId: `${APP}-check`, readUncommitted: false });
  let seen = 0;
  try {
    await admin.connect();
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic: IN, numPartitions: 4, replicationFactor: 1 }, { topic: OUT, numPartitions: 2, replicationFactor: 1 }] });
    await producer.connect();
    const produce = (from: number, to: number) => producer.send({ topic: IN, acks: -1, messages: lines.slice(from, to).map((value, i) => ({ key: `line-${from + i}`, value })) });
    await consumer.connect();
    await consumer.subscribe({ topic: OUT, fromBeginning: true });
    await consumer.run({ eachMessage: async () => { seen++; } });

    // 1. One instance: every task, the internal topics created by the broker.
    await produce(0, third);
    const dirA = mkdtempSync(path.join(os.tmpdir(), 'samsa-sg-a-'));
    const dirB = mkdtempSync(path.join(os.tmpdir(), 'samsa-sg-b-'));
    apps.dir(dirA);
    apps.dir(dirB);
    let a = await start(dirA, 'A');
    await until(() => seen >= increments(third), 90_000, 'the first third counted');
    let d = await describe();
    assert.is(d.errorCode, 0);
    assert.is(d.members.length, 1);
    assert.is(activeOf(d.members[0]).length, 8, `2 subtopologies x 4 partitions: ${JSON.stringify(d.members[0].assignment)}`);
    const topics = await admin.listTopics();
    const repartition = topics.find((t) => t.startsWith(APP) && t.endsWith('-repartition'));
    const changelog = topics.find((t) => t.startsWith(APP) && t.endsWith('-changelog'));
    assert.ok(repartition && changelog, `internal topics: ${topics}`);
    const configs = await admin.describeConfigs({ includeSynonyms: false, resources: [repartition!, changelog!].map((name) => ({ type: 2, name, configNames: ['cleanup.policy'] })) });
    assert.equal(configs.resources.map((r) => r.configEntries[0].configValue), ['delete', 'compact']);
    assert.equal((await admin.fetchTopicMetadata({ topics: [repartition!, changelog!] })).topics.map((t) => t.partitions.length), [4, 4]);

    // 2. A second instance joins: the tasks are split; it counts; it leaves and A takes them back.
    const bApp = await start(dirB, 'B');
    await until(async () => {
      const g = await describe();
      return g.members.length === 2 && g.groupState === 'Stable' && g.members.every((m) => activeOf(m).length === 4);
    }, 90_000, 'the tasks split 4/4 between the two instances');
    d = await describe();
    const [ta, tb] = d.members.map(activeOf);
    assert.equal(ta.filter((t) => tb.includes(t)), [], 'no active task on both instances');
    await produce(third, 2 * third);
    await until(() => seen >= increments(2 * third), 90_000, 'the second third counted by both');
    const stoppedB = await stopJvm(bApp);
    assert.ok(stoppedB.code === 0 || stoppedB.code === 143, `B stopped cleanly: ${stoppedB.stderr.slice(-1000)}`);
    await until(async () => {
      const g = await describe();
      return g.members.length === 1 && activeOf(g.members[0]).length === 8;
    }, 60_000, 'A alone with every task again');

    // 3. The application stops and starts again on its state directory.
    const stoppedA = await stopJvm(a);
    assert.ok(stoppedA.code === 0 || stoppedA.code === 143, `A stopped cleanly: ${stoppedA.stderr.slice(-1000)}`);
    assert.is((await describe()).groupState, 'Empty');
    await produce(2 * third, LINES);
    a = await start(dirA, 'A again');
    const total = [...expected.values()].reduce((x, y) => x + y, 0);
    await until(() => seen >= total, 90_000, 'every line counted after the restart');
    await stopJvm(a);

    // 4. Exactly once.
    const reader = await startJvm('WordCount', ['read', b.bootstrap, OUT]);
    apps.adopt(reader);
    const counts = (await reader.line((l) => 'counts' in l)).counts as Record<string, number[]>;
    for (const [word, n] of expected) assert.equal(counts[word], Array.from({ length: n }, (_, i) => i + 1), `the counts of ${word}`);
    assert.equal(Object.keys(counts).sort(), [...expected.keys()].sort());
    assert.is(seen, total, 'kafkajs read_committed saw each increment once');
    const listed = await admin.listGroups();
    assert.ok(listed.groups.some((g) => g.groupId === APP && g.protocolType === 'streams'), JSON.stringify(listed.groups));
  } finally {
    await consumer.disconnect().catch(() => {});
    await producer.disconnect().catch(() => {});
    await admin.disconnect().catch(() => {});
  }
});

test.run();
