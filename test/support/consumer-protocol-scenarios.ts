/**
 * The KIP-848 consumer-protocol scenarios, written once and run against any broker: Samsa
 * (test/e2e/consumer-protocol-confluent.test.ts, consumer-protocol-java.test.ts) and a real Apache
 * Kafka 4.4 (compat-tests/consumer-protocol.test.ts). Clients: confluent-kafka-python 2.x from the
 * test venv and the Java client 4.4 (consumer-protocol-java/Scenario.java through the single-file
 * source launcher), both with group.protocol=consumer. The broker runs with short consumer-group
 * timeouts (CONSUMER_PROTOCOL_BROKER_CONFIG); times are printed, not asserted.
 * Not a test file (no `.test.ts`).
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { run, venvPython } from '../support/external.js';
import { JVM_OPTS, javaBin, kafkaJars } from '../../tools/kafka/kafka.js';
import { javaProgram } from '../../tools/kafka/java-classes.js';
import kafkajs from 'kafkajs';
import { describeRun, jsonLines, venvJson } from './clients.js';

/** Session 6 s, heartbeat 1 s: the scenarios take seconds. */
export const CONSUMER_PROTOCOL_BROKER_CONFIG: Record<string, string> = {
  'group.initial.rebalance.delay.ms': '0',
  'group.consumer.session.timeout.ms': '6000',
  'group.consumer.min.session.timeout.ms': '1000',
  'group.consumer.heartbeat.interval.ms': '1000',
  'group.consumer.min.heartbeat.interval.ms': '500',
};

export interface Scenario {
  name: string;
  run(bootstrap: string, label: string): Promise<void>;
}

const py = (bs: string, script: string, what: string, timeoutMs = 120_000) => venvJson(bs, script, what, timeoutMs);

const PY_HEAD = `
import sys, json, time, os, signal, subprocess
from confluent_kafka import Producer, Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
bs = sys.argv[1]
def out(**kw):
    print(json.dumps(kw), flush=True)
def create(name, n):
    a = AdminClient({'bootstrap.servers': bs})
    for f in a.create_topics([NewTopic(name, n, 1)], operation_timeout=10).values():
        f.result(15)
    time.sleep(0.5)
def produce(name, partitions, per_partition):
    p = Producer({'bootstrap.servers': bs})
    for part in range(partitions):
        for i in range(per_partition):
            p.produce(name, value=('%d-%d' % (part, i)).encode(), partition=part)
    assert p.flush(15) == 0
class Member:
    """A consumer-protocol consumer that records what its rebalance callbacks said."""
    def __init__(self, name, group, topics, defer=False, **extra):
        conf = {'bootstrap.servers': bs, 'group.id': group, 'group.protocol': 'consumer',
                'auto.offset.reset': 'earliest', 'enable.auto.commit': False, 'client.id': name}
        conf.update(extra)
        self.name = name
        self.topics = topics
        self.c = Consumer(conf)
        self.assigned = set()
        self.revoked = []
        self.values = []
        self.errors = []
        if not defer:
            self.subscribe()
    def subscribe(self):
        self.c.subscribe(self.topics, on_assign=self.on_assign, on_revoke=self.on_revoke)
    def on_assign(self, c, parts):
        self.assigned |= {(p.topic, p.partition) for p in parts}
    def on_revoke(self, c, parts):
        gone = {(p.topic, p.partition) for p in parts}
        self.revoked += sorted(gone)
        self.assigned -= gone
    def poll(self, t=0.05):
        m = self.c.poll(t)
        if m is not None and m.error() is None:
            self.values.append(m.value().decode())
        elif m is not None:
            self.errors.append(str(m.error()))
    def parts(self):
        return sorted(p for (_, p) in self.assigned)
def poll_until(members, cond, timeout, what):
    end = time.time() + timeout
    while time.time() < end:
        for m in members:
            m.poll()
        if cond():
            return
    raise SystemExit('timed out: ' + what + ' ' + json.dumps({m.name: m.parts() for m in members}))
def settled(members, n):
    return sum(len(m.assigned) for m in members) == n and len(set().union(*[m.assigned for m in members])) == n
`;

async function confluentThreeThenFour(bs: string, label: string): Promise<void> {
  const o = await py(bs, `${PY_HEAD}
create('cp-c-three', 6)
ms = [Member('m%d' % i, 'cp-c-group', ['cp-c-three']) for i in range(3)]
# The records come once the three share the partitions: without commits, a partition moving
# while it is being read would be read again by its next owner.
poll_until(ms, lambda: settled(ms, 6) and all(len(m.assigned) == 2 for m in ms), 60, 'three members settle')
produce('cp-c-three', 6, 50)
poll_until(ms, lambda: sum(len(m.values) for m in ms) >= 300, 60, 'read 300')
for m in ms:
    for _ in range(10):
        m.poll()
out(values=sorted(v for m in ms for v in m.values), counts=[len(m.values) for m in ms], before=[m.parts() for m in ms])
for m in ms:
    m.revoked = []
t0 = time.time()
ms.append(Member('m3', 'cp-c-group', ['cp-c-three']))
poll_until(ms, lambda: len(ms[3].assigned) > 0 and settled(ms, 6), 60, 'fourth member')
out(after=[m.parts() for m in ms], revoked=[[p for (_, p) in m.revoked] for m in ms], absorbSeconds=round(time.time() - t0, 2))
for m in ms:
    m.c.close()
`, 'three then four');
  assert.is(o.values.length, 300, 'every record read');
  assert.is(new Set(o.values).size, 300, 'no record read twice');
  assert.ok(o.counts.every((n: number) => n > 0), `each member read: ${o.counts}`);
  assert.equal(o.before.map((p: number[]) => p.length), [2, 2, 2]);
  const after: number[][] = o.after;
  assert.equal(after.flat().sort(), [0, 1, 2, 3, 4, 5]);
  assert.ok(after[3].length >= 1);
  for (let i = 0; i < 3; i++) {
    for (const p of o.revoked[i]) assert.ok(after[3].includes(p), `m${i} gave up partition ${p}, which the new member did not take`);
    for (const p of after[i]) assert.ok(o.before[i].includes(p), `m${i} did not gain partitions`);
  }
  assert.is(o.revoked.flat().length, after[3].length, 'only the partitions that moved were revoked');
  console.log(`consumer-protocol (confluent, ${label}): a fourth member absorbed in ${o.absorbSeconds} s`);
}

async function confluentKill(bs: string, label: string): Promise<void> {
  const o = await py(bs, `${PY_HEAD}
create('cp-c-kill', 6)
child = subprocess.Popen([sys.executable, '-c', '''
import sys, json
from confluent_kafka import Consumer
c = Consumer({'bootstrap.servers': sys.argv[1], 'group.id': 'cp-c-kill-group', 'group.protocol': 'consumer', 'client.id': 'victim'})
def assigned(c, parts):
    print(json.dumps(sorted(p.partition for p in parts)), flush=True)
c.subscribe(['cp-c-kill'], on_assign=assigned)
while True:
    c.poll(0.1)
''', bs], stdout=subprocess.PIPE, text=True)
first = json.loads(child.stdout.readline())
ms = [Member('m%d' % i, 'cp-c-kill-group', ['cp-c-kill']) for i in range(2)]
poll_until(ms, lambda: sum(len(m.assigned) for m in ms) > 0, 60, 'others assigned')
# The victim keeps some partitions once the group settled with three members.
poll_until(ms, lambda: sum(len(m.assigned) for m in ms) == 4, 60, 'three-member split')
victim = sorted(set(range(6)) - {p for m in ms for p in m.parts()})
os.kill(child.pid, signal.SIGKILL)
child.wait()
t0 = time.time()
poll_until(ms, lambda: settled(ms, 6), 60, 'victim partitions moved')
out(victim=victim, first=first, after=[m.parts() for m in ms], movedSeconds=round(time.time() - t0, 2))
for m in ms:
    m.c.close()
`, 'sigkill');
  assert.is(o.victim.length, 2, `the victim held two partitions: ${o.victim}`);
  assert.equal(o.after.flat().sort(), [0, 1, 2, 3, 4, 5]);
  assert.ok(o.movedSeconds >= 3, `moved only after the session timeout (${o.movedSeconds} s)`);
  console.log(`consumer-protocol (confluent, ${label}): a killed member's partitions moved after ${o.movedSeconds} s (session timeout 6 s)`);
}

async function confluentStatic(bs: string, label: string): Promise<void> {
  const o = await py(bs, `${PY_HEAD}
create('cp-c-static', 6)
s = Member('s', 'cp-c-static-group', ['cp-c-static'], **{'group.instance.id': 'cp-static-1'})
d = Member('d', 'cp-c-static-group', ['cp-c-static'])
poll_until([s, d], lambda: settled([s, d], 6) and len(s.assigned) == 3, 60, 'two members')
before = s.parts()
d.revoked = []
s.c.close()
s2 = Member('s2', 'cp-c-static-group', ['cp-c-static'], **{'group.instance.id': 'cp-static-1'})
poll_until([s2, d], lambda: len(s2.assigned) == 3, 30, 'static rejoin')
for _ in range(20):
    s2.poll(); d.poll()
out(before=before, after=s2.parts(), other=d.parts(), otherRevoked=d.revoked)
s2.c.close(); d.c.close()
`, 'static member');
  assert.equal(o.after, o.before, 'the restarted static member has the same partitions');
  assert.equal(o.otherRevoked, [], 'the other member lost nothing');
  assert.is(o.other.length, 3);
}

async function confluentRegex(bs: string, label: string): Promise<void> {
  const o = await py(bs, `${PY_HEAD}
create('cp-c-rx-a', 2)
produce('cp-c-rx-a', 2, 5)
m = Member('rx', 'cp-c-rx-group', ['^cp-c-rx-.*'])
poll_until([m], lambda: len(m.values) >= 10, 60, 'first topic')
create('cp-c-rx-late', 3)
produce('cp-c-rx-late', 3, 4)
t0 = time.time()
poll_until([m], lambda: len(m.values) >= 22, 60, 'late topic')
out(topics=sorted({t for (t, _) in m.assigned}), values=len(m.values), pickedUpSeconds=round(time.time() - t0, 2))
m.c.close()
`, 'regex');
  assert.equal(o.topics, ['cp-c-rx-a', 'cp-c-rx-late']);
  assert.is(o.values, 22);
  console.log(`consumer-protocol (confluent, ${label}): a new topic matching the regex was read after ${o.pickedUpSeconds} s`);
}

export const confluentScenarios: Scenario[] = [
  { name: 'three members read a six-partition topic once; a fourth takes partitions only from the others, nothing else pauses', run: confluentThreeThenFour },
  { name: 'a SIGKILLed member\'s partitions move to the others after the session timeout', run: confluentKill },
  { name: 'a static member that restarts within its session keeps its partitions; the other member is not disturbed', run: confluentStatic },
  { name: 'a regex subscription picks up a topic created later', run: confluentRegex },
];

const SCENARIO_JAVA = path.join(path.dirname(fileURLToPath(import.meta.url)), 'consumer-protocol-java', 'Scenario.java');

async function javaScenario(bs: string, mode: string): Promise<Record<string, any>> {
  const prog = await javaProgram(SCENARIO_JAVA, kafkaJars().classpath);
  const res = await run(javaBin(), [...JVM_OPTS, `-Dscenario.main=${prog.main}`, '-cp', prog.classpath, prog.main, mode, bs], { timeoutMs: 150_000 });
  assert.is(res.code, 0, `${mode}: ${describeRun(res)}`);
  return Object.assign({}, ...jsonLines(res, mode));
}

async function javaThreeThenFour(bs: string, label: string): Promise<void> {
  const o = await javaScenario(bs, 'three-four');
  assert.is(o.values.length, 300, 'every record read');
  assert.is(new Set(o.values).size, 300, 'no record read twice');
  assert.equal(o.before.map((p: number[]) => p.length), [2, 2, 2]);
  const after: number[][] = o.after;
  assert.equal(after.flat().sort(), [0, 1, 2, 3, 4, 5]);
  assert.ok(after[3].length >= 1);
  for (let i = 0; i < 3; i++) {
    for (const p of o.revoked[i]) assert.ok(after[3].includes(p), `m${i} gave up partition ${p}, which the new member did not take`);
    for (const p of after[i]) assert.ok(o.before[i].includes(p), `m${i} did not gain partitions`);
  }
  assert.is(o.revoked.flat().length, after[3].length, 'only the partitions that moved were revoked');
  console.log(`consumer-protocol (java, ${label}): a fourth member absorbed in ${o.absorbSeconds} s`);
}

async function javaKill(bs: string, label: string): Promise<void> {
  const o = await javaScenario(bs, 'kill');
  assert.is(o.victim.length, 2, `the victim held two partitions: ${o.victim}`);
  assert.equal(o.after.flat().sort(), [0, 1, 2, 3, 4, 5]);
  assert.ok(o.movedSeconds >= 3, `moved only after the session timeout (${o.movedSeconds} s)`);
  console.log(`consumer-protocol (java, ${label}): a killed member's partitions moved after ${o.movedSeconds} s (session timeout 6 s)`);
}

async function javaStatic(bs: string, label: string): Promise<void> {
  const o = await javaScenario(bs, 'static');
  assert.equal(o.after, o.before, 'the restarted static member has the same partitions');
  assert.equal(o.otherRevoked, [], 'the other member lost nothing');
  assert.is(o.other.length, 3);
}

async function javaRegex(bs: string, label: string): Promise<void> {
  const o = await javaScenario(bs, 'regex');
  assert.equal(o.topics, ['cp-j-rx-a', 'cp-j-rx-late']);
  assert.is(o.values, 22);
  console.log(`consumer-protocol (java, ${label}): a new topic matching the regex was read after ${o.pickedUpSeconds} s`);
}

async function javaDescribe(bs: string, label: string): Promise<void> {
  const o = await javaScenario(bs, 'describe');
  assert.equal([o.type, o.state, o.assignor, o.unknownState, o.listedType, o.listedState], ['Consumer', 'Stable', 'uniform', 'GroupIdNotFoundException', 'Consumer', 'Stable'], JSON.stringify(o));
  assert.is(o.targetEpoch, o.groupEpoch);
  assert.is(o.members.length, 2);
  for (const m of o.members) {
    assert.is(m.partitions.length, 2, `${m.clientId} holds two partitions`);
    assert.equal(m.target, m.partitions, `${m.clientId} is at its target`);
    assert.is(m.memberEpoch, o.groupEpoch);
    assert.is(m.upgraded, 'true', 'a consumer-protocol member');
  }
  assert.equal(o.members.map((m: any) => m.instanceId).sort(), ['-', 'cp-j-desc-static']);
  console.log(`consumer-protocol (java, ${label}): describeConsumerGroups: group epoch ${o.groupEpoch}, ${o.members.length} members`);
}

export const javaScenarios: Scenario[] = [
  { name: 'Java: three members read a six-partition topic once; a fourth takes partitions only from the others', run: javaThreeThenFour },
  { name: 'Java: a SIGKILLed member\'s partitions move to the others after the session timeout', run: javaKill },
  { name: 'Java: a static member that restarts within its session keeps its partitions', run: javaStatic },
  { name: 'Java: a SubscriptionPattern (broker-side regex) picks up a topic created later', run: javaRegex },
  { name: 'Java admin: describeConsumerGroups (ConsumerGroupDescribe) and listGroups of consumer groups', run: javaDescribe },
];

// ---------------------------------------------------------------------------------------------
// A mixed group: kafkajs (classic, eager) joined by a consumer-protocol member.

const MIXED_TOPIC = 'cp-mixed';
const MIXED_GROUP = 'cp-mixed-group';

async function until(what: string, cond: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const PY_MIXED_MEMBER = `
import sys, json, time
from confluent_kafka import Consumer
c = Consumer({'bootstrap.servers': sys.argv[1], 'group.id': sys.argv[2], 'group.protocol': 'consumer', 'client.id': 'kip848-member',
              'auto.offset.reset': 'earliest', 'enable.auto.commit': True, 'auto.commit.interval.ms': 200})
assigned = set()
def on_assign(c, parts):
    assigned.update(p.partition for p in parts)
def on_revoke(c, parts):
    assigned.difference_update(p.partition for p in parts)
c.subscribe([sys.argv[3]], on_assign=on_assign, on_revoke=on_revoke)
values = []
end = time.time() + float(sys.argv[4])
while time.time() < end:
    m = c.poll(0.1)
    if m is not None and m.error() is None:
        values.append(m.value().decode())
print(json.dumps({'values': values, 'assigned': sorted(assigned)}), flush=True)
c.close()
`;

/**
 * Two kafkajs consumers read and commit; a confluent-kafka consumer-protocol member joins: the
 * group is upgraded online, the kafkajs members rejoin inside it and keep consuming. Nothing
 * produced is lost, nothing committed before the upgrade is read again. When the
 * consumer-protocol member leaves, the group becomes a classic group again.
 */
async function mixedGroup(bs: string, label: string): Promise<void> {
  const { Kafka, logLevel } = kafkajs;
  const TOPIC = MIXED_TOPIC;
  const GROUP = MIXED_GROUP;
  const kafka = new Kafka({ clientId: 'mixed', brokers: [bs], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic: TOPIC, numPartitions: 4 }] });
  const producer = kafka.producer();
  await producer.connect();
  const send = (from: number, count: number) => producer.send({
    topic: TOPIC,
    messages: Array.from({ length: count }, (_, i) => ({ partition: (from + i) % 4, value: `r-${from + i}` })),
  });

  const seen: { consumer: string; value: string }[] = [];
  const classic = [0, 1].map((i) => kafka.consumer({ groupId: GROUP, sessionTimeout: 10_000, heartbeatInterval: 300, rebalanceTimeout: 10_000 }));
  for (const [i, c] of classic.entries()) {
    await c.connect();
    await c.subscribe({ topic: TOPIC, fromBeginning: true });
    await c.run({ autoCommitInterval: 100, eachMessage: async ({ message }) => { seen.push({ consumer: `kafkajs-${i}`, value: message.value!.toString() }); } });
  }
  await send(0, 200);
  await until('the classic group to read the first 200', () => seen.length >= 200);
  await until('the first 200 committed', async () => {
    const offsets = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] });
    return offsets[0].partitions.every((p) => p.offset === '50');
  });
  const before = (await admin.listGroups()).groups.find((g) => g.groupId === GROUP);
  assert.is(before?.protocolType, 'consumer');

  const member = venvPython(PY_MIXED_MEMBER, [bs, GROUP, TOPIC, '12'], { timeoutMs: 60_000 });
  await new Promise((r) => setTimeout(r, 3000));
  await send(200, 200);
  const res = await member;
  assert.is(res.code, 0, describeRun(res));
  const [py] = jsonLines(res, 'consumer-protocol member');
  await until('the kafkajs members to read what the new member did not', () => new Set([...seen.map((s) => s.value), ...py.values]).size >= 400);

  const all = new Set([...seen.map((s) => s.value), ...py.values]);
  for (let i = 0; i < 400; i++) assert.ok(all.has(`r-${i}`), `r-${i} was read`);
  const firstBatch = new Set(Array.from({ length: 200 }, (_, i) => `r-${i}`));
  assert.equal(py.values.filter((v: string) => firstBatch.has(v)), [], 'the new member read nothing committed before it joined');
  assert.ok(py.assigned.length >= 1, `the consumer-protocol member had partitions: ${py.assigned}`);
  assert.ok(py.values.length > 0, 'the consumer-protocol member read records');
  const classicAfter = seen.slice(200).filter((s) => !firstBatch.has(s.value)).length;
  assert.ok(classicAfter > 0, 'the kafkajs members kept consuming after the upgrade');
  // The consumer-protocol member left: the group is classic again (downgrade, policy
  // bidirectional) once its members rejoined, and the kafkajs members read everything.
  await until('the group to be a Stable classic group again', async () => (await admin.describeGroups([GROUP])).groups[0].state === 'Stable');
  await send(400, 40);
  await until('the kafkajs members to read the last 40', () => Array.from({ length: 40 }, (_, i) => `r-${400 + i}`).every((v) => seen.some((x) => x.value === v)));
  console.log(`consumer-protocol (mixed, ${label}): kafkajs read ${classicAfter} of the second 200, the KIP-848 member ${py.values.length}; classic again after it left`);

  for (const c of classic) await c.disconnect();
  await producer.disconnect();
  await admin.disconnect();
}

/**
 * Two librdkafka classic members with cooperative-sticky, then a consumer-protocol member joins:
 * the group is upgraded and the classic members give up only the partitions the new member
 * takes (cooperative revocation through JoinGroup/SyncGroup inside the consumer group).
 */
async function mixedCooperative(bs: string, label: string): Promise<void> {
  const o = await py(bs, `${PY_HEAD}
create('cp-c-coop', 6)
produce('cp-c-coop', 6, 20)
from confluent_kafka import ConsumerGroupState
from confluent_kafka.admin import ConfigResource, ConfigEntry, AlterConfigOpType, ResourceType
admin = AdminClient({'bootstrap.servers': bs})
classic = {'group.protocol': 'classic', 'partition.assignment.strategy': 'cooperative-sticky', 'heartbeat.interval.ms': 500, 'session.timeout.ms': 10000}
def refused_join(n):
    return any('group id does not exist' in e for e in n.errors)
# Kafka 4.4 refuses to upgrade a classic group whose assignments carry user data
# (GROUP_ID_NOT_FOUND, "an unsupported custom assignor is in use"), and librdkafka's leader echoes
# a cooperative-sticky member's subscription user data (its previous assignment) into the
# assignment: a group whose members joined in one generation can be upgraded, one that rebalanced
# again (the second member joined late, a session missed on a loaded machine) cannot. librdkafka
# makes the refusal fatal to the joining consumer; the scenario then starts over with a new group,
# at most six times (with group.initial.rebalance.delay.ms 0 a loaded machine can split the first
# generation three times in a row).
refused = []
attempts = 0
while True:
    attempts += 1
    group = 'cp-c-coop-group-%d' % attempts
    # The joining consumer-protocol member gets a 30 s session (a group config), so that a loaded
    # machine does not fence it and downgrade the group while the classic members revoke.
    for f in admin.incremental_alter_configs([ConfigResource(ResourceType.GROUP, group, incremental_configs=[
            ConfigEntry('consumer.session.timeout.ms', '30000', incremental_operation=AlterConfigOpType.SET)])]).values():
        f.result(15)
    # Both consumers exist before either subscribes, so that they join the first generation together.
    ks = [Member('k%d' % i, group, ['cp-c-coop'], defer=True, **classic) for i in range(2)]
    for m in ks:
        m.subscribe()
    poll_until(ks, lambda: settled(ks, 6) and all(len(m.assigned) == 3 for m in ks), 60, 'two classic members')
    poll_until(ks, lambda: len(set(v for m in ks for v in m.values)) >= 120, 60, 'read 120')
    def classic_stable():
        g = admin.describe_consumer_groups([group])[group].result(10)
        return g.state == ConsumerGroupState.STABLE and len(g.members) == 2
    end = time.time() + 30
    while not classic_stable():
        if time.time() > end:
            raise SystemExit('the classic group never became Stable')
        for m in ks:
            m.poll()
    for m in ks:
        m.revoked = []
    before = [m.parts() for m in ks]
    t0 = time.time()
    n = Member('n', group, ['cp-c-coop'])
    ms = ks + [n]
    poll_until(ms, lambda: refused_join(n) or (len(n.assigned) >= 2 and settled(ms, 6)), 60, 'consumer-protocol member')
    if not refused_join(n) or attempts == 6:
        break
    refused.append([e for e in n.errors if 'group id does not exist' in e][0])
    for m in ms:
        m.c.close()
if refused_join(n):
    refused.append([e for e in n.errors if 'group id does not exist' in e][0])
out(before=before, after=[m.parts() for m in ms], revoked=[[p for (_, p) in m.revoked] for m in ks], values=len(set(v for m in ks for v in m.values)), seconds=round(time.time() - t0, 2), attempts=attempts, refused=refused)
for m in ms:
    m.c.close()
`, 'mixed cooperative');
  assert.is(o.values, 120, 'the classic members read everything once');
  assert.is(o.refused.length, o.attempts - 1, `joined in the group of attempt ${o.attempts} (refused: ${o.refused.join('; ')})`);
  const after: number[][] = o.after;
  assert.equal(after.flat().sort(), [0, 1, 2, 3, 4, 5]);
  assert.is(after[2].length, 2, 'the consumer-protocol member has its share');
  for (let i = 0; i < 2; i++) {
    for (const p of o.revoked[i]) assert.ok(after[2].includes(p), `k${i} gave up ${p}, which the new member did not take`);
    for (const p of after[i]) assert.ok(o.before[i].includes(p), `k${i} gained no partition`);
  }
  assert.is(o.revoked.flat().length, 2, 'only the two partitions that moved were revoked');
  console.log(`consumer-protocol (mixed cooperative, ${label}): the consumer-protocol member had its partitions after ${o.seconds} s (groups tried: ${o.attempts})`);
}

export const mixedScenarios: Scenario[] = [
  { name: 'a classic kafkajs group joined by a consumer-protocol member keeps consuming (nothing lost, committed work not repeated) and is classic again when it leaves', run: mixedGroup },
  { name: 'cooperative-sticky classic members give up only what a joining consumer-protocol member takes', run: mixedCooperative },
];
