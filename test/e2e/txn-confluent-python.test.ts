/**
 * confluent-kafka-python (librdkafka) transactional producer against Samsa: init, begin, produce to
 * several partitions, send_offsets_to_transaction, commit and abort; read_committed and
 * read_uncommitted consumers; a second producer with the same transactional.id fences the first.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { python } from '../support/external.js';

let b: RunningBroker;

test.before(async () => {
  b = await startBroker({ port: 0 });
  for (const name of ['py-txn', 'py-in']) await b.broker.createTopic({ name, numPartitions: 3, replicationFactor: 1, configs: {} });
});

test.after(async () => {
  await b?.stop();
});

const SCRIPT = `
import sys, json
from confluent_kafka import Producer, Consumer, TopicPartition, KafkaException
bootstrap = sys.argv[1]
def emit(o):
    sys.stdout.write(json.dumps(o) + "\\n"); sys.stdout.flush()
def producer(txid):
    return Producer({'bootstrap.servers': bootstrap, 'transactional.id': txid, 'linger.ms': 5,
                     'transaction.timeout.ms': 30000, 'message.timeout.ms': 20000})
p = producer('py-tx')
p.init_transactions(20)
group = Consumer({'bootstrap.servers': bootstrap, 'group.id': 'py-group', 'enable.auto.commit': False})
p.begin_transaction()
for i in range(6):
    p.produce('py-txn', value=('c-%d' % i).encode(), partition=i % 3)
p.send_offsets_to_transaction([TopicPartition('py-in', 0, 7), TopicPartition('py-in', 2, 3)], group.consumer_group_metadata(), 20)
p.commit_transaction(20)
emit({'step': 'commit1'})
p.begin_transaction()
for i in range(3):
    p.produce('py-txn', value=('a-%d' % i).encode(), partition=i % 3)
p.send_offsets_to_transaction([TopicPartition('py-in', 0, 100)], group.consumer_group_metadata(), 20)
p.flush(20)
p.abort_transaction(20)
emit({'step': 'abort'})
p.begin_transaction()
p.produce('py-txn', value=b'c2-0', partition=1)
p.commit_transaction(20)
emit({'step': 'commit2'})
committed = group.committed([TopicPartition('py-in', 0), TopicPartition('py-in', 2)], 20)
emit({'committed': [tp.offset for tp in committed]})
group.close()

# Zombie fencing: a second producer with the same transactional.id.
p.begin_transaction()
p.produce('py-txn', value=b'zombie', partition=0)
p.flush(20)
p2 = producer('py-tx')
p2.init_transactions(20)
fenced = None
try:
    p.commit_transaction(20)
except KafkaException as e:
    err = e.args[0]
    fenced = {'name': err.name(), 'fatal': err.fatal()}
emit({'fenced': fenced})
p2.begin_transaction()
p2.produce('py-txn', value=b'live', partition=0)
p2.commit_transaction(20)
emit({'step': 'live'})

def read(isolation):
    c = Consumer({'bootstrap.servers': bootstrap, 'group.id': 'reader-' + isolation, 'isolation.level': isolation,
                  'enable.auto.commit': False, 'enable.partition.eof': True})
    c.assign([TopicPartition('py-txn', p, 0) for p in range(3)])
    eof, values = set(), []
    import time
    deadline = time.time() + 20
    while len(eof) < 3 and time.time() < deadline:
        m = c.poll(0.5)
        if m is None: continue
        if m.error():
            if m.error().code() == -191: eof.add(m.partition())
            continue
        values.append(m.value().decode())
    c.close()
    return sorted(values)
emit({'read_committed': read('read_committed'), 'read_uncommitted': read('read_uncommitted')})
`;

test('librdkafka transactional producer: commit, abort, send_offsets_to_transaction, fencing', async () => {
  const res = await python(SCRIPT, [b.bootstrap], { timeoutMs: 90_000 });
  const lines = res.stdout.toString().split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
  const get = (k: string) => lines.find((o) => k in o)?.[k];
  assert.ok(lines.some((o) => o.step === 'live'), `script output: ${res.stdout}\n${res.stderr.toString().slice(-3000)}`);
  assert.equal(get('committed'), [7, 3]);
  assert.ok(get('fenced'), 'the zombie commit must fail');
  assert.ok(/FENCED|EPOCH/.test(get('fenced').name), get('fenced').name);
  const committed = ['c-0', 'c-1', 'c-2', 'c-3', 'c-4', 'c-5', 'c2-0', 'live'].sort();
  assert.equal(get('read_committed'), committed);
  assert.equal(get('read_uncommitted'), [...committed, 'a-0', 'a-1', 'a-2', 'zombie'].sort());
});

test.run();
