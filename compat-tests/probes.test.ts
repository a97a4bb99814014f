/**
 * Protocol probes: the same raw requests to one Samsa and one real Apache Kafka (both with the
 * suite's broker settings), outcomes compared field by field after normalising what must
 * differ (compat-tests/probes/). Fails on a difference that expected-differences.json does not
 * list with its reason, on a listed difference that no longer occurs, on a probe that could not
 * run, and on an advertised API without probes at its lowest and highest advertised version.
 *
 * Kafka's side is the recorded run (probes/recording.ts, probes/kafka-answers.json) while nothing
 * that shapes its answers has changed; otherwise, or with SAMSA_COMPAT_LIVE=1, Kafka runs live and
 * a clean run is recorded anew.
 * Where Kafka cannot run here (no java or mvn) this prints one line and checks only that the
 * probe table covers what Samsa advertises; under CI a missing Kafka is a failure (kafkaOrSkip).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KafkaConn } from '../bench/lib/kafka-conn.js';
import { startProbeBrokers, startSamsaForProbes, type ProbeBrokers } from './probes/brokers.js';
import { judge, loadExpected } from './probes/expected.js';
import { allProbes } from './probes/index.js';
import { capturesAvailable } from './probes/probes-captures.js';
import { runProbes, type Run } from './probes/runner.js';
import { loadKafkaAnswers, saveKafkaAnswers } from './probes/recording.js';
import type { RunningBroker } from '../src/testing/start-broker.js';

const probes = allProbes();
const recorded = loadKafkaAnswers();
let brokers: ProbeBrokers | null = null;
/** Samsa alone, against Kafka's recorded answers. */
let samsaOnly: RunningBroker | null = null;
let run: Run | null = null;

test.before(async () => {
  if (recorded) {
    console.log(`protocol probes: Kafka's side recorded ${recorded.recordedAt} (compat-tests/probes/kafka-answers.json: its inputs are unchanged)`);
    samsaOnly = await startSamsaForProbes();
  } else {
    brokers = await startProbeBrokers('protocol probes');
  }
  if (!capturesAvailable()) console.log('protocol probes: ../shared/fixtures/captures missing, capture replays skipped');
});

test.after(async () => {
  await brokers?.stop();
  await samsaOnly?.stop();
});

test('every API Samsa advertises is probed at its lowest and highest advertised version', async () => {
  const { startBroker } = await import('../src/testing/start-broker.js');
  const b = brokers?.samsa ?? samsaOnly ?? (await startBroker({ port: 0, storage: 'memory' }));
  try {
    const c = await KafkaConn.connect('127.0.0.1', b.port);
    const av = await c.request(18, 3, { clientSoftwareName: 'samsa-probe', clientSoftwareVersion: '1', clusterId: null, nodeId: -1 });
    c.close();
    const missing: string[] = [];
    for (const a of av.apiKeys) {
      for (const v of new Set([a.minVersion, a.maxVersion])) {
        if (!probes.some((p) => p.api === a.apiKey && p.version === v)) missing.push(`api ${a.apiKey} v${v}`);
      }
    }
    assert.equal(missing, [], `advertised but not probed: ${missing.join(', ')}`);
    const ids = new Set(probes.map((p) => p.id));
    assert.is(ids.size, probes.length, 'probe ids are unique');
  } finally {
    if (!brokers && !samsaOnly) await b.stop();
  }
});

test('Samsa answers every probe as Kafka does, or as expected-differences.json says', async () => {
  if (!brokers && !samsaOnly) return;
  run = await runProbes(probes, brokers ? { kafka: brokers.kafka.port, samsa: brokers.samsa.port } : { kafka: recorded!.answers, samsa: samsaOnly!.port });
  const verdict = judge(run.results, loadExpected());
  const lines: string[] = [];
  for (const e of verdict.errors) lines.push(`probe ${e.probe} could not run: ${e.error.split('\n')[0]}`);
  for (const u of verdict.unexpected) lines.push(`${u.probe} (${u.about})\n    ${u.difference.path}\n      kafka: ${u.difference.kafka}\n      samsa: ${u.difference.samsa}`);
  for (const s of verdict.stale) lines.push(`expected difference no longer occurs (remove it): ${s.probe} ${s.path} (${s.reason})`);
  console.log(`protocol probes: ${run.results.length} probes, ${run.results.filter((r) => r.differences.length > 0).length} with listed differences, ${run.ms} ms`);
  // Kafka's side is recorded whatever Samsa answered: only a probe that failed on Kafka keeps it live.
  if (brokers && saveKafkaAnswers(run)) console.log('protocol probes: Kafka\'s side recorded in compat-tests/probes/kafka-answers.json (commit it)');
  assert.ok(lines.length === 0, `\n${lines.join('\n')}\n`);
});

test.run();
