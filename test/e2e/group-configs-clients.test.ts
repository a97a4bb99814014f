/**
 * Group configs (GROUP resources, KIP-848) with real clients against Samsa:
 * - Kafka 4.4's own kafka-configs (ConfigCommand --entity-type groups, the pinned tools/kafka jars):
 *   add, describe, refuse an out-of-bounds value with Kafka's message, delete; describe without a
 *   group name lists every group that has configs (ListConfigResources);
 * - confluent-kafka 2.x (librdkafka, group.protocol=consumer): a member heartbeats at the group's
 *   consumer.heartbeat.interval.ms, and at the broker's again from the heartbeat after the override
 *   is deleted; a SIGKILLed member is fenced after the group's consumer.session.timeout.ms, not
 *   the broker's.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { javaMissing } from '../../tools/kafka/kafka.js';
import { kafkaTool } from '../support/kafka-tools.js';
import { venvPython } from '../support/external.js';
import { WireClient } from '../broker/handlers/_admin-wire.js';
import { describeRun, hostPort, jsonLines } from '../support/clients.js';
import { CONSUMER_PROTOCOL_BROKER_CONFIG } from '../support/consumer-protocol-scenarios.js';

const GROUP = 32;
let b: RunningBroker;
let c: WireClient;

test.before(async () => {
  // Broker-wide: heartbeat every 1 s, session 6 s (consumer-protocol-scenarios.ts).
  b = await startBroker({ port: 0, config: CONSUMER_PROTOCOL_BROKER_CONFIG });
  c = await WireClient.connect(b.port);
});

test.after(async () => {
  c?.close();
  await b?.stop();
});

async function alterGroup(group: string, configs: { name: string; configOperation: number; value: string | null }[]): Promise<void> {
  const r = await c.send(44, 1, { resources: [{ resourceType: GROUP, resourceName: group, configs }], validateOnly: false });
  assert.equal([r.responses[0].errorCode, r.responses[0].errorMessage], [ErrorCode.NONE, null]);
}

test('kafka-configs --entity-type groups (Kafka 4.4 ConfigCommand): add, describe, refuse, delete', async () => {
  const missing = javaMissing();
  if (missing) return void console.log(`skipped: ${missing}`);
  const tool = (...args: string[]) => kafkaTool('org.apache.kafka.tools.ConfigCommand', ['--bootstrap-server', hostPort(b.port), ...args], { timeoutMs: 60_000 });
  const entity = ['--entity-type', 'groups', '--entity-name', 'gcc-cli'];
  const add = await tool('--alter', ...entity, '--add-config', 'consumer.session.timeout.ms=50000,share.record.lock.duration.ms=20000');
  assert.is(add.code, 0, describeRun(add));
  assert.match(add.stdout, /Completed updating config for group gcc-cli/);
  const described = await tool('--describe', ...entity);
  assert.is(described.code, 0, describeRun(described));
  assert.match(described.stdout, /consumer\.session\.timeout\.ms=50000/);
  assert.match(described.stdout, /share\.record\.lock\.duration\.ms=20000/);
  const all = await tool('--describe', '--all', ...entity);
  assert.match(all.stdout, /consumer\.heartbeat\.interval\.ms=1000/, 'the broker\'s group.consumer.heartbeat.interval.ms is the default');
  const bad = await tool('--alter', ...entity, '--add-config', 'consumer.session.timeout.ms=70000');
  assert.is.not(bad.code, 0);
  assert.match(bad.stdout + bad.stderr, /consumer\.session\.timeout\.ms must be in the range 1000 to 60000 inclusive\./);
  const del = await tool('--alter', ...entity, '--delete-config', 'share.record.lock.duration.ms');
  assert.is(del.code, 0, describeRun(del));
  assert.equal(b.broker.groupConfigs.overrides('gcc-cli'), { 'consumer.session.timeout.ms': '50000' });
});

test('kafka-configs --describe --entity-type groups without a name (ListConfigResources v1): every group that has configs', async () => {
  const missing = javaMissing();
  if (missing) return void console.log(`skipped: ${missing}`);
  await alterGroup('gcc-list-a', [{ name: 'consumer.heartbeat.interval.ms', configOperation: 0, value: '3000' }]);
  await alterGroup('gcc-list-b', [{ name: 'share.auto.offset.reset', configOperation: 0, value: 'earliest' }]);
  // A group whose only override was deleted has no configs any more: not listed (as Kafka 4.4).
  await alterGroup('gcc-list-gone', [{ name: 'consumer.heartbeat.interval.ms', configOperation: 0, value: '3000' }]);
  await alterGroup('gcc-list-gone', [{ name: 'consumer.heartbeat.interval.ms', configOperation: 1, value: null }]);
  const rec = b.control.record({ apiKeys: ['ListConfigResources'] });
  const res = await kafkaTool('org.apache.kafka.tools.ConfigCommand', ['--bootstrap-server', hostPort(b.port), '--describe', '--entity-type', 'groups'], { timeoutMs: 60_000 });
  rec.stop();
  assert.is(res.code, 0, describeRun(res));
  const groups = [...res.stdout.matchAll(/Dynamic configs for group (\S+) are:/g)].map((m) => m[1]).sort();
  // gcc-cli keeps consumer.session.timeout.ms from the test before when run in order.
  assert.equal(groups.filter((g) => g !== 'gcc-cli'), ['gcc-list-a', 'gcc-list-b'], res.stdout);
  assert.match(res.stdout, /consumer\.heartbeat\.interval\.ms=3000/);
  assert.match(res.stdout, /share\.auto\.offset\.reset=earliest/);
  const asked = rec.of('ListConfigResources');
  assert.ok(asked.length >= 1 && asked.every((x) => x.apiVersion === 1), `asked with ListConfigResources v1: ${asked.map((x) => x.apiVersion)}`);
  assert.equal((asked[0].request as { resourceTypes: number[] }).resourceTypes, [GROUP]);
});

const PY_MEMBER = `
import sys, json, time
from confluent_kafka import Consumer
from confluent_kafka.admin import AdminClient, NewTopic
bs, group, topic, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
a = AdminClient({'bootstrap.servers': bs})
for f in a.create_topics([NewTopic(topic, 2, 1)], operation_timeout=10).values():
    try:
        f.result(15)
    except Exception:
        pass
c = Consumer({'bootstrap.servers': bs, 'group.id': group, 'group.protocol': 'consumer', 'client.id': 'gcc-member'})
assigned = []
c.subscribe([topic], on_assign=lambda c, parts: assigned.extend(p.partition for p in parts))
end = time.time() + seconds
while time.time() < end:
    c.poll(0.1)
    if assigned:
        print(json.dumps({'assigned': sorted(assigned)}), flush=True)
        assigned = []
c.close()
`;

test('confluent-kafka: heartbeats at the group\'s interval, and at the broker\'s from the next heartbeat after it is deleted', async () => {
  await alterGroup('gcc-hb', [{ name: 'consumer.heartbeat.interval.ms', configOperation: 0, value: '3000' }, { name: 'consumer.session.timeout.ms', configOperation: 0, value: '10000' }]);
  const rec = b.control.record({ apiKeys: ['ConsumerGroupHeartbeat'] });
  const member = venvPython(PY_MEMBER, [hostPort(b.port), 'gcc-hb', 'gcc-hb-topic', '20'], { timeoutMs: 60_000 });
  const t0 = Date.now();
  // 11 s at 3 s, then the override goes: the member is told 1 s at its next heartbeat.
  await new Promise((r) => setTimeout(r, 11_000));
  const switchedAt = Date.now();
  await alterGroup('gcc-hb', [{ name: 'consumer.heartbeat.interval.ms', configOperation: 1, value: null }]);
  const res = await member;
  rec.stop();
  assert.is(res.code, 0, describeRun(res));
  // The member's heartbeats, its leave (epoch -1) at close left out.
  const beats = rec.of('ConsumerGroupHeartbeat').filter((x) => x.clientId === 'gcc-member' && x.response && (x.request as { memberEpoch: number }).memberEpoch >= 0);
  const answered = beats.map((x) => (x.response as { heartbeatIntervalMs: number; errorCode: number }));
  assert.ok(answered.every((r) => r.errorCode === 0), `every heartbeat answered: ${answered.map((r) => r.errorCode)}`);
  const before = beats.filter((x) => x.at < switchedAt && x.at > t0 + 4000);
  const after = beats.filter((x) => x.at > switchedAt + 4000);
  const intervals = (xs: typeof beats) => xs.map((x) => (x.response as { heartbeatIntervalMs: number }).heartbeatIntervalMs);
  assert.ok(before.every((x) => (x.response as { heartbeatIntervalMs: number }).heartbeatIntervalMs === 3000), `told 3 s: ${intervals(before)}`);
  assert.ok(after.length > 0 && after.every((x) => (x.response as { heartbeatIntervalMs: number }).heartbeatIntervalMs === 1000), `then told 1 s: ${intervals(after)}`);
  const gaps = (xs: { at: number }[]) => xs.slice(1).map((x, i) => x.at - xs[i].at).sort((p, q) => p - q);
  const median = (xs: number[]) => xs[Math.floor(xs.length / 2)];
  const slow = gaps(before);
  const fast = gaps(after);
  assert.ok(slow.length >= 1 && median(slow) >= 2500, `the member heartbeat every ~3 s while the override was set: gaps ${slow}`);
  assert.ok(fast.length >= 2 && median(fast) <= 1600, `then every ~1 s (the broker's setting): gaps ${fast}`);
});

const PY_KILL = `
import sys, json, time, os, signal, subprocess
from confluent_kafka import Consumer
from confluent_kafka.admin import AdminClient, NewTopic
bs = sys.argv[1]
a = AdminClient({'bootstrap.servers': bs})
for f in a.create_topics([NewTopic('gcc-kill', 4, 1)], operation_timeout=10).values():
    f.result(15)
time.sleep(0.5)
child = subprocess.Popen([sys.executable, '-c', '''
import sys, json
from confluent_kafka import Consumer
c = Consumer({'bootstrap.servers': sys.argv[1], 'group.id': 'gcc-kill-group', 'group.protocol': 'consumer', 'client.id': 'victim'})
c.subscribe(['gcc-kill'], on_assign=lambda c, parts: print(json.dumps(sorted(p.partition for p in parts)), flush=True))
while True:
    c.poll(0.1)
''', bs], stdout=subprocess.PIPE, text=True)
json.loads(child.stdout.readline())
owned = set()
def assign(c, parts):
    owned.update(p.partition for p in parts)
def revoke(c, parts):
    owned.difference_update(p.partition for p in parts)
m = Consumer({'bootstrap.servers': bs, 'group.id': 'gcc-kill-group', 'group.protocol': 'consumer', 'client.id': 'survivor'})
m.subscribe(['gcc-kill'], on_assign=assign, on_revoke=revoke)
end = time.time() + 60
while time.time() < end and len(owned) != 2:
    m.poll(0.1)
if len(owned) != 2:
    raise SystemExit('no two-member split: %s' % sorted(owned))
os.kill(child.pid, signal.SIGKILL)
child.wait()
t0 = time.time()
while time.time() < t0 + 60 and len(owned) != 4:
    m.poll(0.1)
print(json.dumps({'owned': sorted(owned), 'movedSeconds': round(time.time() - t0, 2)}), flush=True)
m.close()
`;

test('confluent-kafka: a SIGKILLed member is fenced after the group\'s session timeout (12 s), not the broker\'s (6 s)', async () => {
  await alterGroup('gcc-kill-group', [{ name: 'consumer.session.timeout.ms', configOperation: 0, value: '12000' }]);
  const res = await venvPython(PY_KILL, [hostPort(b.port)], { timeoutMs: 120_000 });
  assert.is(res.code, 0, describeRun(res));
  const [o] = jsonLines(res, 'sigkill').filter((x: Record<string, unknown>) => 'movedSeconds' in x) as { owned: number[]; movedSeconds: number }[];
  assert.equal(o.owned, [0, 1, 2, 3]);
  assert.ok(o.movedSeconds >= 10, `the victim's partitions moved only after the group's 12 s session (${o.movedSeconds} s)`);
  assert.ok(o.movedSeconds < 30, `but not much later (${o.movedSeconds} s)`);
  console.log(`group configs: a killed member's partitions moved after ${o.movedSeconds} s (group session timeout 12 s, broker 6 s)`);
});

test.run();
