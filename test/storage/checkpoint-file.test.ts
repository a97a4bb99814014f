import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MemFs } from '../../src/storage/fs.js';
import { readCheckpoint, writeCheckpoint } from '../../src/storage/checkpoint-file.js';

test('checkpoint files use Kafka format: version, count, entries', async () => {
  const fs = new MemFs();
  await fs.mkdir('/d');
  await writeCheckpoint(fs, '/d/cp', [['orders', 0, 42], ['my-topic', 3, 7]]);
  assert.is(fs.contents('/d/cp').toString(), '0\n2\norders 0 42\nmy-topic 3 7\n');
  assert.equal(await readCheckpoint(fs, '/d/cp'), [['orders', '0', '42'], ['my-topic', '3', '7']]);
  assert.is(await readCheckpoint(fs, '/d/missing'), null);
});

test('a wrong version or a short file is an error', async () => {
  const fs = new MemFs();
  await fs.mkdir('/d');
  fs.setContents('/d/a', Buffer.from('1\n0\n'));
  fs.setContents('/d/b', Buffer.from('0\n3\nx 0 1\n'));
  let errors = 0;
  await readCheckpoint(fs, '/d/a').catch(() => errors++);
  await readCheckpoint(fs, '/d/b').catch(() => errors++);
  assert.is(errors, 2);
});

test.run();
