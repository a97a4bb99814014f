/**
 * @samsa-serial (runs alone: five clients in parallel against three Samsa processes)
 *
 * The compatibility suite (compat-tests/) against Samsa with all five real clients: every
 * scenario × client must pass, be n/a (the client cannot express it), or be listed in
 * compat-tests/expected-failures.json. A listed pair that passes (or became n/a) fails this test
 * too, so the list can only shrink. Regenerates docs/compat-matrix.md.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import os from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { samsaTarget, type Target } from '../compat-tests/lib/targets.js';
import { runAndReport, surviveClientCrashes } from '../compat-tests/run.js';
import { ALL_CLIENTS } from '../compat-tests/lib/types.js';

surviveClientCrashes();

test('compat suite against Samsa: no unexpected failures, no stale expected failures', async () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'samsa-compat-out-'));
  let target: Target | undefined;
  try {
    target = await samsaTarget();
    const r = await runAndReport(target, { clients: ALL_CLIENTS, out, writeDoc: true, log: (l) => { if (!l.startsWith('pass') && !l.startsWith('n/a')) console.log(l); } });
    console.log(r.matrix);
    console.log(`compat suite: ${(r.result.durationMs / 1000).toFixed(1)} s`);
    // Every client started and answered (a missing client would turn every cell into a failure anyway).
    for (const c of ALL_CLIENTS) assert.ok(r.result.clients[c] && !r.result.clients[c]!.startsWith('client unavailable'), `${c}: ${r.result.clients[c]}`);
    assert.equal(r.problems, [], r.problems.join('\n'));
  } finally {
    await target?.stop();
    rmSync(out, { recursive: true, force: true });
  }
});

test.run();
