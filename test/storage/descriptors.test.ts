/**
 * File descriptors per partition on real files: a log holds its segments' `.log` files open and
 * nothing else (the indexes live in memory and open their files only to write them back), so a
 * broker with 10,000 partitions stays within a 20,000-descriptor limit (three a partition did
 * not). Linux only (/proc/self/fd).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { nodeFs } from '../../src/storage/fs.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { systemClock } from '../../src/clock.js';
import { batch, config } from './helpers.js';
import { tmpDir } from '../support/tmp.js';

const openFds = () => readdirSync('/proc/self/fd').length;

test('40 partitions with records hold one descriptor each; their indexes are written and read back', async () => {
  if (!existsSync('/proc/self/fd')) return console.log('descriptors: skipped: no /proc/self/fd');
  const dir = tmpDir('fds');
  const logs: PartitionLog[] = [];
  try {
    const before = openFds();
    for (let p = 0; p < 40; p++) {
      const log = await PartitionLog.open({ fs: nodeFs, dir: join(dir.path, `t-${p}`), topic: 't', partition: p, config: config({ indexIntervalBytes: 1 }), clock: systemClock });
      for (let i = 0; i < 3; i++) await log.appendAsLeader(batch(5), 0);
      logs.push(log);
    }
    const held = openFds() - before;
    assert.ok(held <= 40 + 4, `${held} descriptors for 40 partitions`);
    for (const l of logs) await l.close();
    // Reopened: the indexes written back through the detached handles find every batch.
    const again = await PartitionLog.open({ fs: nodeFs, dir: join(dir.path, 't-7'), topic: 't', partition: 7, config: config({ indexIntervalBytes: 1 }), clock: systemClock });
    const r = await again.read(10, 1 << 20, { minOneMessage: true });
    assert.ok(r.records.length > 0, 'offset 10 is found through the index');
    await again.close();
  } finally {
    await dir.cleanup();
  }
});

test.run();
