/**
 * The pieces of the console's Schema Registry pages on their own: the line diff (schemas-page.ts's
 * version diff), Confluent's Protobuf message-index list (schema-decode.ts), and that the console
 * loads avsc only once it decodes an Avro record and protobufjs not at all for one (in a fresh
 * process, since this one may have loaded them). The pages themselves: console-schemas.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { diffLines, foldUnchanged } from '../../src/http/console/line-diff.js';
import { readMessageIndexes } from '../../src/http/console/schema-decode.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('line diff: the longest common subsequence, changes marked, long unchanged runs folded', () => {
  const d = diffLines(['a', 'b', 'c', 'd'], ['a', 'c', 'x', 'd']);
  assert.equal(d.map((l) => l.op + l.text), [' a', '-b', ' c', '+x', ' d']);
  assert.equal(diffLines([], ['n']).map((l) => l.op + l.text), ['+n']);
  assert.equal(diffLines(['o'], []).map((l) => l.op + l.text), ['-o']);
  assert.equal(diffLines(['x', 'y'], ['x', 'y']).every((l) => l.op === ' '), true);
  const long = Array.from({ length: 20 }, (_, i) => `l${i}`);
  const folded = foldUnchanged(diffLines(long, [...long.slice(0, 10), 'new', ...long.slice(10)]), 2);
  assert.equal(folded.map((l) => (l.op === '…' ? `…${l.count}` : l.op + l.text)), ['…8', ' l8', ' l9', '+new', ' l10', ' l11', '…8']);
});

test('message indexes: a single 0 is [0]; zigzag count and indexes', () => {
  assert.equal(readMessageIndexes(Buffer.from([0, 9])), { path: [0], offset: 1 });
  assert.equal(readMessageIndexes(Buffer.from([4, 2, 0, 9])), { path: [1, 0], offset: 3 });
  assert.equal(readMessageIndexes(Buffer.from([2, 0x80, 0x01])), { path: [64], offset: 3 });
  assert.throws(() => readMessageIndexes(Buffer.from([2])), /truncated/);
});

test('avsc and protobufjs are not loaded with the console, avsc is once an Avro record is decoded', async () => {
  const script = `
    import { createRequire } from 'node:module';
    const loaded = () => {
      const keys = Object.keys(createRequire(process.cwd() + '/').cache);
      return { avsc: keys.some((k) => k.includes('/node_modules/avsc/')), protobufjs: keys.some((k) => k.includes('/node_modules/protobufjs/')) };
    };
    await import('./src/http/console/routes.ts');
    const before = loaded();
    const { SchemaDecoder } = await import('./src/http/console/schema-decode.ts');
    const registry = { schemaById: async () => ({ schema: '"string"' }), versionsById: async () => [{ subject: 's', version: 1 }] };
    const decoded = await new SchemaDecoder(registry).decode(Buffer.from([0, 0, 0, 0, 1, 4, 0x68, 0x69]));
    console.log(JSON.stringify({ before, after: loaded(), decoded }));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, timeout: 60_000 });
  assert.equal(JSON.parse(stdout), {
    before: { avsc: false, protobufjs: false }, after: { avsc: true, protobufjs: false },
    decoded: { ok: true, label: 'schema id 1 (subject s v1, AVRO)', text: '"hi"' },
  });
});

test.run();
