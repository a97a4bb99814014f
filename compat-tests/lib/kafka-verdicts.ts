/**
 * Recorded verdicts of checks that run only against real Apache Kafka (whether scenarios that
 * Samsa's own tests rely on also hold on Kafka, e.g. compat-tests/consumer-protocol.test.ts),
 * kept in compat-tests/kafka-verdicts.json with a fingerprint of everything such a run depends
 * on: the test file and every file it imports from the repository (followed through relative
 * imports; Samsa's own code under src/ is no input of a Kafka run, except the protocol codecs in
 * src/protocol/ that the suite's clients encode with), the pinned Kafka release and how it is started (tools/kafka/), the Node clients'
 * locked versions (package-lock.json), the Python clients' pins, and any other inputs the caller
 * names. While the fingerprint matches, the check's recorded pass stands and Kafka is not started
 * again (as compat-tests/lib/kafka-reference.ts does for the compatibility suite); when an input
 * changes, or with SAMSA_COMPAT_LIVE=1, it runs live and a pass is recorded anew (commit it).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const KAFKA_VERDICTS = path.join(ROOT, 'compat-tests', 'kafka-verdicts.json');
const ALWAYS = ['tools/kafka', 'package-lock.json', 'compat-tests/clients/requirements.txt'];

interface Verdict {
  fingerprint: string;
  recordedAt: string;
  tests: string[];
}

/** The files of `rel` (a file, or a folder walked in name order), relative to the repository. */
export function inputFiles(rel: string): string[] {
  const abs = path.join(ROOT, rel);
  if (!existsSync(abs)) return [];
  if (!statSync(abs).isDirectory()) return [rel];
  return readdirSync(abs).sort().flatMap((n) => (n === 'node_modules' || n === 'target' || n.startsWith('.') ? [] : inputFiles(path.posix.join(rel, n))));
}

/** Samsa's broker code shapes no Kafka answer; its codecs (src/protocol/) encode the suite's requests. */
const notKafkaInput = (rel: string) => rel.startsWith('src/') && !rel.startsWith('src/protocol/');

/** `entry` and every repository file it reaches through relative imports (sorted), src/ outside src/protocol/ left out. */
export function importClosure(entry: string): string[] {
  const seen = new Set<string>();
  const todo = [entry];
  while (todo.length > 0) {
    const rel = todo.pop()!;
    if (seen.has(rel) || notKafkaInput(rel)) continue;
    seen.add(rel);
    const text = readFileSync(path.join(ROOT, rel), 'utf8');
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(rel), m[1]));
      const ts = target.replace(/\.js$/, '.ts');
      if (existsSync(path.join(ROOT, ts))) todo.push(ts);
      else if (existsSync(path.join(ROOT, target))) todo.push(target);
    }
  }
  return [...seen].sort();
}

/** sha256 over the paths and contents of `testFile`'s import closure, `inputs` and the inputs every Kafka run has. */
export function verdictFingerprint(testFile: string, inputs: string[] = []): string {
  const h = createHash('sha256');
  const files = new Set([...importClosure(testFile), ...[...ALWAYS, ...inputs].flatMap(inputFiles)]);
  for (const rel of [...files].sort()) h.update(rel).update('\0').update(readFileSync(path.join(ROOT, rel))).update('\0');
  return h.digest('hex');
}

function load(): Record<string, Verdict> {
  return existsSync(KAFKA_VERDICTS) ? (JSON.parse(readFileSync(KAFKA_VERDICTS, 'utf8')) as Record<string, Verdict>) : {};
}

/** When `name` passed on Kafka at this fingerprint: its record; else null (run it live). */
export function recordedPass(name: string, fingerprint: string): Verdict | null {
  if (process.env.SAMSA_COMPAT_LIVE === '1') return null;
  const v = load()[name];
  return v && v.fingerprint === fingerprint ? v : null;
}

/** Records that every one of `tests` passed on Kafka at `fingerprint`. */
export function recordPass(name: string, fingerprint: string, tests: string[]): void {
  const all = load();
  all[name] = { fingerprint, recordedAt: new Date().toISOString(), tests };
  const sorted = Object.fromEntries(Object.keys(all).sort().map((k) => [k, all[k]]));
  writeFileSync(KAFKA_VERDICTS, `${JSON.stringify(sorted, null, 1)}\n`);
}
