/**
 * Today's confluent-kafka-python 2.x from PyPI (librdkafka 2.15+, in the venv that
 * tools/ensure-test-deps.sh builds) against Samsa. librdkafka 2.15 sends its "all topics"
 * Metadata v12 with 3 bytes after the body; Kafka ignores them and so must Samsa (a broker that
 * refuses such a frame drops the connection, and list_topics() times out). Then the admin calls
 * 1.7 does not have (describe_topics, describe_cluster, incremental_alter_configs, list_offsets,
 * delete_records, consumer-group listing), producing with every codec, and reading back through an
 * assign()-consumer and a group member.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { venvPython } from '../support/external.js';
import { describeRun, hostPort, jsonLines } from '../support/clients.js';

let b: RunningBroker;
let bs: string;

test.before(async () => {
  b = await startBroker({ port: 0, config: { 'num.partitions': 1, 'group.initial.rebalance.delay.ms': 0 } });
  bs = hostPort(b.port);
});

test.after(async () => {
  await b?.stop();
});

/** Runs a script under the venv's python; every line it prints is one JSON object, merged into one. */
async function py(script: string, args: string[], what: string, timeoutMs = 60_000): Promise<Record<string, any>> {
  const res = await venvPython(script, [bs, ...args], { timeoutMs });
  assert.is(res.code, 0, `${what}: ${describeRun(res)}`);
  return Object.assign({}, ...jsonLines(res, what));
}

const PY_HEAD = `
import sys, json, time
import confluent_kafka
from confluent_kafka import Producer, Consumer, TopicPartition, TopicCollection
from confluent_kafka.admin import AdminClient, NewTopic, NewPartitions, ConfigResource, ConfigEntry, AlterConfigOpType, OffsetSpec
bs = sys.argv[1]
def out(**kw):
    print(json.dumps(kw), flush=True)
def outcome(f, timeout=15):
    try:
        r = f.result(timeout)
        return 'ok' if r is None else r
    except Exception as e:
        e = e.args[0] if e.args else e
        return e.name() if hasattr(e, 'name') else repr(e)
`;

test('list_topics() over the all-topics Metadata v12 (3 trailing bytes) lists every topic, twice on one connection', async () => {
  const o = await py(`${PY_HEAD}
out(version=confluent_kafka.version()[0], librdkafka=confluent_kafka.libversion()[0])
a = AdminClient({'bootstrap.servers': bs})
fs = a.create_topics([NewTopic('c2-md-a', 3, 1), NewTopic('c2-md-b', 1, 1)], operation_timeout=10)
out(create={k: outcome(f) for k, f in fs.items()})
for i in (1, 2):
    md = a.list_topics(timeout=10)
    out(**{'round%d' % i: {'topics': {n: len(t.partitions) for n, t in md.topics.items() if n.startswith('c2-md-')},
                           'errors': [n for n, t in md.topics.items() if t.error is not None],
                           'brokers': sorted(md.brokers.keys()), 'controller': md.controller_id,
                           'cluster': md.cluster_id is not None}})
# A producer's and a consumer's handle ask for all topics the same way.
p = Producer({'bootstrap.servers': bs})
out(producer=sorted(n for n in p.list_topics(timeout=10).topics if n.startswith('c2-md-')))
c = Consumer({'bootstrap.servers': bs, 'group.id': 'c2-md-unused'})
out(consumer=sorted(n for n in c.list_topics(timeout=10).topics if n.startswith('c2-md-')))
c.close()
`, [], 'list_topics');
  const [maj, min] = String(o.librdkafka).split('.').map(Number);
  assert.ok(maj > 2 || (maj === 2 && min >= 15), `librdkafka ${o.librdkafka}: the trailing-bytes frame comes from 2.15+`);
  assert.equal(o.create, { 'c2-md-a': 'ok', 'c2-md-b': 'ok' });
  for (const r of [o.round1, o.round2]) {
    assert.equal(r, { topics: { 'c2-md-a': 3, 'c2-md-b': 1 }, errors: [], brokers: [1], controller: 1, cluster: true });
  }
  assert.equal(o.producer, ['c2-md-a', 'c2-md-b']);
  assert.equal(o.consumer, ['c2-md-a', 'c2-md-b']);
});

test('AdminClient 2.x: describe_topics, describe_cluster, create_partitions, describe and incremental_alter configs, delete_topics', async () => {
  const o = await py(`${PY_HEAD}
a = AdminClient({'bootstrap.servers': bs})
out(validate={k: outcome(f) for k, f in a.create_topics([NewTopic('c2-adm-v', 2, 1)], validate_only=True).items()})
out(create={k: outcome(f) for k, f in a.create_topics([NewTopic('c2-adm', 2, 1, config={'retention.ms': '7200000'})]).items()})
out(again={k: outcome(f) for k, f in a.create_topics([NewTopic('c2-adm', 2, 1)]).items()})
d = a.describe_topics(TopicCollection(['c2-adm', 'c2-adm-v']))
desc = {}
for name, f in d.items():
    try:
        t = f.result(15)
        desc[name] = {'partitions': [p.id for p in t.partitions], 'leaders': [p.leader.id for p in t.partitions], 'internal': t.is_internal}
    except Exception as e:
        desc[name] = e.args[0].name()
out(describe=desc)
cl = a.describe_cluster().result(15)
out(cluster={'nodes': [n.id for n in cl.nodes], 'controller': cl.controller.id, 'id': cl.cluster_id is not None})
out(grow={k: outcome(f) for k, f in a.create_partitions([NewPartitions('c2-adm', 4)]).items()})
out(partitions=len(a.describe_topics(TopicCollection(['c2-adm']))['c2-adm'].result(15).partitions))
res = ConfigResource(ConfigResource.Type.TOPIC, 'c2-adm')
cfg = list(a.describe_configs([res]).values())[0].result(15)
out(before={'retention.ms': cfg['retention.ms'].value, 'cleanup.policy': cfg['cleanup.policy'].value, 'default': cfg['cleanup.policy'].is_default})
inc = ConfigResource(ConfigResource.Type.TOPIC, 'c2-adm', incremental_configs=[
    ConfigEntry('retention.ms', '60000', incremental_operation=AlterConfigOpType.SET),
    ConfigEntry('cleanup.policy', 'compact', incremental_operation=AlterConfigOpType.APPEND)])
out(alter=outcome(list(a.incremental_alter_configs([inc]).values())[0]))
cfg = list(a.describe_configs([res]).values())[0].result(15)
out(after={'retention.ms': cfg['retention.ms'].value, 'cleanup.policy': cfg['cleanup.policy'].value})
out(delete={k: outcome(f) for k, f in a.delete_topics(['c2-adm'], operation_timeout=10).items()})
out(deleteAgain={k: outcome(f) for k, f in a.delete_topics(['c2-adm'], operation_timeout=10).items()})
`, [], 'admin');
  assert.equal(o.validate, { 'c2-adm-v': 'ok' });
  assert.equal(o.create, { 'c2-adm': 'ok' });
  assert.equal(o.again, { 'c2-adm': 'TOPIC_ALREADY_EXISTS' });
  assert.equal(o.describe, { 'c2-adm': { partitions: [0, 1], leaders: [1, 1], internal: false }, 'c2-adm-v': 'UNKNOWN_TOPIC_OR_PART' });
  assert.equal(o.cluster, { nodes: [1], controller: 1, id: true });
  assert.equal(o.grow, { 'c2-adm': 'ok' });
  assert.is(o.partitions, 4);
  assert.equal(o.before, { 'retention.ms': '7200000', 'cleanup.policy': 'delete', default: true });
  assert.is(o.alter, 'ok');
  assert.equal(o.after, { 'retention.ms': '60000', 'cleanup.policy': 'delete,compact' });
  assert.equal(o.delete, { 'c2-adm': 'ok' });
  assert.equal(o.deleteAgain, { 'c2-adm': 'UNKNOWN_TOPIC_OR_PART' });
});

const T0 = 1_700_000_000_000;

test('produce with every codec, read back byte-exact; list_offsets by spec and timestamp; delete_records moves the log start', async () => {
  const o = await py(`${PY_HEAD}
T0 = ${T0}
a = AdminClient({'bootstrap.servers': bs})
codecs = ['none', 'gzip', 'snappy', 'lz4', 'zstd']
for c in codecs:
    a.create_topics([NewTopic('c2-rw-' + c, 2, 1)])['c2-rw-' + c].result(15)
sent, reports = {}, {}
for c in codecs:
    p = Producer({'bootstrap.servers': bs, 'compression.type': c, 'enable.idempotence': True, 'linger.ms': 5})
    got = []
    recs = []
    for i in range(10):
        key = None if i == 0 else ('%s-k%d' % (c, i)).encode()
        value = b'' if i == 1 else (('%s value %d ' % (c, i)) * 20).encode() + bytes([0, 255, i])
        headers = [('h', ('hv%d' % i).encode()), ('nul', None)] if i % 3 == 0 else None
        recs.append([i % 2, key.decode() if key else None, value.hex(), [[h[0], None if h[1] is None else h[1].hex()] for h in headers or []], T0 + i * 1000])
        p.produce('c2-rw-' + c, value=value, key=key, partition=i % 2, headers=headers, timestamp=T0 + i * 1000,
                  on_delivery=lambda e, m, got=got: got.append([None if e is None else e.name(), m.partition(), m.offset()]))
    left = p.flush(20)
    sent[c] = recs
    reports[c] = {'unflushed': left, 'errors': [g[0] for g in got if g[0]], 'offsets': sorted([g[1], g[2]] for g in got)}
out(reports=reports)
read = {}
for c in codecs:
    cons = Consumer({'bootstrap.servers': bs, 'group.id': 'c2-rw-unused', 'enable.auto.commit': False})
    cons.assign([TopicPartition('c2-rw-' + c, p, 0) for p in (0, 1)])
    recs, errors, deadline = [], [], time.time() + 20
    while len(recs) < 10 and time.time() < deadline:
        m = cons.poll(0.2)
        if m is None: continue
        if m.error(): errors.append(m.error().name()); continue
        recs.append([m.partition(), m.key().decode() if m.key() is not None else None, m.value().hex(),
                     [[h[0], None if h[1] is None else h[1].hex()] for h in m.headers() or []], m.timestamp()[1], m.offset()])
    cons.close()
    recs.sort(key=lambda r: (r[0], r[5]))
    want = sorted(sent[c], key=lambda r: (r[0], r[4]))
    read[c] = {'errors': errors, 'same': [r[:5] for r in recs] == want, 'count': len(recs)}
out(read=read)
tp = TopicPartition('c2-rw-zstd', 0)
def lo(spec):
    return a.list_offsets({tp: spec})[tp].result(15).offset
out(offsets={'earliest': lo(OffsetSpec.earliest()), 'latest': lo(OffsetSpec.latest()),
             'before': lo(OffsetSpec.for_timestamp(T0 - 1)), 'between': lo(OffsetSpec.for_timestamp(T0 + 1500)),
             'exact': lo(OffsetSpec.for_timestamp(T0 + 4000)), 'after': lo(OffsetSpec.for_timestamp(T0 + 600000)),
             'maxTimestamp': lo(OffsetSpec.max_timestamp())})
dr = a.delete_records([TopicPartition('c2-rw-zstd', 0, 3)], operation_timeout=10)
out(deleted=list(dr.values())[0].result(15).low_watermark)
out(earliestAfter=lo(OffsetSpec.earliest()))
cons = Consumer({'bootstrap.servers': bs, 'group.id': 'c2-rw-unused', 'auto.offset.reset': 'earliest'})
cons.assign([TopicPartition('c2-rw-zstd', 0, confluent_kafka.OFFSET_BEGINNING)])
first, deadline = None, time.time() + 15
while first is None and time.time() < deadline:
    m = cons.poll(0.2)
    if m is not None and not m.error(): first = m.offset()
cons.close()
out(firstAfterDelete=first)
`, [], 'produce and read', 90_000);
  for (const c of ['none', 'gzip', 'snappy', 'lz4', 'zstd']) {
    assert.equal(o.reports[c], { unflushed: 0, errors: [], offsets: [0, 1].flatMap((p) => [0, 1, 2, 3, 4].map((i) => [p, i])) }, `delivery reports, ${c}`);
    assert.equal(o.read[c], { errors: [], same: true, count: 10 }, `read back, ${c}`);
  }
  // Partition 0 of each topic holds records 0, 2, 4, 6, 8 at T0 + 0, 2000, 4000, 6000, 8000.
  assert.equal(o.offsets, { earliest: 0, latest: 5, before: 0, between: 1, exact: 2, after: -1, maxTimestamp: 4 });
  assert.is(o.deleted, 3);
  assert.is(o.earliestAfter, 3);
  assert.is(o.firstAfterDelete, 3);
});

test('group member: subscribe, consume, commit; list and describe consumer groups; committed offsets', async () => {
  const o = await py(`${PY_HEAD}
a = AdminClient({'bootstrap.servers': bs})
a.create_topics([NewTopic('c2-grp', 2, 1)])['c2-grp'].result(15)
p = Producer({'bootstrap.servers': bs})
for i in range(6):
    p.produce('c2-grp', value=b'g%d' % i, partition=i % 2)
out(unflushed=p.flush(15))
assigned = []
c = Consumer({'bootstrap.servers': bs, 'group.id': 'c2-grp-g', 'enable.auto.commit': False, 'auto.offset.reset': 'earliest',
              'session.timeout.ms': 6000, 'heartbeat.interval.ms': 500})
c.subscribe(['c2-grp'], on_assign=lambda cons, parts: assigned.append(sorted(x.partition for x in parts)))
got, deadline = [], time.time() + 30
while len(got) < 6 and time.time() < deadline:
    m = c.poll(0.2)
    if m is None or m.error(): continue
    got.append(m.value().decode())
out(assigned=assigned, got=sorted(got))
out(commit=sorted([x.partition, x.offset] for x in c.commit(asynchronous=False)))
out(committed=sorted([x.partition, x.offset] for x in c.committed([TopicPartition('c2-grp', 0), TopicPartition('c2-grp', 1)], timeout=10)))
groups = a.list_consumer_groups().result(15)
out(listed=[g.group_id for g in groups.valid if g.group_id == 'c2-grp-g'])
d = a.describe_consumer_groups(['c2-grp-g'])['c2-grp-g'].result(15)
out(described={'state': str(d.state).split('.')[-1], 'members': len(d.members), 'protocol': d.partition_assignor,
               'assignment': sorted(tp.partition for m in d.members for tp in m.assignment.topic_partitions)})
c.close()
`, [], 'group', 90_000);
  assert.is(o.unflushed, 0);
  assert.equal(o.assigned, [[0, 1]]);
  assert.equal(o.got, ['g0', 'g1', 'g2', 'g3', 'g4', 'g5']);
  assert.equal(o.commit, [[0, 3], [1, 3]]);
  assert.equal(o.committed, [[0, 3], [1, 3]]);
  assert.equal(o.listed, ['c2-grp-g']);
  assert.equal(o.described, { state: 'STABLE', members: 1, protocol: 'range', assignment: [0, 1] });
});

test.run();
