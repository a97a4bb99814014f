/**
 * Consumer groups with kafkajs 2.2.4: point-to-point (one group shares the partitions),
 * publish-subscribe (each group sees everything), session timeouts, durable offsets across a
 * broker restart, and the admin group APIs.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { tmpDir } from '../support/tmp.js';
import { waitFor } from '../support/external.js';

const { Kafka, logLevel } = kafkajs;
type Consumer = kafkajs.Consumer;

process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';

const CONFIG = { 'group.min.session.timeout.ms': 1000, 'num.partitions': 1 };
const SESSION_TIMEOUT = 3000;

let b: RunningBroker;

test.before(async () => {
  b = await startBroker({ port: 0, config: CONFIG });
});

test.after(async () => {
  await b?.stop();
});

function client(bootstrap = b.bootstrap, clientId = 'groups-test') {
  return new Kafka({ clientId, brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 100 } });
}

interface Member {
  consumer: Consumer;
  /** Partitions of the latest assignment. */
  assigned: number[];
  joins: number;
}

async function member(kafka: kafkajs.Kafka, groupId: string, topic: string, onRecord: (partition: number, value: string) => void): Promise<Member> {
  const consumer = kafka.consumer({ groupId, sessionTimeout: SESSION_TIMEOUT, heartbeatInterval: 300, rebalanceTimeout: 10000, maxWaitTimeInMs: 200 });
  const m: Member = { consumer, assigned: [], joins: 0 };
  consumer.on(consumer.events.GROUP_JOIN, (e) => {
    m.assigned = ((e.payload.memberAssignment[topic] ?? []) as number[]).slice().sort((x, y) => x - y);
    m.joins++;
  });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ partition, message }) => onRecord(partition, message.value!.toString()) });
  return m;
}

async function produce(kafka: kafkajs.Kafka, topic: string, values: string[], partitions: number): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, messages: values.map((value, i) => ({ value, partition: i % partitions })) });
  await producer.disconnect();
}

async function createTopic(kafka: kafkajs.Kafka, topic: string, numPartitions: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions }], waitForLeaders: true });
  await admin.disconnect();
}

function union(ms: Member[]): number[] {
  return ms.flatMap((m) => m.assigned).sort((x, y) => x - y);
}

test('three consumers in one group split a 6-partition topic; every record is processed exactly once', async () => {
  const kafka = client();
  await createTopic(kafka, 'p2p', 6);
  const seen = new Map<string, number>();
  const byMember: string[][] = [[], [], []];
  const members: Member[] = [];
  for (let i = 0; i < 3; i++) {
    members.push(await member(kafka, 'p2p-group', 'p2p', (_p, v) => {
      seen.set(v, (seen.get(v) ?? 0) + 1);
      byMember[i].push(v);
    }));
  }
  try {
    await waitFor(() => members.every((m) => m.assigned.length === 2) && union(members).join() === '0,1,2,3,4,5', { timeoutMs: 30000, description: 'three members with two partitions each' });
    const values = Array.from({ length: 300 }, (_, i) => `r${i}`);
    await produce(kafka, 'p2p', values, 6);
    await waitFor(() => seen.size === 300, { timeoutMs: 20000, description: 'all 300 records consumed' });
    await new Promise((r) => setTimeout(r, 500));
    for (const v of values) assert.is(seen.get(v), 1, `${v} processed once`);
    for (const list of byMember) assert.is(list.length, 100, 'each member processed its two partitions');
  } finally {
    await Promise.all(members.map((m) => m.consumer.disconnect()));
  }
});

test('a member that stops without leaving loses its partitions after the session timeout', async () => {
  const kafka = client();
  await createTopic(kafka, 'silent', 6);
  const script = path.join(import.meta.dirname, '_groups-member.ts');
  const tsx = path.join(process.cwd(), 'node_modules/.bin/tsx');
  const child: ChildProcess = spawn(tsx, [script, b.bootstrap, 'silent-group', 'silent', String(SESSION_TIMEOUT)], { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
  let childAssigned: number[] = [];
  child.stdout!.on('data', (d: Buffer) => {
    for (const line of d.toString().split('\n').filter(Boolean)) childAssigned = JSON.parse(line).assigned;
  });
  const members: Member[] = [];
  try {
    for (let i = 0; i < 2; i++) members.push(await member(kafka, 'silent-group', 'silent', () => {}));
    await waitFor(() => childAssigned.length === 2 && members.every((m) => m.assigned.length === 2), { timeoutMs: 40000, description: 'three members with two partitions each' });
    process.kill(-child.pid!, 'SIGKILL');
    const killedAt = Date.now();
    await waitFor(() => members.every((m) => m.assigned.length === 3) && union(members).join() === '0,1,2,3,4,5', { timeoutMs: 30000, description: 'the two survivors own all six partitions' });
    assert.ok(Date.now() - killedAt >= SESSION_TIMEOUT - 500, 'not before the session timeout');
  } finally {
    try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ }
    await Promise.all(members.map((m) => m.consumer.disconnect()));
  }
});

test('two groups each receive every record (publish-subscribe)', async () => {
  const kafka = client();
  await createTopic(kafka, 'pubsub', 3);
  const got: Record<string, Set<string>> = { a: new Set(), b: new Set() };
  const ma = await member(kafka, 'group-a', 'pubsub', (_p, v) => got.a.add(v));
  const mb = await member(kafka, 'group-b', 'pubsub', (_p, v) => got.b.add(v));
  try {
    const values = Array.from({ length: 90 }, (_, i) => `m${i}`);
    await produce(kafka, 'pubsub', values, 3);
    await waitFor(() => got.a.size === 90 && got.b.size === 90, { timeoutMs: 30000, description: 'both groups got all 90 records' });
  } finally {
    await ma.consumer.disconnect();
    await mb.consumer.disconnect();
  }
});

test('a group resumes from its committed offsets after a broker restart', async () => {
  const dir = tmpDir('groups-restart');
  let rb = await startBroker({ port: 0, config: CONFIG, logDir: dir.path });
  try {
    let kafka = client(rb.bootstrap);
    await createTopic(kafka, 'durable', 2);
    await produce(kafka, 'durable', Array.from({ length: 20 }, (_, i) => `first-${i}`), 2);
    const first = new Set<string>();
    const m1 = await member(kafka, 'durable-group', 'durable', (_p, v) => first.add(v));
    await waitFor(() => first.size === 20, { timeoutMs: 20000, description: 'first 20 records' });
    await m1.consumer.disconnect(); // commits what it processed, then leaves
    const admin = kafka.admin();
    await admin.connect();
    const committed = await admin.fetchOffsets({ groupId: 'durable-group', topics: ['durable'] });
    await admin.disconnect();
    assert.equal(committed[0].partitions.map((p) => p.offset).sort(), ['10', '10']);
    await rb.stop();

    rb = await startBroker({ port: 0, config: CONFIG, logDir: dir.path });
    kafka = client(rb.bootstrap);
    await produce(kafka, 'durable', Array.from({ length: 10 }, (_, i) => `second-${i}`), 2);
    const second: string[] = [];
    const m2 = await member(kafka, 'durable-group', 'durable', (_p, v) => second.push(v));
    await waitFor(() => second.length >= 10, { timeoutMs: 20000, description: 'the 10 new records' });
    await new Promise((r) => setTimeout(r, 500));
    await m2.consumer.disconnect();
    assert.equal(second.sort(), Array.from({ length: 10 }, (_, i) => `second-${i}`).sort(), 'only records after the committed offsets');
  } finally {
    await rb.stop();
    await dir.cleanup();
  }
});

test('admin describeGroups / listGroups show members and states', async () => {
  const kafka = client();
  await createTopic(kafka, 'described', 2);
  const m = await member(kafka, 'described-group', 'described', () => {});
  const admin = kafka.admin();
  await admin.connect();
  try {
    await waitFor(() => m.assigned.length === 2, { timeoutMs: 20000, description: 'assignment' });
    const { groups } = await admin.describeGroups(['described-group', 'no-such-group']);
    assert.is(groups[0].state, 'Stable');
    assert.is(groups[0].protocolType, 'consumer');
    assert.is(groups[0].members.length, 1);
    assert.is(groups[0].members[0].clientId, 'groups-test');
    assert.ok(groups[0].members[0].memberAssignment.length > 0);
    assert.is(groups[1].state, 'Dead');
    const listed = await admin.listGroups();
    const mine = listed.groups.find((g) => g.groupId === 'described-group');
    assert.equal(mine, { groupId: 'described-group', protocolType: 'consumer' });
    await m.consumer.disconnect();
    const after = await admin.describeGroups(['described-group']);
    assert.is(after.groups[0].state, 'Empty');
    assert.is(after.groups[0].members.length, 0);
  } finally {
    await admin.disconnect();
  }
});

test('admin setOffsets / resetOffsets / fetchOffsets / deleteGroups', async () => {
  const kafka = client();
  await createTopic(kafka, 'admin-offsets', 3);
  await produce(kafka, 'admin-offsets', Array.from({ length: 30 }, (_, i) => `x${i}`), 3);
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.setOffsets({ groupId: 'admin-group', topic: 'admin-offsets', partitions: [{ partition: 0, offset: '4' }, { partition: 2, offset: '7' }] });
    let fetched = await admin.fetchOffsets({ groupId: 'admin-group', topics: ['admin-offsets'] });
    assert.equal(fetched[0].partitions.map((p) => [p.partition, p.offset]).sort(), [[0, '4'], [1, '-1'], [2, '7']]);
    await admin.resetOffsets({ groupId: 'admin-group', topic: 'admin-offsets', earliest: false });
    fetched = await admin.fetchOffsets({ groupId: 'admin-group', topics: ['admin-offsets'] });
    // kafkajs commits the sentinels -1 (latest) and -2 (earliest); consumers resolve them.
    assert.equal(fetched[0].partitions.map((p) => p.offset), ['-1', '-1', '-1']);
    await admin.resetOffsets({ groupId: 'admin-group', topic: 'admin-offsets', earliest: true });
    fetched = await admin.fetchOffsets({ groupId: 'admin-group', topics: ['admin-offsets'] });
    assert.equal(fetched[0].partitions.map((p) => p.offset), ['-2', '-2', '-2']);
    // kafkajs sets offsets through a short-lived group member: the group is listed, Empty.
    const listed = await admin.listGroups();
    assert.ok(listed.groups.some((g) => g.groupId === 'admin-group'));
    assert.is((await admin.describeGroups(['admin-group'])).groups[0].state, 'Empty');
    // A consumer of the group starts from the committed offsets.
    const seen: string[] = [];
    await admin.setOffsets({ groupId: 'admin-group', topic: 'admin-offsets', partitions: [0, 1, 2].map((partition) => ({ partition, offset: '8' })) });
    const m = await member(kafka, 'admin-group', 'admin-offsets', (_p, v) => seen.push(v));
    await waitFor(() => seen.length >= 6, { timeoutMs: 20000, description: 'records 8 and 9 of each partition' });
    await new Promise((r) => setTimeout(r, 300));
    assert.is(seen.length, 6);
    await m.consumer.disconnect();
    const deleted = await admin.deleteGroups(['admin-group']);
    assert.is(deleted[0].errorCode, 0);
    fetched = await admin.fetchOffsets({ groupId: 'admin-group', topics: ['admin-offsets'] });
    assert.equal(fetched[0].partitions.map((p) => p.offset), ['-1', '-1', '-1']);
  } finally {
    await admin.disconnect();
  }
});

test.run();
