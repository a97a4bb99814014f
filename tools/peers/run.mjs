#!/usr/bin/env node
/**
 * `npm run test:peers`: other projects' own integration suites against Samsa, one after the other
 * (they share the two cores): franz-go's pkg/kgo tests on one and three brokers (franz-go.mjs,
 * which builds dist/ first), then Sarama's functional tests on five brokers behind Toxiproxy
 * (sarama.mjs, on that build). Each prints its own `N passed, N failed`; this adds them up in one
 * last line of that shape and exits 1 when either failed or printed no count.
 *
 *   node tools/peers/run.mjs [--only franz-go|sarama]
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const SUITES = [
  { name: 'franz-go', script: join(HERE, 'franz-go.mjs'), args: [] },
  { name: 'sarama', script: join(HERE, 'sarama.mjs'), args: [] },
];
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : null;

function run(suite) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [suite.script, ...suite.args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let last = null;
    let pending = '';
    child.stdout.on('data', (d) => {
      process.stdout.write(d);
      pending += d.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop();
      for (const l of lines) if (/^\d+ passed, \d+ failed$/.test(l.trim())) last = l.trim();
    });
    child.on('exit', (code) => {
      if (/^\d+ passed, \d+ failed$/.test(pending.trim())) last = pending.trim();
      const [passed, failed] = last ? last.match(/\d+/g).map(Number) : [0, 1];
      resolve({ name: suite.name, code, passed, failed, counted: last !== null, seconds: (Date.now() - started) / 1000 });
    });
  });
}

const results = [];
for (const suite of SUITES) {
  if (only && suite.name !== only) continue;
  console.log(`== peers: ${suite.name}`);
  results.push(await run(suite));
}
let passed = 0;
let failed = 0;
let ok = true;
for (const r of results) {
  console.log(`peers: ${r.name}: ${r.counted ? `${r.passed} passed, ${r.failed} failed` : 'no count printed'} (exit ${r.code}, ${(r.seconds / 60).toFixed(1)} min)`);
  passed += r.passed;
  failed += r.failed;
  if (r.code !== 0 || !r.counted || r.failed > 0) ok = false;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(ok ? 0 : 1);
