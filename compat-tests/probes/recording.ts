/**
 * Kafka's side of the protocol probes, recorded (compat-tests/probes/kafka-answers.json): each
 * probe's normalised outcome from a clean run against real Kafka 4.4, with a fingerprint of what
 * shapes those outcomes (compat-tests/lib/kafka-verdicts.ts: the probes, their runner and
 * normalisation, the codecs, tools/kafka). While it matches, probes.test.ts compares Samsa with
 * the recording and starts no Kafka; when an input changes, or with SAMSA_COMPAT_LIVE=1, both run
 * live and a clean Kafka side (no probe errors) is recorded anew (commit it), as the compatibility
 * suite's kafka-reference.json is.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { verdictFingerprint } from '../lib/kafka-verdicts.js';
import type { RecordedAnswers, Run } from './runner.js';

export const KAFKA_ANSWERS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'kafka-answers.json');

interface Recording {
  fingerprint: string;
  recordedAt: string;
  answers: RecordedAnswers;
}

const fingerprint = () => verdictFingerprint('compat-tests/probes.test.ts');

/** The recorded answers when their fingerprint matches this checkout, else null. */
export function loadKafkaAnswers(): { answers: RecordedAnswers; recordedAt: string } | null {
  if (process.env.SAMSA_COMPAT_LIVE === '1' || !existsSync(KAFKA_ANSWERS)) return null;
  const r = JSON.parse(readFileSync(KAFKA_ANSWERS, 'utf8')) as Recording;
  return r.fingerprint === fingerprint() ? { answers: r.answers, recordedAt: r.recordedAt } : null;
}

/** Records Kafka's side of a live run when no probe failed to run on Kafka; says whether it did. */
export function saveKafkaAnswers(run: Run): boolean {
  const failed = (j: unknown) => j !== null && typeof j === 'object' && !Array.isArray(j) && 'probeError' in j;
  if (run.results.some((r) => failed(r.kafka))) return false;
  const answers: RecordedAnswers = {};
  for (const r of run.results) answers[r.probe.id] = r.kafka;
  const rec: Omit<Recording, 'answers'> = { fingerprint: fingerprint(), recordedAt: new Date().toISOString() };
  // One probe a line: a re-recording's diff shows the probes whose answers changed.
  const lines = Object.entries(answers).map(([id, j]) => `  ${JSON.stringify(id)}: ${JSON.stringify(j)}`);
  writeFileSync(KAFKA_ANSWERS, `${JSON.stringify(rec).slice(0, -1)},\n "answers": {\n${lines.join(',\n')}\n }\n}\n`);
  return true;
}
