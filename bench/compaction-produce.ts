/**
 * Produce latency through the network while the log cleaner runs, against the same without
 * cleaning, in one run: a Samsa broker in a child process on a temp dir, kafkajs as the client in
 * this one. Two compacted topics
 * are filled with MiB of 100-byte values over 20,000 keys (8 MiB segments); then a kafkajs
 * producer sends one 1 KiB record at a time (acks=-1) to a compacted topic:
 *
 *   off         no pass running (as long as the longer of the passes below took)
 *   event-loop  while a pass copies on the broker's event loop (the cleaner without worker threads)
 *   worker      while a pass copies in a worker thread (what the broker does on real files)
 *
 * and prints p50/p99/max of the send latency and the ratio of each p99 to the one without
 * cleaning. The passes are started by the bench through IPC (the broker's own cleaner waits an
 * hour), so each covers the whole filled topic.
 *
 *   npx tsx bench/compaction-produce.ts [MiB per topic]
 *   SAMSA_CLEANER_NORMAL_PRIORITY=1 npx tsx bench/compaction-produce.ts   the worker without its lower priority
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import kafkajs from 'kafkajs';
import { startBroker } from '../src/testing/start-broker.js';
import { LogCleaner } from '../src/storage/log-cleaner.js';
import { nodeFs } from '../src/storage/fs.js';
import { systemClock } from '../src/clock.js';

interface CleanRequest { topic: string; workerThreads: boolean }
interface CleanReply { ms: number; segments: number }

/** The broker side: starts a broker, reports its port, runs the passes it is asked for. */
async function brokerProcess(): Promise<void> {
  const b = await startBroker({ config: { 'log.cleaner.backoff.ms': 3_600_000 } });
  process.on('message', (req: CleanRequest | 'stop') => {
    if (req === 'stop') {
      void b.stop().then(() => process.exit(0));
      return;
    }
    const log = b.broker.logs.getLog(req.topic, 0)!;
    const cleaner = req.workerThreads ? b.broker.logs.cleaner! : new LogCleaner({ fs: nodeFs, clock: systemClock, logs: () => [log], workerThreads: false });
    if (cleaner.usesWorkerThreads !== req.workerThreads) throw new Error(`cleaner workerThreads ${cleaner.usesWorkerThreads}`);
    const t = performance.now();
    void cleaner.clean(log).then(async (stats) => {
      if (!req.workerThreads) await cleaner.stop();
      process.send!({ ms: performance.now() - t, segments: stats?.segmentsCleaned ?? 0 } satisfies CleanReply);
    });
  });
  process.send!({ port: b.port });
}

const { Kafka, logLevel } = kafkajs;

function summary(xs: number[]): { p50: number; p99: number; max: number; n: number } {
  const s = [...xs].sort((a, c) => a - c);
  const q = (p: number): number => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
  return { p50: q(0.5), p99: q(0.99), max: s[s.length - 1] ?? 0, n: s.length };
}

async function clientProcess(mib: number): Promise<void> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--broker'], { execArgv: process.execArgv, stdio: 'inherit' });
  const replies: ((m: unknown) => void)[] = [];
  child.on('message', (m) => replies.shift()?.(m));
  const next = <T>(): Promise<T> => new Promise((resolve) => replies.push(resolve as (m: unknown) => void));
  const { port } = await next<{ port: number }>();
  const kafka = new Kafka({ clientId: 'compaction-bench', brokers: [`localhost:${port}`], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  const producer = kafka.producer({ allowAutoTopicCreation: false });

  const fill = async (topic: string): Promise<void> => {
    const value = Buffer.alloc(100, 7);
    let n = 0;
    for (let bytes = 0; bytes < mib << 20; bytes += 2000 * 130) {
      const messages = Array.from({ length: 2000 }, () => ({ key: `key-${(n++ * 7919) % 20000}`, value }));
      await producer.send({ topic, acks: -1, messages });
    }
  };
  /** Sends one record at a time until `until` settles (or for `forMs`); each send's latency in ms. */
  const sendLatencies = async (topic: string, until: Promise<unknown> | null, forMs: number): Promise<number[]> => {
    let done = false;
    if (until) void until.finally(() => { done = true; });
    else setTimeout(() => { done = true; }, forMs);
    const value = Buffer.alloc(1000, 1);
    const out: number[] = [];
    let i = 0;
    while (!done) {
      const t = performance.now();
      await producer.send({ topic, acks: -1, messages: [{ key: `live-${i++ % 1000}`, value }] });
      out.push(performance.now() - t);
    }
    return out;
  };
  const clean = (topic: string, workerThreads: boolean): Promise<CleanReply> => {
    const reply = next<CleanReply>();
    child.send({ topic, workerThreads } satisfies CleanRequest);
    return reply;
  };

  try {
    await admin.connect();
    await producer.connect();
    const topics = ['table-a', 'table-b'];
    await admin.createTopics({
      waitForLeaders: true,
      topics: topics.map((topic) => ({
        topic, numPartitions: 1,
        configEntries: [{ name: 'cleanup.policy', value: 'compact' }, { name: 'segment.bytes', value: String(8 << 20) }],
      })),
    });
    const t0 = performance.now();
    for (const t of topics) await fill(t);
    console.log(`filled ${topics.length} × ${mib} MiB in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    await sendLatencies('table-a', null, 1000); // warm-up

    const passA = clean('table-a', false);
    const loop = summary(await sendLatencies('table-a', passA, 0));
    const a = await passA;
    const passB = clean('table-b', true);
    const worker = summary(await sendLatencies('table-b', passB, 0));
    const w = await passB;
    const off = summary(await sendLatencies('table-a', null, Math.max(a.ms, w.ms)));
    const rows: [string, ReturnType<typeof summary>, string][] = [
      ['off', off, ''],
      ['event-loop', loop, `pass ${a.ms.toFixed(0)} ms, ${a.segments} segments`],
      ['worker', worker, `pass ${w.ms.toFixed(0)} ms, ${w.segments} segments`],
    ];
    for (const [name, s, note] of rows) {
      console.log(
        `${name.padEnd(10)} produce n=${s.n} p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms, max ${s.max.toFixed(1)} ms; ` +
          `p99 ratio to off ${(s.p99 / off.p99).toFixed(2)}${note ? `; ${note}` : ''}`,
      );
    }
  } finally {
    await producer.disconnect().catch(() => undefined);
    await admin.disconnect().catch(() => undefined);
    child.send('stop');
    await new Promise((r) => child.once('exit', r));
  }
}

if (process.argv.includes('--broker')) await brokerProcess();
else await clientProcess(Number(process.argv[2] ?? 64));
