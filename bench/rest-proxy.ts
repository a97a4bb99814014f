/**
 * Producing through the REST Proxy v3 against producing over the Kafka protocol, on one broker.
 *
 *   npm run build && tsx bench/rest-proxy.ts [-- --reps 3 --duration 5 --concurrency 16 --batch 100 --partitions 3]
 *
 * Per rep: a fresh broker process (dist/samsa.js) with its HTTP listener and a topic of
 * --partitions partitions; then, for --duration seconds each, with --concurrency requests in flight:
 * - REST, 1 record a request:  POST /v3/clusters/{c}/topics/{t}/records, one JSON record
 *                              (`{"value": {"type": "JSON", "data": {...}}}`, ~100 bytes of data),
 *                              over keep-alive connections (node:http);
 * - REST streaming, --batch records a request: the same records concatenated in one body
 *                              (Confluent's streaming mode), one answer per record;
 * - kafkajs, 1 record a send:  producer.send of one record (the same JSON text), acks=all;
 * - kafkajs, --batch a send:   producer.send of --batch records, acks=all.
 * Every answer is checked (error_code 200 per REST record). Printed: records/s per mode, p50 / p99
 * request latency, broker CPU-ms per 1,000 records, and the REST / kafkajs ratio for each
 * shape; then the medians over reps. No assertions: it prints what it measured.
 */
import kafkajs from 'kafkajs';
import { httpCall } from './lib/http-client.js';
import { phaseMedian, printPhaseTable, runReps, type Phase as BasePhase } from './lib/phases.js';
import { freePort, median, percentile, startSamsa } from './lib/proc.js';

const { Kafka, logLevel } = kafkajs;

function option(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : def;
}
const o = { reps: option('reps', 3), duration: option('duration', 5), concurrency: option('concurrency', 16), batch: option('batch', 100), partitions: option('partitions', 3) };
const TOPIC = 'bench-rest';

const data = (i: number) => ({ id: i, user: `user-${i % 1000}`, action: 'click', page: '/products/12345', ts: 1700000000000 + i });
const restRecord = (i: number) => JSON.stringify({ value: { type: 'JSON', data: data(i) } });

interface Phase extends BasePhase { records: number }

/** Runs `request` with --concurrency in flight for `seconds`; each call answers how many records it carried. */
async function drive(name: string, seconds: number, cpu: () => number, request: (i: number) => Promise<number>): Promise<Phase> {
  const lat: number[] = [];
  let records = 0;
  let n = 0;
  const cpu0 = cpu();
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  await Promise.all(Array.from({ length: o.concurrency }, async () => {
    while (performance.now() < end) {
      const t = performance.now();
      const carried = await request(n++);
      records += carried;
      lat.push(performance.now() - t);
    }
  }));
  const elapsed = (performance.now() - t0) / 1000;
  return { name, records, rate: records / elapsed, p50: percentile(lat, 50), p99: percentile(lat, 99), cpuMsPer1k: ((cpu() - cpu0) * 1e6) / Math.max(1, records) };
}

const post = (url: URL, body: string) => httpCall('POST', url, body);

async function restProduce(url: URL, body: string, expected: number): Promise<number> {
  const { status, text } = await post(url, body);
  if (status !== 200) throw new Error(`${status}: ${text}`);
  let ok = 0;
  for (const line of text.split('\r\n')) if (line !== '' && (JSON.parse(line) as { error_code: number }).error_code === 200) ok++;
  if (ok !== expected) throw new Error(`${expected - ok} of ${expected} records failed: ${text.slice(0, 300)}`);
  return ok;
}

async function rep(): Promise<{ phases: Phase[]; rss: number }> {
  const httpPort = await freePort();
  const broker = await startSamsa({ overrides: { 'samsa.http.listeners': `http://127.0.0.1:${httpPort}` } });
  const base = `http://127.0.0.1:${httpPort}`;
  const cpu = () => broker.cpuSeconds();
  const kafka = new Kafka({ clientId: 'bench-rest', brokers: [`${broker.host}:${broker.port}`], logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  try {
    const cluster = ((await (await fetch(`${base}/v3/clusters`)).json()) as { data: { cluster_id: string }[] }).data[0]!.cluster_id;
    const created = await fetch(`${base}/v3/clusters/${cluster}/topics`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ topic_name: TOPIC, partitions_count: o.partitions, replication_factor: 1 }),
    });
    if (created.status !== 201) throw new Error(`creating ${TOPIC}: ${created.status} ${await created.text()}`);
    const url = new URL(`${base}/v3/clusters/${cluster}/topics/${TOPIC}/records`);
    await producer.connect();
    // Warm-up: both paths, so neither pays first-call costs inside its window.
    for (let i = 0; i < 200; i++) await restProduce(url, restRecord(i), 1);
    await producer.send({ topic: TOPIC, acks: -1, messages: [{ value: JSON.stringify(data(0)) }] });

    const phases: Phase[] = [];
    phases.push(await drive('REST, 1 record a request', o.duration, cpu, (i) => restProduce(url, restRecord(i), 1)));
    phases.push(await drive(`REST streaming, ${o.batch} a request`, o.duration, cpu, (i) => {
      let body = '';
      for (let k = 0; k < o.batch; k++) body += restRecord(i * o.batch + k);
      return restProduce(url, body, o.batch);
    }));
    phases.push(await drive('kafkajs, 1 record a send', o.duration, cpu, async (i) => {
      await producer.send({ topic: TOPIC, acks: -1, messages: [{ value: JSON.stringify(data(i)) }] });
      return 1;
    }));
    phases.push(await drive(`kafkajs, ${o.batch} a send`, o.duration, cpu, async (i) => {
      await producer.send({ topic: TOPIC, acks: -1, messages: Array.from({ length: o.batch }, (_, k) => ({ value: JSON.stringify(data(i * o.batch + k)) })) });
      return o.batch;
    }));
    return { phases, rss: broker.rssMiB() };
  } finally {
    await producer.disconnect().catch(() => undefined);
    await broker.stop();
  }
}

const reps = await runReps(o.reps, rep);
const m = (i: number, f: (p: Phase) => number) => phaseMedian(reps, i, f);
console.log(`\nmedians of ${o.reps} reps, ${o.duration} s a mode, ${o.concurrency} requests in flight, ${o.partitions} partitions, acks=all`);
printPhaseTable(reps, 'mode', 'records');
console.log('\n| shape | REST records/s | kafkajs records/s | REST / kafkajs |');
console.log('|---|---|---|---|');
for (const [label, rest, kjs] of [['1 record a request', 0, 2], [`${o.batch} records a request`, 1, 3]] as const) {
  const a = m(rest, (p) => p.rate);
  const k = m(kjs, (p) => p.rate);
  console.log(`| ${label} | ${a.toFixed(0)} | ${k.toFixed(0)} | ${(a / k).toFixed(2)} |`);
}
console.log(`broker RSS after: ${median(reps.map((r) => r.rss)).toFixed(0)} MiB`);
