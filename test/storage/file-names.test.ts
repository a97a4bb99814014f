import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  deleteDirName,
  filenamePrefixFromOffset,
  isDeleteDirName,
  logFileName,
  offsetIndexFileName,
  parseOffsetFileName,
  parsePartitionDirName,
  timeIndexFileName,
} from '../../src/storage/file-names.js';

test('segment files use the 20-digit zero-padded base offset', () => {
  assert.is(filenamePrefixFromOffset(0), '00000000000000000000');
  assert.is(filenamePrefixFromOffset(1234), '00000000000000001234');
  assert.is(logFileName('/d', 5), '/d/00000000000000000005.log');
  assert.is(offsetIndexFileName('/d', 5), '/d/00000000000000000005.index');
  assert.is(timeIndexFileName('/d', 5), '/d/00000000000000000005.timeindex');
  assert.equal(parseOffsetFileName('00000000000000001234.timeindex'), { offset: 1234, suffix: '.timeindex' });
  assert.is(parseOffsetFileName('0000000000000001234.log'), null);
  assert.is(parseOffsetFileName('00000000000000001234.log.deleted'), null);
});

test('partition directories split at the last dash; topics may contain dashes and dots', () => {
  assert.equal(parsePartitionDirName('orders-0'), { topic: 'orders', partition: 0 });
  assert.equal(parsePartitionDirName('my-topic.v2-17'), { topic: 'my-topic.v2', partition: 17 });
  assert.equal(parsePartitionDirName('__consumer_offsets-49'), { topic: '__consumer_offsets', partition: 49 });
  for (const bad of ['orders', 'orders-', '-1', 'orders-x', 'orders-01', 'recovery-point-offset-checkpoint', 'a b-1', 'orders-0.abc-future']) {
    assert.is(parsePartitionDirName(bad), null, bad);
  }
});

test('deleted partition directories carry .<uuid>-delete and are not partition dirs', () => {
  const name = deleteDirName('my-topic', 3, '0123456789abcdef0123456789abcdef');
  assert.is(name, 'my-topic-3.0123456789abcdef0123456789abcdef-delete');
  assert.ok(isDeleteDirName(name));
  assert.is(parsePartitionDirName(name), null);
  assert.not.ok(isDeleteDirName('my-topic-3'));
});

test.run();
