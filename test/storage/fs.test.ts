import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as path from 'node:path';
import { MemFs, nodeFs, type Fs } from '../../src/storage/fs.js';
import { tempDir } from './helpers.js';

test('MemFs crash() keeps fsynced bytes and drops the rest', async () => {
  const fs = new MemFs();
  await fs.mkdir('/d');
  const f = await fs.open('/d/a.log');
  f.append(Buffer.from('hello '));
  await f.sync();
  f.append(Buffer.from('world'));
  assert.is(fs.contents('/d/a.log').toString(), 'hello world');
  fs.crash();
  assert.is(fs.contents('/d/a.log').toString(), 'hello ');
  assert.throws(() => f.append(Buffer.from('x')), /EBADF/);
  const g = await fs.open('/d/b.log');
  g.append(Buffer.from('never synced'));
  fs.crash();
  assert.is(fs.contents('/d/b.log').length, 0);
});

test('MemFs failNextWrite fails one write and changes nothing', async () => {
  const fs = new MemFs();
  await fs.mkdir('/d');
  const f = await fs.open('/d/a');
  f.append(Buffer.from('ab'));
  fs.failNextWrite();
  assert.throws(() => f.append(Buffer.from('cd')), /EIO/);
  f.append(Buffer.from('ef'));
  assert.is(fs.contents('/d/a').toString(), 'abef');
});

test('MemFs failNextSync rejects one fsync and makes nothing durable', async () => {
  const fs = new MemFs();
  await fs.mkdir('/d');
  const f = await fs.open('/d/a');
  f.append(Buffer.from('ab'));
  fs.failNextSync();
  let failed = false;
  await f.sync().catch(() => (failed = true));
  assert.ok(failed);
  fs.crash();
  assert.is(fs.contents('/d/a').length, 0);
});

async function exercise(fs: Fs, root: string): Promise<void> {
  const dir = path.join(root, 'x', 'y');
  await fs.mkdir(dir);
  const file = path.join(dir, 'f.log');
  const h = await fs.open(file);
  h.append(Buffer.from('0123456789'));
  h.writeAt(Buffer.from('AB'), 2);
  assert.is(h.size(), 10);
  assert.is((await h.read(0, 100)).toString(), '01AB456789');
  assert.is((await h.read(8, 4)).toString(), '89');
  h.truncate(4);
  assert.is(h.size(), 4);
  assert.is((await h.read(0, 100)).toString(), '01AB');
  await h.sync();
  await h.close();
  assert.is((await fs.stat(file)).size, 4);
  assert.ok(await fs.exists(file));
  await fs.writeFileAtomic(path.join(dir, 'meta'), Buffer.from('v1'));
  await fs.writeFileAtomic(path.join(dir, 'meta'), Buffer.from('v2'));
  assert.is((await fs.readFile(path.join(dir, 'meta'))).toString(), 'v2');
  await fs.rename(file, file + '.deleted');
  assert.equal((await fs.readdir(dir)).sort(), ['f.log.deleted', 'meta']);
  await fs.unlink(file + '.deleted');
  await fs.syncDir(dir);
  assert.ok((await fs.stat(dir)).isDirectory);
  await fs.rename(path.join(root, 'x'), path.join(root, 'z'));
  assert.ok(await fs.exists(path.join(root, 'z', 'y', 'meta')));
  await fs.rmdir(path.join(root, 'z'));
  assert.not.ok(await fs.exists(path.join(root, 'z')));
}

test('nodeFs and MemFs behave alike on the operations storage uses', async () => {
  const t = tempDir();
  try {
    await exercise(nodeFs, t.dir);
    await exercise(new MemFs(), '/root');
  } finally {
    t.cleanup();
  }
});

test.run();
