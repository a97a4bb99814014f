/**
 * The share-group scenarios (KIP-932, KIP-1191), written once and run against any broker: Samsa
 * (test/e2e/share-groups-confluent.test.ts, share-groups-java.test.ts) and a real Apache Kafka
 * 4.4 (compat-tests/share-groups.test.ts). Clients: confluent-kafka 2.16's ShareConsumer from the
 * test venv and the Java client 4.4's KafkaShareConsumer (share-groups-java/ShareScenario.java
 * through the single-file source launcher, one JVM for all its scenarios), both acknowledging
 * explicitly; kafkajs for the classic group reading beside a share group.
 *
 * Every scenario uses its own topic (one partition) and group; group configs go through
 * IncrementalAlterConfigs on the GROUP resource (share.auto.offset.reset=earliest, a 3 s
 * share.record.lock.duration.ms, share.delivery.count.limit=2, the dead-letter topic). The broker
 * runs with short share-group sessions and a lowered lock-duration bound (SHARE_BROKER_CONFIG).
 * Times are printed, not asserted, except as bounds that tell two behaviours apart: a stalled
 * consumer's records come back no sooner than its lock, a killed one's well before a 15 s lock
 * (at its disconnect). Not a test file (no `.test.ts`).
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import kafkajs from 'kafkajs';
import { run, venvPython } from '../support/external.js';
import { JVM_OPTS, javaBin, kafkaJars } from '../../tools/kafka/kafka.js';
import { javaProgram } from '../../tools/kafka/java-classes.js';
import { describeRun, jsonLines, venvJson } from '../support/clients.js';

/** Share sessions of 6 s with 1 s heartbeats; lock durations down to 1 s allowed per group. */
export const SHARE_BROKER_CONFIG: Record<string, string> = {
  'group.initial.rebalance.delay.ms': '0',
  'group.share.session.timeout.ms': '6000',
  'group.share.min.session.timeout.ms': '1000',
  'group.share.heartbeat.interval.ms': '1000',
  'group.share.min.heartbeat.interval.ms': '500',
  'group.share.min.record.lock.duration.ms': '1000',
};

/** The lock duration of the group whose consumer stops polling (its records come back when it expires). */
export const LOCK_MS = 3000;
/** The lock duration of the group whose consumer is SIGKILLed (its records come back when its connection closes, before this). */
export const KILL_LOCK_MS = 15000;

export interface Scenario {
  name: string;
  run(bootstrap: string, label: string): Promise<void>;
}

/** What the dead-letter scenario expects of a dead-lettered record (KIP-1191's context headers). */
export interface DeadLetter {
  value: string | null;
  headers: Record<string, string>;
}

/**
 * The scenarios run all at once (each has its own topics and groups): the first one asked to run
 * starts every one against that bootstrap, and each then waits for its own. A test file then takes
 * as long as its slowest scenario rather than their sum (CI has 2 cores and a time budget).
 */
export function concurrently(scenarios: Scenario[]): Scenario[] {
  let started: { bs: string; runs: Promise<void>[] } | null = null;
  return scenarios.map((s, i) => ({
    name: s.name,
    run: (bs: string, label: string) => {
      if (started?.bs !== bs) {
        started = { bs, runs: scenarios.map((x) => x.run(bs, label)) };
        for (const r of started.runs) r.catch(() => undefined);
      }
      return started.runs[i];
    },
  }));
}

const py = (bs: string, script: string, what: string, timeoutMs = 90_000) => venvJson(bs, script, what, timeoutMs);

export const PY_HEAD = `
import sys, json, time, os, signal, subprocess, threading
from confluent_kafka import Producer, Consumer, ShareConsumer, AcknowledgeType, TopicPartition, OFFSET_BEGINNING
from confluent_kafka.admin import AdminClient, NewTopic, ConfigResource, ResourceType, ConfigEntry, AlterConfigOpType
bs = sys.argv[1]
def out(**kw):
    print(json.dumps(kw), flush=True)
ADMIN = AdminClient({'bootstrap.servers': bs})
def create(name, config=None):
    for f in ADMIN.create_topics([NewTopic(name, 1, 1, config=config or {})], operation_timeout=10).values():
        f.result(15)
def group_config(group, configs):
    entries = [ConfigEntry(k, str(v), incremental_operation=AlterConfigOpType.SET) for k, v in configs.items()]
    for f in ADMIN.incremental_alter_configs([ConfigResource(ResourceType.GROUP, group, incremental_configs=entries)]).values():
        f.result(15)
def produce(topic, values, batch=10):
    """Many small batches: a share fetch acquires whole batches, so small ones spread the work."""
    p = Producer({'bootstrap.servers': bs, 'linger.ms': 0})
    for i in range(0, len(values), batch):
        for v in values[i:i + batch]:
            p.produce(topic, value=v.encode(), partition=0)
        p.flush(15)
    assert p.flush(15) == 0
def share_consumer(name, group, topic, max_records=10):
    c = ShareConsumer({'bootstrap.servers': bs, 'group.id': group, 'client.id': name,
                       'share.acknowledgement.mode': 'explicit', 'max.poll.records': max_records})
    c.subscribe([topic])
    return c
ACK = {'accept': AcknowledgeType.ACCEPT, 'release': AcknowledgeType.RELEASE, 'reject': AcknowledgeType.REJECT}
class Worker(threading.Thread):
    """A ShareConsumer in explicit mode on a thread of its own. Per record: note (value, offset,
    delivery count), sleep \`pause\` s, acknowledge with decide(value, delivery count)."""
    def __init__(self, name, group, topic, pause=0.0, decide=lambda v, n: 'accept'):
        super().__init__(daemon=True)
        self.name_, self.pause, self.decide = name, pause, decide
        self.c = share_consumer(name, group, topic)
        self.seen, self.accepted, self.errors = [], [], []
        self.running = True
        self.start()
    def run(self):
        while self.running:
            for m in self.c.poll(0.1):
                if m.error() is not None:
                    self.errors.append(str(m.error()))
                    continue
                v = m.value().decode()
                n = m.delivery_count()
                self.seen.append([v, m.offset(), n, round(time.time(), 3)])
                if self.pause:
                    time.sleep(self.pause)
                how = self.decide(v, n)
                self.c.acknowledge(m, ACK[how])
                if how == 'accept':
                    self.accepted.append(v)
            self.c.commit_async()
        self.c.close()
    def stop(self):
        self.running = False
        self.join(30)
def wait_until(cond, timeout, what):
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return
        time.sleep(0.05)
    raise SystemExit('timed out: ' + what)
def settle(workers, seconds=0.5):
    """Polls on for a while: whatever would still be redelivered shows up."""
    time.sleep(seconds)
    for w in workers:
        w.stop()
`;

async function confluentThree(bs: string, label: string): Promise<void> {
  const o = await py(bs, `${PY_HEAD}
create('sg-c-three')
group_config('sg-c-three-g', {'share.auto.offset.reset': 'earliest'})
values = ['r%d' % i for i in range(300)]
produce('sg-c-three', values)
t0 = time.time()
ws = [Worker('w%d' % i, 'sg-c-three-g', 'sg-c-three', pause=0.01) for i in range(3)]
wait_until(lambda: len({v for w in ws for v in w.accepted}) == 300, 60, 'all 300 accepted')
seconds = round(time.time() - t0, 2)
settle(ws)
out(accepted=[w.accepted for w in ws], counts=[sorted({n for (_, _, n, _) in w.seen}) for w in ws], errors=[w.errors for w in ws], seconds=seconds)
`, 'three consumers');
  const accepted: string[][] = o.accepted;
  const all = accepted.flat();
  assert.is(new Set(all).size, 300, 'every record accepted');
  assert.is(all.length, 300, 'no record processed twice');
  assert.ok(accepted.every((a) => a.length > 0), `each consumer processed records: ${accepted.map((a) => a.length)}`);
  assert.equal(o.counts.flat().filter((n: number) => n !== 1), [], 'every record delivered once');
  console.log(`share groups (confluent, ${label}): 300 records over three consumers ${accepted.map((a) => a.length).join('/')} in ${o.seconds} s`);
}

async function confluentKill(bs: string, label: string): Promise<void> {
  const o = await py(bs, `${PY_HEAD}
create('sg-c-kill')
group_config('sg-c-kill-g', {'share.auto.offset.reset': 'earliest', 'share.record.lock.duration.ms': ${KILL_LOCK_MS}})
produce('sg-c-kill', ['r%d' % i for i in range(100)])
victim = subprocess.Popen([sys.executable, '-c', '''
import sys, json, time
from confluent_kafka import ShareConsumer
c = ShareConsumer({'bootstrap.servers': sys.argv[1], 'group.id': 'sg-c-kill-g', 'client.id': 'victim',
                   'share.acknowledgement.mode': 'explicit', 'max.poll.records': 10})
c.subscribe(['sg-c-kill'])
while True:
    ms = [m for m in c.poll(0.5) if m.error() is None]
    if ms:
        print(json.dumps([m.value().decode() for m in ms]), flush=True)
        time.sleep(600)
''', bs], stdout=subprocess.PIPE, text=True)
held = json.loads(victim.stdout.readline())
acquired_at = time.time()
os.kill(victim.pid, signal.SIGKILL)
victim.wait()
ws = [Worker('w%d' % i, 'sg-c-kill-g', 'sg-c-kill', pause=0.005) for i in range(2)]
wait_until(lambda: len({v for w in ws for v in w.accepted}) == 100, 60, 'all 100 accepted by the others')
settle(ws)
again = [s for w in ws for s in w.seen if s[0] in held]
out(held=held, accepted=[w.accepted for w in ws], again=again, afterSeconds=round(min(s[3] for s in again) - acquired_at, 2) if again else None)
`, 'killed consumer');
  checkRedelivered(o, 'a SIGKILLed consumer');
  assert.ok(o.afterSeconds < KILL_LOCK_MS / 1000, `released when its connection closed, before the ${KILL_LOCK_MS} ms lock expired (after ${o.afterSeconds} s)`);
  console.log(`share groups (confluent, ${label}): ${o.held.length} records of a SIGKILLed consumer redelivered after ${o.afterSeconds} s (lock ${KILL_LOCK_MS} ms)`);
}

async function confluentFreeze(bs: string, label: string): Promise<void> {
  const o = await py(bs, `${PY_HEAD}
create('sg-c-freeze')
group_config('sg-c-freeze-g', {'share.auto.offset.reset': 'earliest', 'share.record.lock.duration.ms': ${LOCK_MS}})
produce('sg-c-freeze', ['r%d' % i for i in range(100)])
frozen = share_consumer('frozen', 'sg-c-freeze-g', 'sg-c-freeze')
held = []
while not held:
    held = [m.value().decode() for m in frozen.poll(0.5) if m.error() is None]
acquired_at = time.time()
ws = [Worker('w%d' % i, 'sg-c-freeze-g', 'sg-c-freeze', pause=0.005) for i in range(2)]
wait_until(lambda: len({v for w in ws for v in w.accepted}) == 100, 60, 'all 100 accepted by the others')
settle(ws)
again = [s for w in ws for s in w.seen if s[0] in held]
out(held=held, accepted=[w.accepted for w in ws], again=again, afterSeconds=round(min(s[3] for s in again) - acquired_at, 2) if again else None)
`, 'frozen consumer');
  checkRedelivered(o, 'a consumer that stopped polling');
  assert.ok(o.afterSeconds >= (LOCK_MS - 500) / 1000, `redelivered only after the ${LOCK_MS} ms lock (after ${o.afterSeconds} s)`);
  console.log(`share groups (confluent, ${label}): ${o.held.length} records of a consumer that stopped polling redelivered after ${o.afterSeconds} s (lock ${LOCK_MS} ms)`);
}

/** The records `who` held came back to the two others with delivery count 2 (`again`: [value, offset, delivery count, ...]); all 100 accepted once. */
function checkRedelivered(o: Record<string, any>, who: string): void {
  const held: string[] = o.held;
  const all: string[] = o.accepted.flat();
  assert.ok(held.length > 0, `${who} held records`);
  assert.is(new Set(all).size, 100, 'every record accepted by the two others');
  assert.is(all.length, 100, 'each once');
  for (const v of held) assert.ok(o.again.some((s: any[]) => s[0] === v && s[2] >= 2), `${v} (held by ${who}) came back with delivery count 2: ${JSON.stringify(o.again)}`);
}

async function confluentRelease(bs: string, label: string): Promise<void> {
  const o = await py(bs, `${PY_HEAD}
create('sg-c-release')
group_config('sg-c-release-g', {'share.auto.offset.reset': 'earliest'})
produce('sg-c-release', ['r%d' % i for i in range(20)])
released = {'r%d' % i for i in range(5)}
w = Worker('w', 'sg-c-release-g', 'sg-c-release', decide=lambda v, n: 'release' if v in released and n == 1 else 'accept')
wait_until(lambda: len(set(w.accepted)) == 20, 30, 'all 20 accepted')
settle([w])
deliveries = {}
for (v, _, n, _) in w.seen:
    deliveries.setdefault(v, []).append(n)
out(deliveries=deliveries, accepted=w.accepted)
`, 'release');
  assert.is(o.accepted.length, 20, 'each record accepted once');
  for (let i = 0; i < 20; i++) assert.equal(o.deliveries[`r${i}`], i < 5 ? [1, 2] : [1], `r${i}: delivery counts the client saw`);
}

async function confluentLateAck(bs: string): Promise<void> {
  const o = await py(bs, `${PY_HEAD}
def late(topic, other_accepts_first):
    """'slow' acquires 3 records, its 2 s locks expire, 'other' has them (and accepts them first or
    not); then 'slow' accepts them: what its commit answers."""
    group = topic + '-g'
    create(topic)
    group_config(group, {'share.auto.offset.reset': 'earliest', 'share.record.lock.duration.ms': 2000})
    produce(topic, ['r%d' % i for i in range(3)])
    a = share_consumer('slow', group, topic)
    held = []
    end = time.time() + 20
    while not held and time.time() < end:
        held = [m for m in a.poll(0.3) if m.error() is None]
    b = share_consumer('other', group, topic)
    other = []
    while len(other) < len(held) and time.time() < end:
        for m in b.poll(0.2):
            if m.error() is None:
                other.append(m)
    def accept_other():
        for m in other:
            b.acknowledge(m, AcknowledgeType.ACCEPT)
        b.commit_sync(10)
    if other_accepts_first:
        accept_other()
    for m in held:
        a.acknowledge(m, AcknowledgeType.ACCEPT)
    res = a.commit_sync(10)
    if not other_accepts_first:
        accept_other()
    a.close()
    b.close()
    return {'held': len(held), 'otherCounts': [m.delivery_count() for m in other], 'late': [str(v) for v in res.values()]}
out(whileHeld=late('sg-c-late-held', False), afterAccepted=late('sg-c-late-done', True))
`, 'late acknowledgement');
  for (const k of ['whileHeld', 'afterAccepted']) assert.equal(o[k].otherCounts, [2, 2, 2], `${k}: the other consumer had the records after the 2 s lock`);
  assert.is(o.whileHeld.late.length, 1);
  assert.match(o.whileHeld.late[0], /INVALID_RECORD_STATE/, 'records another consumer holds cannot be acknowledged');
  assert.equal(o.afterAccepted.late, ['None'], 'records since acknowledged by the other consumer: the late acknowledgement is ignored, not an error');
}

async function confluentReadCommitted(bs: string): Promise<void> {
  const o = await py(bs, `${PY_HEAD}
create('sg-c-txn')
group_config('sg-c-txn-rc', {'share.auto.offset.reset': 'earliest', 'share.isolation.level': 'read_committed'})
group_config('sg-c-txn-ru', {'share.auto.offset.reset': 'earliest'})
p = Producer({'bootstrap.servers': bs, 'transactional.id': 'sg-c-txn'})
p.init_transactions(15)
for name, commit in [('a', True), ('b', False), ('c', True)]:
    p.begin_transaction()
    for i in range(3):
        p.produce('sg-c-txn', value=('%s%d' % (name, i)).encode(), partition=0)
    p.flush(10)
    (p.commit_transaction if commit else p.abort_transaction)(15)
p.begin_transaction()
p.produce('sg-c-txn', value=b'open0', partition=0)
p.flush(10)
rc = Worker('rc', 'sg-c-txn-rc', 'sg-c-txn')
ru = Worker('ru', 'sg-c-txn-ru', 'sg-c-txn')
wait_until(lambda: len(rc.accepted) >= 6 and len(ru.accepted) >= 10, 30, 'both groups read what they may')
settle([rc, ru], 1.0)
p.abort_transaction(15)
out(committed=[[s[1], s[0]] for s in rc.seen], uncommitted=[[s[1], s[0]] for s in ru.seen])
`, 'read_committed');
  assert.equal(o.committed, [[0, 'a0'], [1, 'a1'], [2, 'a2'], [8, 'c0'], [9, 'c1'], [10, 'c2']], 'read_committed: the committed transactions only, nothing past the open one');
  assert.equal(o.uncommitted, [[0, 'a0'], [1, 'a1'], [2, 'a2'], [4, 'b0'], [5, 'b1'], [6, 'b2'], [8, 'c0'], [9, 'c1'], [10, 'c2'], [12, 'open0']], 'read_uncommitted: every record, no control records');
}

function poisonScript(prefix: string, dlqTopic: string | null): string {
  const dlq = dlqTopic === null ? '' : `
create('${dlqTopic}', {'errors.deadletterqueue.group.enable': 'true'})
group_config('${prefix}-g', {'errors.deadletterqueue.topic.name': '${dlqTopic}', 'errors.deadletterqueue.copy.record.enable': 'true'})`;
  return `${PY_HEAD}
create('${prefix}')
group_config('${prefix}-g', {'share.auto.offset.reset': 'earliest', 'share.delivery.count.limit': 2})${dlq}
produce('${prefix}', ['r%d' % i for i in range(10)], batch=1)
decide = lambda v, n: 'release' if v == 'r3' else ('reject' if v == 'r6' else 'accept')
w = Worker('w', '${prefix}-g', '${prefix}', decide=decide)
wait_until(lambda: len(set(w.accepted)) == 8 and [s[2] for s in w.seen if s[0] == 'r3'] == [1, 2], 30, 'the others accepted, the poison record seen twice')
# A released record is offered again before newer ones: once the next record is read, the poison
# record would have come back had it not been archived.
produce('${prefix}', ['after'])
wait_until(lambda: 'after' in w.accepted, 30, 'the record after')
settle([w])
out(poison=[s[2] for s in w.seen if s[0] == 'r3'], rejected=[s[2] for s in w.seen if s[0] == 'r6'], accepted=w.accepted)
${dlqTopic === null ? '' : `
c = Consumer({'bootstrap.servers': bs, 'group.id': '${prefix}-reader', 'enable.auto.commit': False})
c.assign([TopicPartition('${dlqTopic}', 0, OFFSET_BEGINNING)])
dead = []
# Kafka 4.4 writes the dead-letter records asynchronously; a loaded machine has taken over 20 s.
end = time.time() + 45
while time.time() < end and len(dead) < 2:
    m = c.poll(0.2)
    if m is not None and m.error() is None:
        dead.append({'value': None if m.value() is None else m.value().decode(), 'headers': {k: (v.decode() if v is not None else None) for (k, v) in (m.headers() or [])}})
for _ in range(5):
    m = c.poll(0.2)
    if m is not None and m.error() is None:
        dead.append({'value': 'unexpected', 'headers': {}})
c.close()
out(dead=dead)`}
`;
}

async function confluentPoison(bs: string, label: string): Promise<void> {
  const o = await py(bs, poisonScript('sg-c-poison', null), 'poison record');
  assert.equal(o.poison, [1, 2], 'the poison record was delivered twice (share.delivery.count.limit=2), then archived');
  assert.equal(o.rejected, [1], 'a rejected record is not redelivered');
  assert.equal([...o.accepted].sort(), ['after', 'r0', 'r1', 'r2', 'r4', 'r5', 'r7', 'r8', 'r9']);
}

/** KIP-1191 headers of one dead-lettered record of `topic` (partition 0) of `group`. */
function checkDeadLetter(d: DeadLetter, topic: string, group: string, offset: number, deliveryCount: number): void {
  const h = d.headers;
  assert.equal(
    [h['__dlq.errors.topic'], h['__dlq.errors.partition'], h['__dlq.errors.offset'], h['__dlq.errors.group'], h['__dlq.errors.delivery.count']],
    [topic, '0', String(offset), group, String(deliveryCount)],
    `dead-letter headers: ${JSON.stringify(h)}`,
  );
  assert.ok('__dlq.errors.message' in h, `a reason header: ${JSON.stringify(h)}`);
}

async function confluentDeadLetter(bs: string, label: string): Promise<void> {
  const o = await py(bs, poisonScript('sg-c-dlq', 'dlq.sg-c-dlq'), 'dead-letter topic');
  assert.equal(o.poison, [1, 2]);
  const dead: DeadLetter[] = o.dead;
  assert.is(dead.length, 2, `the released-too-often and the rejected record, once each: ${JSON.stringify(dead)}`);
  const byOffset = new Map(dead.map((d) => [Number(d.headers['__dlq.errors.offset']), d]));
  checkDeadLetter(byOffset.get(3)!, 'sg-c-dlq', 'sg-c-dlq-g', 3, 2);
  checkDeadLetter(byOffset.get(6)!, 'sg-c-dlq', 'sg-c-dlq-g', 6, 1);
  assert.equal([byOffset.get(3)!.value, byOffset.get(6)!.value], ['r3', 'r6'], 'errors.deadletterqueue.copy.record.enable copies the record');
  console.log(`share groups (confluent, ${label}): dead-letter reasons: ${dead.map((d) => d.headers['__dlq.errors.message']).join(' | ')}`);
}

const PY_SHARE_READER = `${PY_HEAD}
topic, group, count = sys.argv[2], sys.argv[3], int(sys.argv[4])
group_config(group, {'share.auto.offset.reset': 'earliest'})
w = Worker('share-reader', group, topic)
wait_until(lambda: len(set(w.accepted)) >= count, 30, 'the share group read everything')
settle([w], 0.5)
out(accepted=w.accepted)
`;

/** kafkajs (a classic group) and a share group read one topic at the same time; each sees all of it. */
export function sideBySide(shareReader: (bs: string, topic: string, group: string, count: number) => Promise<string[]>, prefix: string): (bs: string, label: string) => Promise<void> {
  return async (bs, label) => {
    const { Kafka, logLevel } = kafkajs;
    const topic = `${prefix}-side`;
    const kafka = new Kafka({ clientId: `${prefix}-side`, brokers: [bs], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1 }] });
    await admin.disconnect();
    const producer = kafka.producer();
    await producer.connect();
    for (let i = 0; i < 6; i++) await producer.send({ topic, messages: Array.from({ length: 10 }, (_, j) => ({ value: `r${i * 10 + j}` })) });
    await producer.disconnect();
    const classic: string[] = [];
    const consumer = kafka.consumer({ groupId: `${prefix}-side-classic`, sessionTimeout: 10_000, heartbeatInterval: 500 });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void classic.push(message.value!.toString()) });
    try {
      const shared = await shareReader(bs, topic, `${prefix}-side-share`, 60);
      const deadline = Date.now() + 30_000;
      while (classic.length < 60 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const expected = Array.from({ length: 60 }, (_, i) => `r${i}`).sort();
      assert.equal([...classic].sort(), expected, 'the classic group read every record once');
      assert.equal([...shared].sort(), expected, 'the share group read every record once');
      console.log(`share groups (${label}): a kafkajs classic group and a share group each read all 60 records`);
    } finally {
      await consumer.disconnect();
    }
  };
}

async function confluentShareReader(bs: string, topic: string, group: string, count: number): Promise<string[]> {
  const res = await venvPython(PY_SHARE_READER, [bs, topic, group, String(count)], { timeoutMs: 60_000 });
  assert.is(res.code, 0, `share reader: ${describeRun(res)}`);
  return Object.assign({}, ...jsonLines(res, 'share reader')).accepted;
}

export const confluentScenarios: Scenario[] = [
  { name: 'three share consumers on one partition all receive records; each record is processed once', run: confluentThree },
  { name: 'records a SIGKILLed share consumer held are redelivered to the others when its connection closes', run: confluentKill },
  { name: 'records a share consumer that stopped polling held are redelivered to the others after the lock duration', run: confluentFreeze },
  { name: 'RELEASE redelivers at once, with delivery count 2', run: confluentRelease },
  { name: 'acknowledging records whose lock expired: INVALID_RECORD_STATE while another consumer holds them, ignored once it accepted them', run: confluentLateAck },
  { name: 'a record released share.delivery.count.limit times is archived and not redelivered; a rejected one is not redelivered', run: confluentPoison },
  { name: 'a classic group (kafkajs) and a share group read the same topic side by side, each sees everything', run: sideBySide(confluentShareReader, 'sg-c') },
  { name: 'share.isolation.level=read_committed hands out committed transactions only; read_uncommitted everything but control records', run: confluentReadCommitted },
  { name: 'a record archived at the delivery limit, and a rejected one, land in the dead-letter topic with the KIP-1191 headers', run: confluentDeadLetter },
];

// ---------------------------------------------------------------------------------------------
// Samsa only: share state across a broker restart.

/**
 * Before the restart: of 40 records, r0-r19 accepted and r20 rejected (committed; the group has a
 * dead-letter topic), the records acquired after r20 held unacknowledged (the process waits to be
 * killed).
 */
export const PY_RESTART_BEFORE = `${PY_HEAD}
create('sg-restart')
create('dlq.sg-restart', {'errors.deadletterqueue.group.enable': 'true'})
group_config('sg-restart-g', {'share.auto.offset.reset': 'earliest', 'errors.deadletterqueue.topic.name': 'dlq.sg-restart'})
produce('sg-restart', ['r%d' % i for i in range(40)])
c = share_consumer('before', 'sg-restart-g', 'sg-restart')
accepted, rejected, held = [], [], []
end = time.time() + 30
# r0-r19 accepted, r20 rejected, what comes after it left unacknowledged (and no poll after that).
while not held and time.time() < end:
    for m in c.poll(0.2):
        if m.error() is None:
            v = m.value().decode()
            if int(v[1:]) < 20:
                c.acknowledge(m, AcknowledgeType.ACCEPT)
                accepted.append(v)
            elif v == 'r20':
                c.acknowledge(m, AcknowledgeType.REJECT)
                rejected.append(v)
            else:
                held.append(v)
    res = c.commit_sync(15)
    assert all(e is None for e in res.values()), res
out(accepted=accepted, rejected=rejected, held=held)
time.sleep(600)
`;

/**
 * After the restart: everything the group is given, until 19 records are accepted and a moment
 * passes; then the offsets the dead-letter topic holds.
 */
export const PY_RESTART_AFTER = `${PY_HEAD}
w = Worker('after', 'sg-restart-g', 'sg-restart')
wait_until(lambda: len(w.accepted) >= 19, 30, '19 records after the restart')
settle([w], 1.5)
out(seen=[s[:3] for s in w.seen])
r = Consumer({'bootstrap.servers': bs, 'group.id': 'sg-restart-reader', 'enable.auto.commit': False})
r.assign([TopicPartition('dlq.sg-restart', 0, OFFSET_BEGINNING)])
dead = []
end = time.time() + 20
quiet = None
while time.time() < min(end, quiet or end):
    m = r.poll(0.2)
    if m is not None and m.error() is None:
        dead.append(dict((k, v.decode()) for (k, v) in m.headers())['__dlq.errors.offset'])
        quiet = time.time() + 1
r.close()
out(dead=dead)
`;

// ---------------------------------------------------------------------------------------------
// The Java client: share-groups-java/ShareScenario.java, every scenario in one JVM.

const SCENARIO_JAVA = path.join(path.dirname(fileURLToPath(import.meta.url)), 'share-groups-java', 'ShareScenario.java');
const JAVA_MODES = ['three', 'kill', 'freeze', 'release', 'late', 'limit', 'poison', 'side', 'dlq'] as const;
type JavaMode = (typeof JAVA_MODES)[number];

let javaRun: { bs: string; modes: string; result: Promise<Map<string, Record<string, any>>> } | null = null;

/**
 * Runs ShareScenario once per bootstrap (the JVM start is the expensive part on
 * this machine) with every mode asked for; each mode's lines are tagged with its name.
 */
function javaResults(bs: string, modes: readonly JavaMode[]): Promise<Map<string, Record<string, any>>> {
  const key = modes.join(',');
  if (javaRun && javaRun.bs === bs && javaRun.modes === key) return javaRun.result;
  const result = (async () => {
    const prog = await javaProgram(SCENARIO_JAVA, kafkaJars().classpath);
    const res = await run(javaBin(), [...JVM_OPTS, `-Dscenario.main=${prog.main}`, '-cp', prog.classpath, prog.main, key, bs], { timeoutMs: 240_000 });
    const byMode = new Map<string, Record<string, any>>();
    for (const line of jsonLines(res, 'ShareScenario.java')) {
      const prev = byMode.get(line.mode) ?? {};
      byMode.set(line.mode, { ...prev, ...line, log: `${res.stderr.slice(-3000)}` });
    }
    if (res.code !== 0) byMode.set('exit', { error: describeRun(res) });
    return byMode;
  })();
  javaRun = { bs, modes: key, result };
  return result;
}

async function javaMode(bs: string, modes: readonly JavaMode[], mode: JavaMode): Promise<Record<string, any>> {
  const all = await javaResults(bs, modes);
  const o = all.get(mode);
  assert.ok(o && !o.error, `${mode}: ${o?.error ?? 'no result'}\n${o?.log ?? all.get('exit')?.error ?? ''}`);
  return o;
}

function javaScenariosFor(modes: readonly JavaMode[]): Scenario[] {
  const m = (mode: JavaMode) => (bs: string) => javaMode(bs, modes, mode);
  const all: Record<JavaMode, Scenario> = {
    three: {
      name: 'Java: three KafkaShareConsumers on one partition all receive records; each record is processed once',
      run: async (bs, label) => {
        const o = await m('three')(bs);
        const accepted: string[][] = o.accepted;
        assert.is(new Set(accepted.flat()).size, 300, 'every record accepted');
        assert.is(accepted.flat().length, 300, 'no record processed twice');
        assert.ok(accepted.every((a) => a.length > 0), `each consumer processed records: ${accepted.map((a) => a.length)}`);
        assert.equal(o.counts.flat().filter((n: number) => n !== 1), [], 'every record delivered once');
        console.log(`share groups (java, ${label}): 300 records over three consumers ${accepted.map((a) => a.length).join('/')} in ${o.seconds} s`);
      },
    },
    kill: {
      name: 'Java: records a SIGKILLed KafkaShareConsumer held are redelivered to the others when its connection closes',
      run: async (bs, label) => {
        const o = await m('kill')(bs);
        checkRedelivered(o, 'a SIGKILLed consumer');
        assert.ok(o.afterSeconds < KILL_LOCK_MS / 1000, `released when its connection closed, before the ${KILL_LOCK_MS} ms lock expired (after ${o.afterSeconds} s)`);
        console.log(`share groups (java, ${label}): ${o.held.length} records of a SIGKILLed consumer redelivered after ${o.afterSeconds} s (lock ${KILL_LOCK_MS} ms)`);
      },
    },
    freeze: {
      name: 'Java: records a KafkaShareConsumer that stopped polling held are redelivered to the others after the lock duration',
      run: async (bs, label) => {
        const o = await m('freeze')(bs);
        checkRedelivered(o, 'a consumer that stopped polling');
        assert.ok(o.afterSeconds >= (LOCK_MS - 500) / 1000, `redelivered only after the ${LOCK_MS} ms lock (after ${o.afterSeconds} s)`);
        console.log(`share groups (java, ${label}): ${o.held.length} records of a consumer that stopped polling redelivered after ${o.afterSeconds} s (lock ${LOCK_MS} ms)`);
      },
    },
    release: {
      name: 'Java: RELEASE redelivers at once, with delivery count 2',
      run: async (bs) => {
        const o = await m('release')(bs);
        assert.is(o.accepted.length, 20, 'each record accepted once');
        for (let i = 0; i < 20; i++) assert.equal(o.deliveries[`r${i}`], i < 5 ? [1, 2] : [1], `r${i}: delivery counts the client saw`);
      },
    },
    late: {
      name: 'Java: acknowledging records whose lock expired: InvalidRecordStateException while another consumer holds them, ignored once it accepted them',
      run: async (bs) => {
        const o = await m('late')(bs);
        // At least the second delivery: on a loaded machine the other consumer's own 2 s lock can
        // also run out before its poll returns them, and they come back a third time.
        for (const k of ['whileHeld', 'afterAccepted']) {
          const counts: number[] = o[k].otherCounts;
          assert.ok(counts.length === 3 && counts.every((n) => n >= 2), `${k}: the other consumer had the records after the 2 s lock: delivery counts ${counts}`);
        }
        assert.equal(o.whileHeld.late, ['InvalidRecordStateException'], 'records another consumer holds cannot be acknowledged');
        assert.equal(o.afterAccepted.late, ['none'], 'records since acknowledged by the other consumer: the late acknowledgement is ignored, not an error');
      },
    },
    limit: {
      name: 'Java: share.acquire.mode=record_limit acquires max.poll.records of a larger batch, the rest goes to another consumer',
      run: async (bs) => {
        const o = await m('limit')(bs);
        assert.equal(o.first, [0, 1, 2, 3, 4], 'the first poll: five records of the 50-record batch');
        // The next five of the same batch go to the other consumer while the first holds its five.
        // Not necessarily 5-9: the first consumer's background thread may fetch again before its
        // poll returns (a loaded machine), and then holds 5-9 too.
        const other: number[] = o.other;
        assert.is(other.length, 5, `the other consumer's first poll: five records (${other})`);
        assert.ok(other[0] >= 5 && other[0] % 5 === 0 && other[4] < 50 && other.every((n, i) => n === other[0] + i), `five consecutive records of the same batch, none of the first's: ${other}`);
      },
    },
    poison: {
      name: 'Java: a record released share.delivery.count.limit times is archived and not redelivered; a rejected one is not redelivered',
      run: async (bs) => {
        const o = await m('poison')(bs);
        assert.equal(o.poison, [1, 2]);
        assert.equal(o.rejected, [1]);
        assert.equal([...o.accepted].sort(), ['after', 'r0', 'r1', 'r2', 'r4', 'r5', 'r7', 'r8', 'r9']);
      },
    },
    side: {
      name: 'Java: a classic KafkaConsumer group and a KafkaShareConsumer read the same topic side by side, each sees everything',
      run: async (bs, label) => {
        const o = await m('side')(bs);
        const expected = Array.from({ length: 60 }, (_, i) => `r${i}`).sort();
        assert.equal([...o.classic].sort(), expected, 'the classic group read every record once');
        assert.equal([...o.shared].sort(), expected, 'the share group read every record once');
        console.log(`share groups (java, ${label}): a classic group and a share group each read all 60 records`);
      },
    },
    dlq: {
      name: 'Java: a record archived at the delivery limit, and a rejected one, land in the dead-letter topic with the KIP-1191 headers',
      run: async (bs) => {
        const o = await m('dlq')(bs);
        assert.equal(o.poison, [1, 2]);
        const dead: DeadLetter[] = o.dead;
        assert.is(dead.length, 2, `two dead-lettered records: ${JSON.stringify(dead)}`);
        const byOffset = new Map(dead.map((d) => [Number(d.headers['__dlq.errors.offset']), d]));
        checkDeadLetter(byOffset.get(3)!, 'sg-j-dlq', 'sg-j-dlq-g', 3, 2);
        checkDeadLetter(byOffset.get(6)!, 'sg-j-dlq', 'sg-j-dlq-g', 6, 1);
        assert.equal([byOffset.get(3)!.value, byOffset.get(6)!.value], ['r3', 'r6']);
      },
    },
  };
  return modes.map((x) => all[x]);
}

export const javaScenarios: Scenario[] = javaScenariosFor(JAVA_MODES);
