/**
 * Kafka Streams 4.4 with exactly_once_v2 against one broker (WordCount.java): a stateful word
 * count whose instance is SIGKILLed half-way through its input and started again on the same
 * state directory. What it observed is returned for the caller to judge; it throws only when the
 * run itself breaks (the application fails, or a deadline passes).
 *
 * 1. Input: LINES lines of 2-5 words from a vocabulary of ten, on a 2-partition topic (kafkajs),
 *    in two halves.
 * 2. The application (groupBy: a repartition topic; count: a RocksDB store with a changelog topic;
 *    the record cache off, so every increment is an output record) counts the first half, which a
 *    read_committed consumer of the output sees whole. Then the second half is produced, and once
 *    the consumer has seen a count of it committed, or the application has split all but 40 of
 *    the lines (it says so every 5 lines; each costs it 15 ms), it is SIGKILLed: its open
 *    transaction, holding repartition records and maybe changelog and output records, is left
 *    behind.
 * 3. Started again with the same state directory (so the same process id, hence the same
 *    transactional id: InitProducerId fences the killed producer and aborts its transaction), it
 *    restores the store from the changelog (the committed counts; nothing of the aborted
 *    transaction) and goes on from its committed offsets.
 * 4. Exactly once, as the Java consumer reads the output read_committed afterwards (and kafkajs's
 *    read_committed consumer saw it during the run): for each word the counts are 1, 2, ...,
 *    its number of occurrences, each once and in order (an increment lost, repeated after the
 *    kill, or counted from a store that kept an aborted update breaks that sequence).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import kafkajs from 'kafkajs';
import { startJvm, stopJvm, type JvmProcess } from './jvm.js';

const { Kafka, logLevel } = kafkajs;

const VOCABULARY = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliett'];
export const LINES = 300;

/** The input lines (deterministic) and each word's number of occurrences. */
export function wordCountInput(lines = LINES): { lines: string[]; expected: Map<string, number> } {
  const out: string[] = [];
  const expected = new Map<string, number>();
  for (let i = 0; i < lines; i++) {
    const words = Array.from({ length: 2 + (i % 4) }, (_, j) => VOCABULARY[(i * 7 + j * 3) % VOCABULARY.length]);
    for (const w of words) expected.set(w, (expected.get(w) ?? 0) + 1);
    out.push(words.join(' '));
  }
  return { lines: out, expected };
}

export interface StreamsOutcome {
  /** Each word's counts in the order the Java consumer, read_committed, reads them after the run. */
  counts: Record<string, number[]>;
  /** The same as kafkajs's read_committed consumer saw them during the run. */
  kafkajsCounts: Record<string, number[]>;
  expected: Record<string, number>;
  /** Increments the read_committed consumer had seen when the instance was killed: the first half's. */
  seenAtKill: number;
  /** The first half's increments. */
  firstHalf: number;
  totalIncrements: number;
  /** The input topic's records (LINES unless a send was repeated). */
  inputRecords: number;
  /** The tail of each Streams instance's log (warnings and errors). */
  stderr: string[];
  /** The output topic's end offsets added up: its records, aborted ones included, and the transaction markers. */
  outputEndOffsets: number;
  /** The internal topics Streams created, with their cleanup.policy. */
  internalTopics: Record<string, string>;
  /** Wall time of the phases, ms. */
  ms: { firstRun: number; secondRun: number; total: number };
}

const deadline = async <T>(p: Promise<T>, ms: number, what: string): Promise<T> => {
  let t: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, rej) => { t = setTimeout(() => rej(new Error(`${what}: no answer within ${ms} ms`)), ms); })]);
  } finally {
    clearTimeout(t);
  }
};

/** Runs the scenario against `bootstrap`; `tag` keeps topic and application names apart. */
export async function streamsWordCount(bootstrap: string, tag: string, log: (l: string) => void = () => {}): Promise<StreamsOutcome> {
  const started = Date.now();
  const appId = `wc-${tag}`;
  const inTopic = `${appId}-lines`;
  const outTopic = `${appId}-counts`;
  const { lines, expected } = wordCountInput();
  const half = lines.length / 2;
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  const totalIncrements = sum(expected);
  const firstHalf = sum(wordCountInput(half).expected);
  const kafka = new Kafka({ clientId: `${appId}-check`, brokers: [bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  // Idempotent: a retried send must not add input lines.
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  const committed = kafka.consumer({ groupId: `${appId}-check`, readUncommitted: false });
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'samsa-streams-'));
  const counts: Record<string, number[]> = {};
  let seen = 0;
  const stderrs: string[] = [];
  let app: JvmProcess | null = null;
  try {
    await admin.connect();
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic: inTopic, numPartitions: 2, replicationFactor: 1 }, { topic: outTopic, numPartitions: 2, replicationFactor: 1 }] });
    await producer.connect();
    const produce = (from: number, to: number) => producer.send({ topic: inTopic, acks: -1, messages: lines.slice(from, to).map((value, i) => ({ key: `line-${from + i}`, value })) });
    await produce(0, half);

    await committed.connect();
    await committed.subscribe({ topic: outTopic, fromBeginning: true });
    let progress: () => void = () => {};
    await committed.run({
      eachMessage: async ({ message }) => {
        const word = message.key!.toString();
        (counts[word] ??= []).push(Number(message.value!.readBigInt64BE(0)));
        seen++;
        progress();
      },
    });
    const until = (pred: () => boolean, ms: number, what: string, p: JvmProcess) =>
      deadline(new Promise<void>((resolve, reject) => {
        progress = () => { if (pred()) resolve(); };
        progress();
        void p.exited.then((e) => reject(new Error(`the Streams instance exited (${e.code ?? e.signal}) ${what}: ${JSON.stringify(p.lines.slice(-5))}\n${e.stderr.slice(-3000)}`)));
      }), ms, what);

    // First run: the first half, committed; then killed inside the second half's transaction.
    const t1 = Date.now();
    app = await startJvm('WordCount', [bootstrap, appId, stateDir, inTopic, outTopic], { onLine: (l) => log(`streams 1 (${Date.now() - t1} ms, ${seen} counts seen): ${l}`) });
    await until(() => seen >= firstHalf, 90_000, 'before the first half was counted', app);
    await produce(half, lines.length);
    // Streams may also commit the second half at its end: then the kill comes with 40 lines left to split.
    const nearEnd = LINES - 40;
    await Promise.race([
      until(() => seen > firstHalf, 90_000, 'before a count of the second half was committed', app),
      app.line((l) => typeof l.lines === 'number' && l.lines >= nearEnd),
    ]);
    app.kill('SIGKILL');
    stderrs.push((await app.exited).stderr.slice(-3000));
    const seenAtKill = seen;
    const firstRun = Date.now() - t1;
    log(`streams: killed after ${seenAtKill} of ${totalIncrements} committed increments (${firstRun} ms)`);

    // Second run on the same state directory, to the end of the input.
    const t2 = Date.now();
    app = await startJvm('WordCount', [bootstrap, appId, stateDir, inTopic, outTopic], { onLine: (l) => log(`streams 2 (${Date.now() - t2} ms, ${seen} counts seen): ${l}`) });
    const complete = () => [...expected].every(([w, n]) => (counts[w]?.at(-1) ?? 0) >= n);
    await until(complete, 120_000, 'before every word reached its count', app);
    const secondRun = Date.now() - t2;
    const stopped = await stopJvm(app);
    stderrs.push(stopped.stderr.slice(-3000));
    app = null;
    if (stopped.code !== 0 && stopped.code !== 143) log(`streams: the second instance exited ${stopped.code ?? stopped.signal} on SIGTERM\n${stopped.stderr.slice(-2000)}`);
    await committed.stop();
    const reader = await startJvm('WordCount', ['read', bootstrap, outTopic]);
    const javaCounts = (await deadline(reader.line((l) => 'counts' in l), 60_000, 'the Java read_committed reader')).counts as Record<string, number[]>;
    await reader.exited;

    const ends = await admin.fetchTopicOffsets(outTopic);
    const inputRecords = (await admin.fetchTopicOffsets(inTopic)).reduce((a, p) => a + Number(p.high), 0);
    const internal = (await admin.listTopics()).filter((t) => t.startsWith(`${appId}-`) && t !== inTopic && t !== outTopic).sort();
    const configs = internal.length === 0 ? { resources: [] } : await admin.describeConfigs({ includeSynonyms: false, resources: internal.map((name) => ({ type: 2, name, configNames: ['cleanup.policy'] })) });
    const internalTopics = Object.fromEntries(configs.resources.map((r) => [r.resourceName, r.configEntries.find((c) => c.configName === 'cleanup.policy')?.configValue ?? '?']));
    return {
      counts: javaCounts,
      kafkajsCounts: counts,
      expected: Object.fromEntries(expected),
      seenAtKill,
      firstHalf,
      totalIncrements,
      inputRecords,
      stderr: stderrs,
      outputEndOffsets: ends.reduce((a, p) => a + Number(p.high), 0),
      internalTopics,
      ms: { firstRun, secondRun, total: Date.now() - started },
    };
  } finally {
    if (app) {
      app.kill('SIGKILL');
      await app.exited;
    }
    await committed.disconnect().catch(() => {});
    await producer.disconnect().catch(() => {});
    await admin.disconnect().catch(() => {});
    rmSync(stateDir, { recursive: true, force: true });
  }
}

export type StreamsProtocolOutcome =
  | { counted: true; counts: Record<string, number[]>; expected: Record<string, number>; ms: number }
  | { counted: false; error: string; ms: number };

/**
 * The same word count on Streams' own group protocol (KIP-1071, `group.protocol=streams`), run
 * once to the end of its input (no kill: a vanished streams-group member is held for the broker's
 * `group.streams.session.timeout.ms`). Where the broker does not serve streams groups the
 * application fails (UnsupportedVersionException): the error it reported is returned.
 */
export async function streamsProtocolWordCount(bootstrap: string, tag: string, log: (l: string) => void = () => {}): Promise<StreamsProtocolOutcome> {
  const started = Date.now();
  const appId = `wcs-${tag}`;
  const inTopic = `${appId}-lines`;
  const outTopic = `${appId}-counts`;
  const { lines, expected } = wordCountInput(60);
  const kafka = new Kafka({ clientId: `${appId}-check`, brokers: [bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  const committed = kafka.consumer({ groupId: `${appId}-check`, readUncommitted: false });
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'samsa-streams-'));
  let app: JvmProcess | null = null;
  try {
    await admin.connect();
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic: inTopic, numPartitions: 2, replicationFactor: 1 }, { topic: outTopic, numPartitions: 2, replicationFactor: 1 }] });
    await producer.connect();
    await producer.send({ topic: inTopic, acks: -1, messages: lines.map((value, i) => ({ key: `line-${i}`, value })) });
    app = await startJvm('WordCount', [bootstrap, appId, stateDir, inTopic, outTopic, 'streams'], { onLine: (l) => log(`streams protocol: ${l}`) });
    const total = [...expected.values()].reduce((a, b) => a + b, 0);
    const failed = app.line((l) => 'error' in l || l.state === 'ERROR');
    failed.catch(() => {});
    // Done when a read_committed consumer has seen every increment: then the output is read back.
    let seen = 0;
    let allSeen: () => void = () => {};
    const done = new Promise<void>((r) => { allSeen = r; });
    await committed.connect();
    await committed.subscribe({ topic: outTopic, fromBeginning: true });
    await committed.run({ eachMessage: async () => { if (++seen >= total) allSeen(); } });
    const first = await deadline(Promise.race([failed.then((l) => ({ failed: l })), done.then(() => null)]), 90_000, 'the streams-protocol word count');
    await committed.stop();
    if (first) {
      const error = String(first.failed.error ?? app.lines.find((l) => 'error' in l)?.error ?? `state ${String(first.failed.state)}`);
      return { counted: false, error, ms: Date.now() - started };
    }
    await stopJvm(app);
    app = null;
    const reader = await startJvm('WordCount', ['read', bootstrap, outTopic]);
    const counts = (await deadline(reader.line((l) => 'counts' in l), 60_000, 'the Java read_committed reader')).counts as Record<string, number[]>;
    await reader.exited;
    return { counted: true, counts, expected: Object.fromEntries(expected), ms: Date.now() - started };
  } finally {
    if (app) {
      app.kill('SIGKILL');
      await app.exited;
    }
    await committed.disconnect().catch(() => {});
    await producer.disconnect().catch(() => {});
    await admin.disconnect().catch(() => {});
    rmSync(stateDir, { recursive: true, force: true });
  }
}
