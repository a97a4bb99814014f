/**
 * Records per second through a share group (KIP-932) of 1, 4 and 16 consumers on ONE partition,
 * each record acknowledged on its own (explicit mode, ACCEPT per record), against a classic
 * consumer group reading the same partition, in one run against one Samsa broker.
 *
 * Clients: confluent-kafka 2.16 (librdkafka 2.16) from the test venv (tools/ensure-test-deps.sh):
 * `ShareConsumer` with share.acknowledgement.mode=explicit, one thread per consumer in one Python
 * process (the acknowledgements go out with the next ShareFetch; librdkafka does the network work
 * on its own threads), and a classic `Consumer` (group.protocol=classic, no commits). The
 * records are produced once, before the reads, in batches of `batch` records (a share fetch
 * acquires whole batches); each share group starts from the earliest offset through its
 * share.auto.offset.reset group config. Per mode the rate is over the time from the consumers'
 * creation to the last record read (share groups: accepted; the last acknowledgement itself is
 * not waited for), joining included: librdkafka's classic consumer prefetches while it joins, so
 * timing from the first record would flatter it. The time to the first record is shown apart;
 * the default record count keeps it a small part of the total.
 *
 * The machine has 2 cores shared with other work: the client process, the broker and anything
 * else compete, so figures are comparable within one run only; the busy column is the whole
 * machine's CPU use during that mode. Figures are printed, never asserted.
 *
 *   npm run bench:share [-- records=500000 value-bytes=100 batch=100] [--kafka]
 *
 * `--kafka` runs the same against Apache Kafka 4.4 (tools/kafka, the local JVM) instead of Samsa,
 * for reference.
 */
import { startBroker } from '../src/testing/start-broker.js';
import { venvPython } from '../test/support/external.js';
import { machineCpu } from './lib/run.js';
import { startKafka } from '../tools/kafka/kafka.js';

const onKafka = process.argv.includes('--kafka');
const args = process.argv.slice(2).filter((a) => a !== '--kafka');
const records = Number(args[0] ?? 500000);
const valueBytes = Number(args[1] ?? 100);
const batch = Number(args[2] ?? 100);

const PY = `
import sys, json, time, threading
from confluent_kafka import Producer, Consumer, ShareConsumer, AcknowledgeType
from confluent_kafka.admin import AdminClient, NewTopic, ConfigResource, ResourceType, ConfigEntry, AlterConfigOpType
bs, mode, topic, n, value_bytes, batch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
admin = AdminClient({'bootstrap.servers': bs})
def out(**kw):
    print(json.dumps(kw), flush=True)
if mode == 'produce':
    for f in admin.create_topics([NewTopic(topic, 1, 1)], operation_timeout=10).values():
        f.result(15)
    p = Producer({'bootstrap.servers': bs, 'linger.ms': 5, 'batch.num.messages': batch})
    pad = 'x' * max(0, value_bytes - 8)
    t0 = time.time()
    for i in range(n):
        while True:
            try:
                p.produce(topic, value=('%08d' % i + pad).encode(), partition=0)
                break
            except BufferError:
                p.poll(0.01)
    assert p.flush(60) == 0
    out(produced=n, seconds=round(time.time() - t0, 3))
elif mode == 'classic':
    t0 = time.time()
    c = Consumer({'bootstrap.servers': bs, 'group.id': topic + '-classic', 'group.protocol': 'classic',
                  'auto.offset.reset': 'earliest', 'enable.auto.commit': False})
    c.subscribe([topic])
    got = 0
    first = None
    end = t0 + 300
    while got < n and time.time() < end:
        for m in c.consume(500, 0.2):
            if m.error() is None:
                got += 1
                first = first or time.time()
    last = time.time()
    c.close()
    out(mode='classic', consumers=1, records=got, firstAfter=round(first - t0, 3), seconds=round(last - t0, 3), redelivered=0)
else:
    k = int(mode)
    group = '%s-share-%d' % (topic, k)
    entry = ConfigEntry('share.auto.offset.reset', 'earliest', incremental_operation=AlterConfigOpType.SET)
    for f in admin.incremental_alter_configs([ConfigResource(ResourceType.GROUP, group, incremental_configs=[entry])]).values():
        f.result(15)
    accepted = set()
    lock = threading.Lock()
    redelivered = [0]
    first = []
    done = threading.Event()
    t0 = time.time()
    def work(i):
        c = ShareConsumer({'bootstrap.servers': bs, 'group.id': group, 'client.id': 'w%d' % i, 'share.acknowledgement.mode': 'explicit'})
        c.subscribe([topic])
        while not done.is_set():
            ms = c.poll(0.2)
            mine = []
            for m in ms:
                if m.error() is not None:
                    continue
                c.acknowledge(m, AcknowledgeType.ACCEPT)
                mine.append((m.offset(), m.delivery_count()))
            if mine:
                with lock:
                    if not first:
                        first.append(time.time())
                    for (o, d) in mine:
                        accepted.add(o)
                        if d and d > 1:
                            redelivered[0] += 1
                    if len(accepted) >= n:
                        done.set()
        c.close()
    ts = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(k)]
    for t in ts:
        t.start()
    done.wait(300)
    last = time.time()
    for t in ts:
        t.join(30)
    out(mode='share', consumers=k, records=len(accepted), firstAfter=round(first[0] - t0, 3), seconds=round(last - t0, 3), redelivered=redelivered[0])
`;

async function py(bs: string, mode: string, topic: string): Promise<Record<string, number | string>> {
  const res = await venvPython(PY, [bs, mode, topic, String(records), String(valueBytes), String(batch)], { timeoutMs: 400_000 });
  if (res.code !== 0) throw new Error(`${mode}: exit ${res.code}\n${res.stderr.slice(-3000)}`);
  return JSON.parse(res.stdout.trim().split('\n').pop()!);
}

const settings = {
  'group.initial.rebalance.delay.ms': '0',
  'group.share.heartbeat.interval.ms': '1000',
  'group.share.min.heartbeat.interval.ms': '500',
};
const target = onKafka
  ? await startKafka({ overrides: { ...settings, 'share.coordinator.state.topic.num.partitions': '1', 'offsets.topic.num.partitions': '1' }, jvmOpts: ['-Xms1g', '-Xmx1g', '-XX:+UseG1GC'] })
  : await startBroker({ port: 0, config: settings, logLevel: 'warn' });
const bs = `127.0.0.1:${target.port}`;
const topic = 'bench-share';
const rows: { label: string; consumers: number; records: number; firstAfter: number; seconds: number; redelivered: number; busy: number }[] = [];
try {
  const produced = await py(bs, 'produce', topic);
  console.log(`produced ${produced.produced} records of ${valueBytes} bytes to one partition in ${produced.seconds} s (batches of up to ${batch})`);
  for (const mode of ['classic', '1', '4', '16']) {
    const c0 = machineCpu();
    const r = await py(bs, mode, topic);
    const c1 = machineCpu();
    const busy = c1.total > c0.total ? (c1.busy - c0.busy) / (c1.total - c0.total) : 0;
    rows.push({ label: mode === 'classic' ? 'classic group' : `share group`, consumers: Number(r.consumers), records: Number(r.records), firstAfter: Number(r.firstAfter), seconds: Number(r.seconds), redelivered: Number(r.redelivered), busy });
  }
} finally {
  await target.stop();
}
const classic = rows[0];
const rate = (r: (typeof rows)[number]) => r.records / r.seconds;
console.log('');
console.log(`${records} records, one partition, per-record acknowledgement in the share groups (${onKafka ? 'Apache Kafka 4.4' : 'Samsa'}, confluent-kafka 2.16)`);
console.log('reader          consumers   first record after   records   seconds   records/s   vs classic   redelivered   machine busy');
for (const r of rows) {
  const ratio = rate(r) / rate(classic);
  console.log(
    `${r.label.padEnd(15)} ${String(r.consumers).padStart(9)} ${(r.firstAfter.toFixed(2) + ' s').padStart(20)} ${String(r.records).padStart(9)} ${r.seconds.toFixed(2).padStart(9)} ${Math.round(rate(r)).toString().padStart(11)} ${ratio.toFixed(2).padStart(11)}x ${String(r.redelivered).padStart(13)} ${(Math.round(r.busy * 100) + '%').padStart(14)}`,
  );
}
