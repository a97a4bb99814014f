/**
 * The frameworks people run on Kafka, against Samsa and against a real Apache Kafka 4.4
 * (tools/kafka; its side skipped where it cannot run, a failure under CI), with the same
 * assertions on both (compat-tests/frameworks/):
 * - Kafka Streams 4.4, exactly_once_v2, classic group protocol: a stateful word count (a
 *   repartition topic, a changelog) SIGKILLed half-way and restarted; a read_committed reader sees
 *   each word's counts 1..n exactly once (frameworks/streams.ts).
 * The rows of docs/compat-matrix.md's "Frameworks" table are written from what ran here.
 * @samsa-timeout 400
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunningKafka } from '../tools/kafka/kafka.js';
import { javaMissing } from '../tools/kafka/kafka.js';
import { kafkaOrSkip } from '../test/support/kafka.js';
import { startBroker, type RunningBroker } from '../src/testing/start-broker.js';
import { streamsWordCount, type StreamsOutcome } from './frameworks/streams.js';

const missing = javaMissing();
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
  [samsa, kafka] = await Promise.all([
    startBroker({ port: 0, 'group.initial.rebalance.delay.ms': 0 }),
    // One partition each for __consumer_offsets and __transaction_state (50 by default): quicker to create.
    kafkaOrSkip('frameworks', { overrides: { 'offsets.topic.num.partitions': '1', 'transaction.state.log.num.partitions': '1' } }),
  ]);
});

test.after(async () => {
  await Promise.all([samsa?.stop(), kafka?.stop()]);
});

function checkExactlyOnce(o: StreamsOutcome, broker: string): void {
  assert.ok(o.seenAtKill < o.totalIncrements, `${broker}: the instance was killed half-way (${o.seenAtKill} of ${o.totalIncrements} counts committed)`);
  for (const [word, n] of Object.entries(o.expected)) {
    assert.equal(o.counts[word], Array.from({ length: n }, (_, i) => i + 1), `${broker}: the counts of ${word}, read_committed`);
  }
  assert.equal(Object.keys(o.counts).sort(), Object.keys(o.expected).sort(), `${broker}: no other keys`);
  const topics = Object.entries(o.internalTopics);
  assert.ok(topics.some(([t, policy]) => t.endsWith('-words-repartition') && policy === 'delete'), `${broker}: the repartition topic: ${JSON.stringify(o.internalTopics)}`);
  assert.ok(topics.some(([t, policy]) => t.endsWith('-word-counts-changelog') && policy === 'compact'), `${broker}: the changelog topic: ${JSON.stringify(o.internalTopics)}`);
}

const report = (broker: string, o: StreamsOutcome) =>
  console.log(`frameworks: Streams EOS v2 on ${broker}: killed at ${o.seenAtKill}/${o.totalIncrements} committed counts, first run ${o.ms.firstRun} ms, restart to the end ${o.ms.secondRun} ms, ${o.ms.total} ms in all; output end offsets ${o.outputEndOffsets}`);

test('Kafka Streams 4.4, exactly_once_v2: a word count killed half-way and restarted counts each word exactly once (Samsa)', async () => {
  if (!samsa) return;
  const o = await streamsWordCount(samsa.bootstrap, 'samsa', log);
  report('Samsa', o);
  checkExactlyOnce(o, 'Samsa');
});

test('Kafka Streams 4.4, exactly_once_v2: the same on Kafka 4.4', async () => {
  if (!kafka) return;
  const o = await streamsWordCount(kafka.bootstrap, 'kafka', log);
  report('Kafka', o);
  checkExactlyOnce(o, 'Kafka');
});

test.run();
