/**
 * expected-differences.json: the differences between Samsa and Kafka that are known and
 * accepted, each with its reason. An entry names a probe id and a difference path, both globs
 * (`*` matches any run of characters, letters match either case). A difference no entry matches is a failure; so is an
 * entry that matches no difference of the probes that ran (the list only shrinks).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Difference, ProbeResult } from './runner.js';

export const EXPECTED_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'expected-differences.json');

export interface ExpectedDifference {
  probe: string;
  path: string;
  reason: string;
  /** A race between the two brokers' own timing: the difference may or may not occur, so it is never stale. */
  timing?: boolean;
}

/** A glob as a regular expression: `*` = any characters; case-insensitive (probe ids mix "api-versions" and "ApiVersions"). */
const glob = (g: string) => new RegExp(`^${g.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 'i');

export function loadExpected(file = EXPECTED_FILE): ExpectedDifference[] {
  const j = JSON.parse(readFileSync(file, 'utf8')) as { differences: ExpectedDifference[] };
  for (const e of j.differences) {
    if (!e.probe || !e.path || !e.reason) throw new Error(`${file}: every entry needs probe, path and reason: ${JSON.stringify(e)}`);
  }
  return j.differences;
}

export interface Verdict {
  unexpected: { probe: string; about: string; difference: Difference }[];
  /** Entries that matched nothing although a probe they name ran. */
  stale: ExpectedDifference[];
  errors: { probe: string; error: string }[];
}

export function judge(results: ProbeResult[], expected: ExpectedDifference[]): Verdict {
  const compiled = expected.map((e) => ({ e, probe: glob(e.probe), path: glob(e.path), used: false, applies: false }));
  const verdict: Verdict = { unexpected: [], stale: [], errors: [] };
  for (const r of results) {
    if (r.error) verdict.errors.push({ probe: r.probe.id, error: r.error });
    const entries = compiled.filter((c) => c.probe.test(r.probe.id));
    for (const c of entries) c.applies = true;
    for (const d of r.differences) {
      const hit = entries.filter((c) => c.path.test(d.path));
      if (hit.length === 0) verdict.unexpected.push({ probe: r.probe.id, about: r.probe.about, difference: d });
      for (const c of hit) c.used = true;
    }
  }
  verdict.stale = compiled.filter((c) => c.applies && !c.used && c.e.timing !== true).map((c) => c.e);
  return verdict;
}
