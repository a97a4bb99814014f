/**
 * @samsa-early (the longest file: it starts first and the rest of the suite runs beside it; every
 * client runs in parallel, against Samsa and, when Kafka's recording is stale, real Kafka)
 * @samsa-timeout 600
 *
 * The compatibility suite (compat-tests/) with every real client, against Samsa and against real
 * Apache Kafka (tools/kafka: the pinned release on the local JVM, or testcontainers where Docker
 * runs) at the same time:
 * - on each target every scenario × client must pass, be n/a (the client cannot express it), or
 *   be listed in compat-tests/expected-failures.json; a listed pair that passes fails too;
 * - the two targets must agree, status and observations, on every scenario × client, except the
 *   pairs listed in compat-tests/expected-differences.json; a listed pair that agrees now fails.
 * Both lists can only shrink. Regenerates docs/compat-matrix.md and the README's matrix.
 * Kafka's side is the recorded run (compat-tests/kafka-reference.json) while nothing it depends on
 * has changed (compat-tests/lib/kafka-reference.ts); otherwise, or with SAMSA_COMPAT_LIVE=1, Kafka
 * runs live beside Samsa and a clean run is recorded anew.
 * Where this machine cannot run Kafka (no java or mvn) it says so in one line and checks Samsa
 * alone; under CI that is a failure.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import os from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { kafkaTarget, samsaTarget, TargetUnavailable, type Target } from '../compat-tests/lib/targets.js';
import { runAgainstReference, runAndReport, runDifferential, surviveClientCrashes, type DifferentialOutput } from '../compat-tests/run.js';
import { KAFKA_REFERENCE, loadKafkaReference, saveKafkaReference } from '../compat-tests/lib/kafka-reference.js';
import { ALL_CLIENTS } from '../compat-tests/lib/types.js';
import { IN_CI } from './support/kafka.js';

surviveClientCrashes();

const logLine = (l: string) => {
  if (!/\] (pass|n\/a) /.test(l) && !l.startsWith('pass') && !l.startsWith('n/a')) console.log(l);
};

async function openKafka(): Promise<Target | null> {
  try {
    return await kafkaTarget();
  } catch (e) {
    if (e instanceof TargetUnavailable && !IN_CI) {
      console.log(`compat: ${e.message}; checking Samsa alone`);
      return null;
    }
    throw e;
  }
}

test('compat suite against Samsa and real Kafka: no unexpected failures, no unlisted differences, no stale entries', async () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'samsa-compat-out-'));
  const targets: Target[] = [];
  try {
    const reference = loadKafkaReference();
    const [samsa, kafka] = await Promise.all([samsaTarget(), reference ? null : openKafka()]);
    targets.push(samsa);
    if (kafka) targets.push(kafka);
    if (reference) console.log(`compat: Kafka's side recorded ${reference.recordedAt} (${path.relative(process.cwd(), KAFKA_REFERENCE)}: its inputs are unchanged)`);
    if (!kafka && !reference) {
      const r = await runAndReport(samsa, { clients: ALL_CLIENTS, out, writeDoc: true, log: logLine });
      console.log(r.matrix);
      assert.equal(r.problems, [], r.problems.join('\n'));
      return;
    }
    const r: DifferentialOutput = reference
      ? await runAgainstReference(samsa, reference.result, { clients: ALL_CLIENTS, out, writeDoc: true, log: logLine })
      : await runDifferential(samsa, kafka!, { clients: ALL_CLIENTS, out, writeDoc: true, log: logLine });
    if (r.kafkaClean) {
      saveKafkaReference(r.kafka.result);
      console.log(`compat: Kafka's run recorded in ${path.relative(process.cwd(), KAFKA_REFERENCE)} (commit it)`);
    }
    console.log(`Samsa:\n${r.samsa.matrix}\n\nKafka:\n${r.kafka.matrix}`);
    console.log(`compat suite: ${(r.samsa.result.durationMs / 1000).toFixed(1)} s (Samsa), ${(r.kafka.result.durationMs / 1000).toFixed(1)} s (Kafka${reference ? ', recorded' : ''}), ${r.differences} listed differences`);
    // Every client started and answered on both targets.
    for (const run of [r.samsa, r.kafka]) {
      for (const c of ALL_CLIENTS) {
        const v = run.result.clients[c];
        assert.ok(v && !v.startsWith('client unavailable'), `${run.result.target.name}: ${c}: ${v}`);
      }
    }
    assert.equal(r.problems, [], r.problems.join('\n'));
  } finally {
    await Promise.all(targets.map((t) => t.stop()));
    rmSync(out, { recursive: true, force: true });
  }
});

test.run();
