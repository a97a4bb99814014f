/**
 * `samsa groups` on every kind of group, with real clients: two confluent-kafka consumers with
 * group.protocol=consumer (KIP-848) read a two-partition topic and commit; `groups describe`
 * shows the group through ConsumerGroupDescribe (epochs, members with their member epochs and
 * assignments) with committed offset, log end offset and lag per partition; `groups list` shows
 * the type of each group: that one (consumer), a kafkajs group (classic) and a confluent-kafka
 * ShareConsumer's group (share). The classic describe is in cli.test.ts, the share describe in
 * share-groups.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { runSamsa } from '../support/samsa-cli.js';
import { startGroup } from '../support/python-groups.js';


let b: RunningBroker;
const stops: (() => void)[] = [];

test.before(async () => {
  b = await startBroker({ config: { 'group.initial.rebalance.delay.ms': '0', 'group.share.assignment.interval.ms': '0' } });
});
test.after(async () => {
  for (const s of stops) s();
  await b?.stop();
});

const samsa = (args: string[]) => runSamsa(b.bootstrap, args);

test('a KIP-848 consumer group: describe shows epochs, members, assignments, offsets and lag; list shows each group\'s type', async () => {
  const [cg, sg] = await Promise.all([
    startGroup(b.bootstrap, 'consumer', 'cli-cg', 'cli-cg-t', { members: 2, records: 10 }),
    startGroup(b.bootstrap, 'share', 'cli-sg', 'cli-sg-t', { records: 5 }),
  ]);
  stops.push(cg.stop, sg.stop);
  assert.is(cg.line.seen, 10);
  const kafka = new kafkajs.Kafka({ brokers: [b.bootstrap], logLevel: kafkajs.logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.setOffsets({ groupId: 'cli-classic', topic: 'cli-cg-t', partitions: [{ partition: 0, offset: '1' }] });
  await admin.disconnect();
  const stable = await b.control.waitForGroupStable('cli-cg', { timeoutMs: 20_000 });
  assert.is(stable.type, 'consumer');
  // Three records the group has read but not committed: lag 3 in all.
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'cli-cg-t', messages: [{ value: 'x', partition: 0 }, { value: 'y', partition: 0 }, { value: 'z', partition: 1 }] });
  await producer.disconnect();

  const d = await samsa(['groups', 'describe', 'cli-cg']);
  assert.is(d.code, 0, d.stderr);
  const head = /Consumer group: cli-cg\tState: Stable\tMembers: 2\tGroup epoch: (\d+)\tAssignment epoch: (\d+)\tAssignor: uniform/.exec(d.stdout);
  assert.ok(head, d.stdout);
  assert.is(head[1], head[2], 'a Stable group\'s target is at the group epoch');
  const memberRows = [...d.stdout.matchAll(/^(\S+)\s+-\s+(cli-cg-\d)\s+\S+\s+(\d+)\s+(cli-cg-t:\d)$/gm)];
  assert.equal(memberRows.map((m) => m[2]).sort(), ['cli-cg-0', 'cli-cg-1'], d.stdout);
  for (const m of memberRows) assert.is(m[3], head[1], 'each member is at the group epoch');
  assert.equal(memberRows.map((m) => m[4]).sort(), ['cli-cg-t:0', 'cli-cg-t:1'], 'one partition each');
  const holder = (p: number) => memberRows.find((m) => m[4] === `cli-cg-t:${p}`)![1].replace(/[+/]/g, '\\$&');
  // 10 records round-robin over two partitions: 5 committed on each; 2 and 1 more since.
  assert.ok(new RegExp(`cli-cg-t\\s+0\\s+5\\s+7\\s+2\\s+${holder(0)}\\s+\\S+\\s+cli-cg-\\d`).test(d.stdout), d.stdout);
  assert.ok(new RegExp(`cli-cg-t\\s+1\\s+5\\s+6\\s+1\\s+${holder(1)}\\s+\\S+\\s+cli-cg-\\d`).test(d.stdout), d.stdout);

  const l = await samsa(['groups', 'list']);
  assert.is(l.code, 0, l.stderr);
  assert.match(l.stdout, /GROUP\s+TYPE\s+STATE\s+PROTOCOL-TYPE\n/);
  assert.match(l.stdout, /\ncli-cg\s+consumer\s+Stable\s+consumer\n/);
  assert.match(l.stdout, /\ncli-classic\s+classic\s+Empty\s+consumer\n/);
  assert.match(l.stdout, /\ncli-sg\s+share\s+Stable\s+share\n/);
});

test.run();
