/**
 * The layering rule of src/ (tools/check-layers.mjs): no file imports a higher room, no import
 * circles, beyond what tools/layers-allowed.json still tolerates (a list that may only shrink).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

test('no upward import and no import circle beyond the shrinking allowance', () => {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'tools', 'check-layers.mjs')], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stdout + r.stderr);
});

test.run();
