/**
 * The Schema Registry's request rates through the paths serializers take on a cache miss.
 *
 *   npm run bench:schema-registry [-- --reps 3 --duration 5 --concurrency 16 --schemas 200]
 *
 * Per rep: a fresh broker process (dist/samsa.js) with its HTTP listener; this process registers
 * --schemas distinct Avro schemas over 20 subjects (8 at a time: each one an acks=all append to
 * `_schemas`), then for --duration seconds each, with --concurrency requests in flight over
 * keep-alive connections:
 * - by id:       GET /schemas/ids/{id}            (a deserializer meeting a new id)
 * - re-register: POST /subjects/{s}/versions      (a serializer with auto.register.schemas: the
 *                schema is parsed and found, no write)
 * - lookup:      POST /subjects/{s}               (a serializer with use.latest/lookup)
 * - protobuf re-register: the same with a Protobuf schema (its parser is the slowest)
 * Printed: requests/s, p50 and p99 latency, broker CPU-ms per 1,000 requests; then the medians
 * over reps and the broker's RSS. No assertions: it prints what it measured.
 */
import { median, percentile, startSamsa, freePort } from './lib/proc.js';
import { closeHttpClient, httpCall } from './lib/http-client.js';
import { printPhaseTable, runReps, type Phase } from './lib/phases.js';

function option(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : def;
}
const o = { reps: option('reps', 3), duration: option('duration', 5), concurrency: option('concurrency', 16), schemas: option('schemas', 200) };
const CT = 'application/vnd.schemaregistry.v1+json';

const avro = (i: number) => JSON.stringify({ type: 'record', name: `Rec${i}`, namespace: 'bench', fields: [{ name: 'id', type: 'long' }, { name: `f${i}`, type: 'string', default: '' }, { name: 'tags', type: { type: 'array', items: 'string' }, default: [] }] });
const PROTO = 'syntax = "proto3";\npackage bench;\n\nmessage Reading {\n  string sensor = 1;\n  double value = 2;\n  repeated string tags = 3;\n  map<string, int64> counters = 4;\n  oneof origin { string host = 5; int32 rack = 6; }\n}\n';

async function post(url: string, body: unknown): Promise<number> {
  const res = await httpCall('POST', url, JSON.stringify(body), CT);
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${res.text}`);
  return res.status;
}


async function drive(name: string, seconds: number, cpu: () => number, request: (i: number) => Promise<unknown>): Promise<Phase> {
  const lat: number[] = [];
  const end = performance.now() + seconds * 1000;
  const cpu0 = cpu();
  let n = 0;
  const worker = async () => {
    while (performance.now() < end) {
      const t = performance.now();
      await request(n++);
      lat.push(performance.now() - t);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  const elapsed = (performance.now() - t0) / 1000;
  return { name, rate: lat.length / elapsed, p50: percentile(lat, 50), p99: percentile(lat, 99), cpuMsPer1k: ((cpu() - cpu0) * 1000 * 1000) / lat.length };
}

async function rep(): Promise<{ phases: Phase[]; rss: number }> {
  const httpPort = await freePort();
  const broker = await startSamsa({ overrides: { 'samsa.http.listeners': `http://127.0.0.1:${httpPort}` } });
  const base = `http://127.0.0.1:${httpPort}`;
  try {
    const phases: Phase[] = [];
    // Every schema differs from the subject's last (another record name): no compatibility to check.
    await httpCall('PUT', `${base}/config`, JSON.stringify({ compatibility: 'NONE' }), CT);
    // Registrations: writes, 8 at a time.
    const t0 = performance.now();
    const cpu0 = broker.cpuSeconds();
    let next = 0;
    const lat: number[] = [];
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next < o.schemas) {
        const i = next++;
        const t = performance.now();
        await post(`${base}/subjects/s${i % 20}-value/versions`, { schema: avro(i) });
        lat.push(performance.now() - t);
      }
    }));
    const secs = (performance.now() - t0) / 1000;
    phases.push({ name: 'register (new)', rate: o.schemas / secs, p50: percentile(lat, 50), p99: percentile(lat, 99), cpuMsPer1k: ((broker.cpuSeconds() - cpu0) * 1e6) / o.schemas });
    const cpu = () => broker.cpuSeconds();
    phases.push(await drive('GET /schemas/ids/{id}', o.duration, cpu, async (i) => {
      await httpCall('GET', `${base}/schemas/ids/${(i % o.schemas) + 1}`);
    }));
    phases.push(await drive('re-register (avro)', o.duration, cpu, (i) => post(`${base}/subjects/s${i % 20}-value/versions`, { schema: avro(i % 20) })));
    phases.push(await drive('lookup POST /subjects/{s}', o.duration, cpu, (i) => post(`${base}/subjects/s${i % 20}-value`, { schema: avro(i % 20) })));
    await post(`${base}/subjects/proto-value/versions`, { schema: PROTO, schemaType: 'PROTOBUF' });
    phases.push(await drive('re-register (protobuf)', o.duration, cpu, () => post(`${base}/subjects/proto-value/versions`, { schema: PROTO, schemaType: 'PROTOBUF' })));
    return { phases, rss: broker.rssMiB() };
  } finally {
    await broker.stop();
  }
}

const reps = await runReps(o.reps, rep);
console.log(`\nmedians of ${o.reps} reps, ${o.concurrency} in flight (register: 8), ${o.schemas} schemas`);
printPhaseTable(reps, 'path', 'requests');
console.log(`broker RSS after: ${median(reps.map((r) => r.rss)).toFixed(0)} MiB`);
closeHttpClient();
