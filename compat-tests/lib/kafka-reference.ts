/**
 * The referee's recorded answers: the compatibility suite's results against real Apache Kafka
 * (compat-tests/kafka-reference.json), kept with a fingerprint of everything such a run depends
 * on: the scenarios, the client drivers and agents, the suite's library, the pinned Kafka release
 * (tools/kafka/), the Node clients' locked versions (package-lock.json) and the Python clients'
 * pins (clients/requirements.txt).
 *
 * While the fingerprint matches, `npm test` compares a live Samsa run with the recorded Kafka
 * run (the same run id, so topic and group names match) instead of running Kafka again: Kafka's
 * answers cannot change without one of those inputs changing. When any input changes, or with
 * SAMSA_COMPAT_LIVE=1, both run live and a clean Kafka run is recorded anew (commit it).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SuiteResult } from './suite.js';
import { inputFiles } from './kafka-verdicts.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const COMPAT = path.resolve(HERE, '..');
const ROOT = path.resolve(COMPAT, '..');
export const KAFKA_REFERENCE = path.join(COMPAT, 'kafka-reference.json');

/** Inputs of a Kafka run, relative to the repository: folders are walked, files taken as they are. */
const INPUTS = ['compat-tests/scenarios.ts', 'compat-tests/run.ts', 'compat-tests/lib', 'compat-tests/clients', 'tools/kafka', 'package-lock.json'];
/**
 * Not inputs: this module's own output and the verdict lists, which judge a run but do not shape
 * it; the frameworks' jars (Kafka Streams, for compat-tests/frameworks.test.ts), which no client of
 * the suite loads.
 */
const NOT_INPUTS = new Set(['compat-tests/lib/kafka-reference.ts', 'compat-tests/lib/kafka-verdicts.ts', 'compat-tests/lib/differential.ts', 'compat-tests/lib/report.ts', 'tools/kafka/frameworks.ts', 'tools/kafka/frameworks-pom.xml', 'tools/kafka/mirror-maker-pom.xml']);


/** sha256 over the inputs' paths and contents. */
export function referenceFingerprint(): string {
  const h = createHash('sha256');
  for (const rel of INPUTS.flatMap(inputFiles)) {
    if (NOT_INPUTS.has(rel)) continue;
    h.update(rel).update('\0').update(readFileSync(path.join(ROOT, rel))).update('\0');
  }
  return h.digest('hex');
}

interface Recorded {
  fingerprint: string;
  recordedAt: string;
  result: SuiteResult;
}

/** The recorded Kafka run, when its fingerprint matches the inputs of this checkout. */
export function loadKafkaReference(): { result: SuiteResult; recordedAt: string } | null {
  if (process.env.SAMSA_COMPAT_LIVE === '1' || !existsSync(KAFKA_REFERENCE)) return null;
  const r = JSON.parse(readFileSync(KAFKA_REFERENCE, 'utf8')) as Recorded;
  return r.fingerprint === referenceFingerprint() ? { result: r.result, recordedAt: r.recordedAt } : null;
}

/** Records a Kafka run (only a clean one: every cell answered as expected). */
export function saveKafkaReference(result: SuiteResult): void {
  const r: Recorded = { fingerprint: referenceFingerprint(), recordedAt: new Date().toISOString(), result };
  writeFileSync(KAFKA_REFERENCE, JSON.stringify(r, null, 1) + '\n');
}
