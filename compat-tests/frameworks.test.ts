/**
 * The frameworks people run on Kafka, against Samsa and against a real Apache Kafka 4.4
 * (tools/kafka; its side skipped where it cannot run, a failure under CI), with the same
 * assertions on both (compat-tests/frameworks/):
 * - Kafka Streams 4.4, exactly_once_v2, classic group protocol: a stateful word count (a
 *   repartition topic, a changelog) counts half its input, is SIGKILLed inside the other half's transaction and restarted; a read_committed reader sees
 *   each word's counts 1..n exactly once (frameworks/streams.ts).
 * - Kafka Connect 4.4 in distributed mode: a worker with its compacted config, offset and status
 *   topics in a `connect` group, a file source and a file sink connector (FileLines.java), stopped
 *   and started again half-way; the sink file holds every line once, in order; then, with
 *   exactly-once source support, SIGKILLed and started again: the topic holds every line once
 *   (frameworks/connect.ts).
 * The rows of docs/compat-matrix.md's "Frameworks" table (and the README's) are written from what
 * ran here, when both brokers ran (frameworks/matrix.ts). MirrorMaker 2 runs in
 * compat-tests/mirror-maker.test.ts (it needs both brokers at once).
 * - Kafka Streams on its own group protocol (KIP-1071, `group.protocol=streams`): the word count
 *   runs to the end on both, each count once (Samsa's streams groups: coordinator/group/streams-*).
 * Kafka's side is recorded (compat-tests/lib/kafka-verdicts.ts): while this file, what it imports,
 * the frameworks' sources (compat-tests/frameworks/) and the Kafka release are unchanged, Kafka's
 * recorded passes stand (and fill its column of the table) and Kafka is not started.
 * @samsa-timeout 400
 * @samsa-long (2-3.5 minutes on a busy 2-core machine: it starts first among compat-tests/)
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunningKafka } from '../tools/kafka/kafka.js';
import { javaMissing } from '../tools/kafka/kafka.js';
import { kafkaOrSkip } from '../test/support/kafka.js';
import { startBroker, type RunningBroker } from '../src/testing/start-broker.js';
import { LINES, streamsProtocolWordCount, streamsWordCount, type StreamsOutcome } from './frameworks/streams.js';
import { connectDistributed, type ConnectOutcome } from './frameworks/connect.js';
import { writeFrameworkRows, type Cell } from './frameworks/matrix.js';
import { recordedPass, recordPass, verdictFingerprint } from './lib/kafka-verdicts.js';

const missing = javaMissing();
const VERDICT = 'frameworks';
const fingerprint = verdictFingerprint('compat-tests/frameworks.test.ts', ['compat-tests/frameworks']);
const recorded = recordedPass(VERDICT, fingerprint);
let samsa: RunningBroker | null = null;
let kafka: RunningKafka | null = null;
const verbose = process.env.SAMSA_FRAMEWORKS_LOG === '1';
const log = (l: string) => {
  if (verbose) console.log(l);
};

test.before(async () => {
  if (missing) {
    console.log(`frameworks: skipped: ${missing}`);
    return;
  }
  if (recorded) console.log(`frameworks: Kafka's passes recorded ${recorded.recordedAt} (compat-tests/kafka-verdicts.json: the inputs are unchanged): ${recorded.tests.join('; ')}`);
  [samsa, kafka] = await Promise.all([
    startBroker({ port: 0, 'group.initial.rebalance.delay.ms': 0 }),
    // One partition each for __consumer_offsets and __transaction_state (50 by default): quicker to create.
    recorded ? null : kafkaOrSkip('frameworks', { overrides: { 'offsets.topic.num.partitions': '1', 'transaction.state.log.num.partitions': '1' } }),
  ]);
  for (const row of recorded?.tests ?? []) mark(row, 'kafka', 'pass');
});

/** framework row -> broker -> what the test saw; a test marks 'fail' first and 'pass' at its end. */
const cells = new Map<string, { samsa: Cell; kafka: Cell }>();
const mark = (row: string, broker: 'samsa' | 'kafka', cell: Cell) => cells.set(row, { ...(cells.get(row) ?? { samsa: 'not run', kafka: 'not run' }), [broker]: cell });
const STREAMS = 'Kafka Streams 4.4, exactly_once_v2';
const CONNECT = 'Kafka Connect 4.4, distributed';
const STREAMS_PROTOCOL = 'Kafka Streams 4.4, streams group protocol (KIP-1071)';

test.after(async () => {
  await Promise.all([samsa?.stop(), kafka?.stop()]);
  const kafkaRows = [STREAMS, STREAMS_PROTOCOL, CONNECT];
  if (kafka && kafkaRows.every((r) => cells.get(r)?.kafka === 'pass')) recordPass(VERDICT, fingerprint, kafkaRows);
  if (!samsa || !(kafka || recorded) || cells.size < 2) return;
  const row = (name: string) => cells.get(name) ?? { samsa: 'not run' as Cell, kafka: 'not run' as Cell };
  writeFrameworkRows([
    { framework: STREAMS, ...row(STREAMS), note: 'a word count (groupBy: a repartition topic; count: a RocksDB store and its changelog), classic group protocol, SIGKILLed inside a transaction after half its input was committed, restarted on its state directory: each word\'s counts 1..n exactly once, read_committed' },
    { framework: STREAMS_PROTOCOL, ...row(STREAMS_PROTOCOL), note: 'the same word count, exactly_once_v2, with `group.protocol=streams` (StreamsGroupHeartbeat: the broker creates the repartition and changelog topics and assigns the tasks), run to the end of its input: each count once' },
    { framework: CONNECT, ...row(CONNECT), note: 'a worker (compacted config, offset and status topics; the `connect` group protocol) with a file source and a file sink connector (compat-tests/frameworks/FileLines.java), stopped and started half-way: every line once, in order; then exactly-once source support (KIP-618) through a SIGKILLed worker: the topic read_committed holds every line once, the sink every line at least once' },
  ]);
});

/** 1,2,3,7,8 -> "1-3 7-8": a sequence of counts in short. */
const runs = (xs: number[] | undefined): string => {
  if (!xs) return 'nothing';
  const out: string[] = [];
  let from = 0;
  for (let i = 1; i <= xs.length; i++) {
    if (i === xs.length || xs[i] !== xs[i - 1] + 1) {
      out.push(from === i - 1 ? `${xs[from]}` : `${xs[from]}-${xs[i - 1]}`);
      from = i;
    }
  }
  return out.join(' ');
};

function checkExactlyOnce(o: StreamsOutcome, broker: string): void {
  assert.ok(o.seenAtKill >= o.firstHalf && o.seenAtKill < o.totalIncrements, `${broker}: killed inside the second half: the first half's counts committed, not all of the second's (${o.seenAtKill} seen, ${o.firstHalf} in the first half, ${o.totalIncrements} in all)`);
  assert.is(o.inputRecords, LINES, `${broker}: the input lines, each once`);
  for (const [word, n] of Object.entries(o.expected)) {
    assert.equal(o.counts[word], Array.from({ length: n }, (_, i) => i + 1), `${broker}: the counts of ${word}, read_committed by the Java consumer: ${runs(o.counts[word])}; kafkajs saw ${runs(o.kafkajsCounts[word])}; the instances said:\n${o.stderr.join('\n----\n')}`);
  }
  assert.equal(Object.keys(o.counts).sort(), Object.keys(o.expected).sort(), `${broker}: no other keys`);
  const topics = Object.entries(o.internalTopics);
  assert.ok(topics.some(([t, policy]) => t.endsWith('-words-repartition') && policy === 'delete'), `${broker}: the repartition topic: ${JSON.stringify(o.internalTopics)}`);
  assert.ok(topics.some(([t, policy]) => t.endsWith('-word-counts-changelog') && policy === 'compact'), `${broker}: the changelog topic: ${JSON.stringify(o.internalTopics)}`);
}

const report = (broker: string, o: StreamsOutcome) =>
  console.log(`frameworks: Streams EOS v2 on ${broker}: killed at ${o.seenAtKill}/${o.totalIncrements} committed counts, first run ${o.ms.firstRun} ms, restart to the end ${o.ms.secondRun} ms, ${o.ms.total} ms in all; output end offsets ${o.outputEndOffsets}`);

test('Kafka Streams 4.4, exactly_once_v2: a word count killed inside a transaction and restarted counts each word exactly once (Samsa)', async () => {
  if (!samsa) return;
  mark(STREAMS, 'samsa', 'fail');
  // What the transactions looked like on the wire (transactions V2: EndTxn v5, no AddPartitionsToTxn), for the log.
  const rec = samsa.control.record({ apiKeys: ['EndTxn', 'AddPartitionsToTxn', 'InitProducerId'] });
  const o = await streamsWordCount(samsa.bootstrap, 'samsa', log);
  rec.stop();
  const versions = (api: 'EndTxn' | 'AddPartitionsToTxn' | 'InitProducerId') => [...new Set(rec.of(api).map((e) => e.apiVersion))].join(',') || '-';
  console.log(`frameworks: Streams on Samsa sent EndTxn ${rec.of('EndTxn').length}x (v${versions('EndTxn')}), AddPartitionsToTxn ${rec.of('AddPartitionsToTxn').length}x, InitProducerId ${rec.of('InitProducerId').length}x (v${versions('InitProducerId')})`);
  report('Samsa', o);
  checkExactlyOnce(o, 'Samsa');
  mark(STREAMS, 'samsa', 'pass');
});

test('Kafka Streams 4.4, exactly_once_v2: the same on Kafka 4.4', async () => {
  if (!kafka) return;
  mark(STREAMS, 'kafka', 'fail');
  const o = await streamsWordCount(kafka.bootstrap, 'kafka', log);
  report('Kafka', o);
  checkExactlyOnce(o, 'Kafka');
  mark(STREAMS, 'kafka', 'pass');
});

async function streamsProtocol(bootstrap: string, broker: 'samsa' | 'kafka', name: string): Promise<void> {
  mark(STREAMS_PROTOCOL, broker, 'fail');
  const o = await streamsProtocolWordCount(bootstrap, broker, log);
  assert.ok(o.counted, `${name}: ${JSON.stringify(o).slice(0, 600)}`);
  if (!o.counted) return;
  console.log(`frameworks: Streams on the streams group protocol on ${name}: ${o.ms} ms`);
  for (const [word, n] of Object.entries(o.expected)) assert.equal(o.counts[word], Array.from({ length: n }, (_, i) => i + 1), `${name}: the counts of ${word}: ${runs(o.counts[word])}`);
  mark(STREAMS_PROTOCOL, broker, 'pass');
}

test('Kafka Streams 4.4, group.protocol=streams (KIP-1071): a word count counts each word exactly once (Samsa)', async () => {
  if (samsa) await streamsProtocol(samsa.bootstrap, 'samsa', 'Samsa');
});

test('Kafka Streams 4.4, group.protocol=streams (KIP-1071): the same on Kafka 4.4', async () => {
  if (kafka) await streamsProtocol(kafka.bootstrap, 'kafka', 'Kafka');
});

function checkConnect(o: ConnectOutcome, broker: string): void {
  assert.equal(o.sinkLines, o.expectedLines, `${broker}: after the graceful restart the sink file holds every line once, in order`);
  assert.ok(o.sinkAtKill < o.allLines.length, `${broker}: killed before the sink had every line (${o.sinkAtKill})`);
  assert.equal(o.topicLines, o.allLines, `${broker}: exactly-once source through the SIGKILL: the topic read_committed holds every line once, in order`);
  assert.equal([...new Set(o.finalSinkLines)], o.allLines, `${broker}: the sink file has every line at least once, in order`);
  assert.equal(Object.values(o.internalTopics), ['compact', 'compact', 'compact'], `${broker}: the config, offset and status topics: ${JSON.stringify(o.internalTopics)}`);
  assert.equal(o.group, { protocolType: 'connect', state: 'Stable', members: 1 }, `${broker}: the worker group`);
  for (const [name, s] of Object.entries(o.statusAfterRestart)) assert.equal(s, { connector: 'RUNNING', tasks: ['RUNNING'] }, `${broker}: ${name} after the restart`);
}

const reportConnect = (broker: string, o: ConnectOutcome) =>
  console.log(`frameworks: Connect distributed on ${broker}: first start to RUNNING ${o.ms.firstStart} ms, restart to the last line ${o.ms.restart} ms, ${o.ms.total} ms in all; killed with ${o.sinkAtKill} lines in the sink, which ended with ${o.finalSinkLines.length} lines for ${o.allLines.length}`);

test('Kafka Connect 4.4 distributed: file source and sink through a worker restart, every line once (Samsa)', async () => {
  if (!samsa) return;
  mark(CONNECT, 'samsa', 'fail');
  const o = await connectDistributed(samsa.bootstrap, 'samsa', log);
  reportConnect('Samsa', o);
  checkConnect(o, 'Samsa');
  mark(CONNECT, 'samsa', 'pass');
});

test('Kafka Connect 4.4 distributed: the same on Kafka 4.4', async () => {
  if (!kafka) return;
  mark(CONNECT, 'kafka', 'fail');
  const o = await connectDistributed(kafka.bootstrap, 'kafka', log);
  reportConnect('Kafka', o);
  checkConnect(o, 'Kafka');
  mark(CONNECT, 'kafka', 'pass');
});

test.run();
