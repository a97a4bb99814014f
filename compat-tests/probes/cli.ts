/**
 * Runs the probes and prints their differences (for working on them; the test is
 * compat-tests/probes.test.ts).
 *
 *   npx tsx compat-tests/probes/cli.ts [--all] [--json FILE] [ID_SUBSTRING ...]
 *
 * By default only differences expected-differences.json does not list are printed (and stale
 * entries); --all prints every difference. PROBE_RAW_MESSAGES=1 shows error message texts.
 */
import { writeFileSync } from 'node:fs';
import { startProbeBrokers } from './brokers.js';
import { judge, loadExpected } from './expected.js';
import { allProbes } from './index.js';
import { runProbes } from './runner.js';

const args = process.argv.slice(2);
const take = (flag: string) => {
  const i = args.indexOf(flag);
  return i >= 0 ? args.splice(i, flag === '--json' ? 2 : 1).slice(1)[0] ?? true : null;
};
const jsonFile = take('--json') as string | null;
const all = take('--all') !== null;
const probes = allProbes().filter((p) => args.length === 0 || args.some((a) => p.id.includes(a)));
const brokers = await startProbeBrokers('probes');
if (!brokers) process.exit(0);
try {
  const run = await runProbes(probes, { kafka: brokers.kafka.port, samsa: brokers.samsa.port }, (l) => console.log(l));
  const verdict = judge(run.results, loadExpected());
  const unexpected = new Set(verdict.unexpected.map((u) => `${u.probe}\u0000${u.difference.path}`));
  let n = 0;
  for (const r of run.results) {
    if (r.error) console.log(`!! ${r.probe.id}: ${r.error.split('\n').slice(0, 3).join(' | ')}`);
    const shown = r.differences.filter((d) => all || unexpected.has(`${r.probe.id}\u0000${d.path}`));
    if (shown.length === 0) continue;
    n++;
    console.log(`== ${r.probe.id} (${r.probe.about})`);
    for (const d of shown) console.log(`   ${d.path}\n      kafka: ${d.kafka}\n      samsa: ${d.samsa}`);
  }
  for (const s of verdict.stale) console.log(`stale expected difference: ${s.probe} ${s.path}`);
  console.log(`${run.results.length} probes, ${n} shown with differences, ${verdict.unexpected.length} unexpected, ${verdict.stale.length} stale, ${run.ms} ms`);
  if (jsonFile) writeFileSync(jsonFile, JSON.stringify(run.results.map((r) => ({ id: r.probe.id, kafka: r.kafka, samsa: r.samsa, differences: r.differences })), null, 1));
} finally {
  await brokers.stop();
}
