/**
 * The samsa CLI end to end: `node --import tsx src/cli/samsa.ts ...` against a broker on port 0.
 * Each command is a new Node process compiling the CLI through tsx (75 s for the file on a loaded
 * machine, over 180 s in a full run beside long system tests): @samsa-timeout 300
 */
import { test } from 'uvu';
import { samsaCli } from '../support/samsa-cli.js';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/index.js';

const { Kafka, logLevel } = kafkajs;

let b: RunningBroker;

test.before(async () => {
  b = await startBroker({ storage: 'memory', 'group.initial.rebalance.delay.ms': 0 });
});
test.after(async () => {
  await b.stop();
});

interface Result { code: number | null; stdout: string; stderr: string }

function samsa(args: string[], opts: { stdin?: string; bootstrap?: boolean; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Result> {
  return samsaCli(opts.bootstrap === false ? args : [...args, '--bootstrap', b.bootstrap], { stdin: opts.stdin, env: opts.env, timeoutMs: opts.timeoutMs ?? 20000 });
}

test('topics create, list, describe, delete', async () => {
  const c = await samsa(['topics', 'create', 'cli-t', '--partitions', '3', '--config', 'retention.ms=60000']);
  assert.is(c.code, 0, c.stderr);
  assert.match(c.stderr, /created topic cli-t \(3 partitions, topic id [\w-]{22}\)/);
  const again = await samsa(['topics', 'create', 'cli-t']);
  assert.is(again.code, 1);
  assert.match(again.stderr, /TOPIC_ALREADY_EXISTS/);
  assert.is((await samsa(['topics', 'create', 'cli-t', '--if-not-exists'])).code, 0);

  const l = await samsa(['topics', 'list']);
  assert.is(l.code, 0);
  assert.ok(l.stdout.split('\n').includes('cli-t'));

  const d = await samsa(['topics', 'describe', 'cli-t']);
  assert.is(d.code, 0, d.stderr);
  assert.match(d.stdout, /Topic: cli-t\tTopicId: (?!AAAAAAAAAAAAAAAAAAAAAA)[\w-]{22}\tPartitionCount: 3\tReplicationFactor: 1\tConfigs: retention.ms=60000/);
  assert.is(d.stdout.match(/Partition: \d\tLeader: 1/g)?.length, 3);

  const del = await samsa(['topics', 'delete', 'cli-t']);
  assert.is(del.code, 0);
  assert.not.ok(b.broker.metadataCache.topic('cli-t'));
  const missing = await samsa(['topics', 'describe', 'cli-t']);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /UNKNOWN_TOPIC_OR_PARTITION/);
});

test('produce from stdin with keys and headers; consume with a kcat-style format', async () => {
  assert.is((await samsa(['topics', 'create', 'cli-p', '--partitions', '1'])).code, 0);
  const p = await samsa(['produce', 'cli-p', '-K', ':', '-H', 'src=cli', '-H', 'n=1'], { stdin: 'k1:v1\nk2:v2\nnokey\n' });
  assert.is(p.code, 0, p.stderr);
  assert.match(p.stderr, /produced 3 records to cli-p/);
  const one = await samsa(['produce', 'cli-p', '--key', 'k4', '--value', 'v4']);
  assert.is(one.code, 0, one.stderr);

  const c = await samsa(['consume', 'cli-p', '-e', '-f', '%p:%o %k=%s [%h]\\n']);
  assert.is(c.code, 0, c.stderr);
  assert.is(c.stdout, '0:0 k1=v1 [src=cli,n=1]\n0:1 k2=v2 [src=cli,n=1]\n0:2 =nokey [src=cli,n=1]\n0:3 k4=v4 []\n');
  assert.match(c.stderr, /consumed 4 records/);

  // kafkajs sees the same records.
  const admin = new Kafka({ brokers: [b.bootstrap], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  const offsets = await admin.fetchTopicOffsets('cli-p');
  await admin.disconnect();
  assert.is(offsets[0]!.high, '4');
});

test('consume: from/to offsets, -N, count, JSON, and time positions', async () => {
  const producer = new Kafka({ brokers: [b.bootstrap], logLevel: logLevel.NOTHING }).producer();
  await producer.connect();
  const t0 = Date.now() - 100000;
  await producer.send({ topic: 'cli-c', messages: Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, value: `v${i}`, timestamp: String(t0 + i * 1000), partition: 0 })) });
  await producer.disconnect();

  const range = await samsa(['consume', 'cli-c', '-o', '3', '--to', '6']);
  assert.is(range.stdout, 'v3\nv4\nv5\n', range.stderr);
  const tail = await samsa(['consume', 'cli-c', '-o', '-2', '-e']);
  assert.is(tail.stdout, 'v8\nv9\n');
  const count = await samsa(['consume', 'cli-c', '-c', '2']);
  assert.is(count.stdout, 'v0\nv1\n');
  const json = await samsa(['consume', 'cli-c', '-o', '9', '-e', '--json']);
  const rec = JSON.parse(json.stdout.trim());
  assert.equal({ ...rec, timestamp: undefined }, { topic: 'cli-c', partition: 0, offset: 9, timestamp: undefined, key: 'k9', value: 'v9', headers: {} });
  assert.is(rec.timestamp, t0 + 9000);
  const byTime = await samsa(['consume', 'cli-c', '--from', `@${t0 + 7000}`, '--to', new Date(t0 + 9000).toISOString()]);
  assert.is(byTime.stdout, 'v7\nv8\n', byTime.stderr);
});

test('consume without -e waits for new records (no group involved)', async () => {
  await b.control.waitForHighWatermark('cli-c', 0, 10);
  const child = samsa(['consume', 'cli-c', '-o', 'end', '-c', '1']);
  // The consumer is fetching at the end; a record produced now is delivered.
  const rec = b.control.record({ apiKeys: ['Fetch'] });
  await new Promise<void>((resolve) => { const check = () => (rec.exchanges.length > 0 ? resolve() : setTimeout(check, 20)); check(); });
  rec.stop();
  assert.is(rec.exchanges[0]!.clientId, 'samsa-cli');
  const producer = new Kafka({ brokers: [b.bootstrap], logLevel: logLevel.NOTHING }).producer();
  await producer.connect();
  await producer.send({ topic: 'cli-c', messages: [{ value: 'late', partition: 0 }] });
  await producer.disconnect();
  const r = await child;
  assert.is(r.stdout, 'late\n');
});

test('groups list and describe with lag', async () => {
  const kafka = new Kafka({ brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'cli-g', messages: Array.from({ length: 5 }, (_, i) => ({ value: `m${i}` })) });
  await producer.disconnect();
  const consumer = kafka.consumer({ groupId: 'cli-group', maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic: 'cli-g', fromBeginning: true });
  let n = 0;
  await consumer.run({ autoCommit: true, eachMessage: async () => { n++; } });
  await b.control.waitForCommittedOffset('cli-group', 'cli-g', 0, 5);
  const live = await samsa(['groups', 'describe', 'cli-group']);
  assert.is(live.code, 0, live.stderr);
  assert.match(live.stdout, /Group: cli-group\tState: Stable\tMembers: 1\tProtocol: \w+/);
  assert.match(live.stdout, /cli-g\s+0\s+5\s+5\s+0\s+\S+-[\w-]+\s+\S+\s+kafkajs/);
  // 3 more records the group has not consumed yet: stop the consumer first.
  await consumer.disconnect();
  const p2 = kafka.producer();
  await p2.connect();
  await p2.send({ topic: 'cli-g', messages: [{ value: 'x' }, { value: 'y' }, { value: 'z' }] });
  await p2.disconnect();

  const l = await samsa(['groups', 'list']);
  assert.is(l.code, 0, l.stderr);
  assert.match(l.stdout, /GROUP\s+TYPE\s+STATE\s+PROTOCOL-TYPE\ncli-group\s+classic\s+Empty\s+consumer/);
  const d = await samsa(['groups', 'describe', 'cli-group']);
  assert.is(d.code, 0, d.stderr);
  assert.match(d.stdout, /Group: cli-group\tState: Empty/);
  assert.match(d.stdout, /cli-g\s+0\s+5\s+8\s+3\s/);
  assert.is(n, 5);
});

test('helpful errors: no broker, unknown command or option, bad partition', async () => {
  const none = await samsa(['topics', 'list', '--bootstrap', 'localhost:1'], { bootstrap: false });
  assert.is(none.code, 1);
  assert.match(none.stderr, /cannot connect to localhost:1: nothing is listening there/);
  const unknown = await samsa(['topix'], { bootstrap: false });
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, /unknown command 'topix'/);
  const opt = await samsa(['consume', 'cli-c', '--form', 'beginning']);
  assert.is(opt.code, 2);
  assert.match(opt.stderr, /unknown option '--form'/);
  const part = await samsa(['produce', 'cli-c', '-p', '7', '-v', 'x']);
  assert.is(part.code, 2);
  assert.match(part.stderr, /has partitions 0\.\.0, not 7/);
  const help = await samsa(['consume', '--help'], { bootstrap: false });
  assert.is(help.code, 0);
  assert.match(help.stdout, /usage: samsa consume TOPIC/);
});

test('produce reports progress on long runs', async () => {
  const lines = Array.from({ length: 3000 }, (_, i) => `r${i}`).join('\n') + '\n';
  const r = await samsa(['produce', 'cli-big', '--progress', '--batch-size', '100'], { stdin: lines });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, /produced 3000 records to cli-big/);
  assert.is(b.broker.getLog('cli-big', 0)!.highWatermark, 3000);
});

test.run();
