/**
 * The layering rule of src/ (tools/check-layers.mjs): no file imports a higher room, no import
 * circles.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

test('no upward import and no import circle beyond the shrinking allowance', () => {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'tools', 'check-layers.mjs')], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stdout + r.stderr);
});

test('the check fails on an upward import (import type included) and on a circle', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'layers-'));
  try {
    mkdirSync(path.join(dir, 'storage'));
    mkdirSync(path.join(dir, 'broker'));
    writeFileSync(path.join(dir, 'storage', 'log.ts'), "import type { B } from '../broker/b.js';\nexport type L = B;\n");
    writeFileSync(path.join(dir, 'broker', 'b.ts'), "import type { L } from '../storage/log.js';\nexport type B = L | 1;\n");
    const r = spawnSync(process.execPath, [path.join(ROOT, 'tools', 'check-layers.mjs')], { encoding: 'utf8', env: { ...process.env, SAMSA_LAYERS_SRC: dir } });
    assert.is(r.status, 1, r.stdout);
    assert.match(r.stdout, 'upward import: storage/log.ts -> broker/b.ts');
    assert.match(r.stdout, 'circle of 2 files');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
