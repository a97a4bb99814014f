import { test } from 'uvu';
import { samsaCli } from '../support/samsa-cli.js';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MemFs, nodeFs, type Fs } from '../../src/storage/fs.js';
import { PartitionLog, defaultLogConfig } from '../../src/storage/partition-log.js';
import { LogCleaner } from '../../src/storage/log-cleaner.js';
import { ManualClock, systemClock, type Clock } from '../../src/clock.js';
import { buildRecordBatch } from '../../src/protocol/records/record.js';
import { describeLogDir } from '../../src/cli/log-dirs.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { tempDir } from '../storage/helpers.js';


async function filledLog(fs: Fs, clock: Clock, root: string, topic: string, cleanupPolicy: string): Promise<PartitionLog> {
  const log = await PartitionLog.open({
    fs, dir: join(root, `${topic}-0`), topic, partition: 0, clock,
    config: { ...defaultLogConfig, cleanupPolicy, segmentBytes: 600, indexIntervalBytes: 100, fileDeleteDelayMs: 0 },
  });
  for (let v = 0; v < 10; v++) {
    for (let k = 0; k < 4; k++) {
      await log.appendAsLeader(buildRecordBatch({ records: [{ key: Buffer.from(`k${k}`), value: Buffer.from(`v${v}`), timestamp: BigInt(clock.now()) }] }), 0);
    }
  }
  return log;
}

test('log-dirs figures: the cleaner dirty ratio before and after a pass, the pass time, policies from the metadata file', async () => {
  const clock = new ManualClock();
  const fs = new MemFs({ now: () => clock.now() });
  await fs.mkdir('/data');
  await fs.writeFileAtomic('/data/samsa-metadata.json', Buffer.from(JSON.stringify({ version: 2, topics: [{ name: 'table', configs: { 'cleanup.policy': 'compact' } }, { name: 'events', configs: {} }] })));
  const log = await filledLog(fs, clock, '/data', 'table', 'compact');
  const other = await filledLog(fs, clock, '/data', 'events', 'delete');
  const cleaner = new LogCleaner({ fs, clock, logs: () => [log, other] });

  let rows = await describeLogDir(fs, '/data');
  assert.equal(rows.map((r) => `${r.topic}-${r.partition}`), ['events-0', 'table-0']);
  let table = rows.find((r) => r.topic === 'table')!;
  const before = (await cleaner.cleanable(log))!;
  assert.is(table.cleanupPolicy, 'compact');
  assert.is(rows.find((r) => r.topic === 'events')!.cleanupPolicy, null, 'not set: the broker default');
  assert.is(table.lastCleanedMs, -1, 'never cleaned');
  assert.is(table.segments, log.segmentList.length);
  assert.is(table.sizeBytes, log.sizeBytes);
  assert.is(table.dirtyRatio, before.dirtyRatio, 'the cleaner\'s own ratio');
  assert.ok(table.dirtyRatio > 0.9, `all dirty before the first pass: ${table.dirtyRatio}`);

  clock.advance(5000);
  const cleanedAt = clock.now();
  const stats = (await cleaner.clean(log))!;
  clock.advance(5000);
  rows = await describeLogDir(fs, '/data', ['table']);
  assert.is(rows.length, 1, '--topic filters');
  table = rows[0]!;
  const after = (await cleaner.cleanable(log))!;
  assert.is(table.lastCleanedMs, cleanedAt, 'the time of the pass');
  assert.is(table.firstDirtyOffset, stats.endOffset);
  assert.is(table.dirtyRatio, after.dirtyRatio);
  assert.is(table.dirtyBytes, after.dirtyBytes);
  assert.is(table.cleanBytes, after.cleanBytes);
  assert.ok(table.dirtyRatio < before.dirtyRatio);
  await log.close();
  await other.close();
});

test('log-dirs reads the log dir\'s checkpoint files (Kafka\'s layout, as a LogManager writes them)', async () => {
  const clock = new ManualClock(5_000_000);
  const fs = new MemFs({ now: () => clock.now() });
  const config = { ...defaultLogConfig, cleanupPolicy: 'compact', segmentBytes: 600, indexIntervalBytes: 100, fileDeleteDelayMs: 0 };
  const mgr = await LogManager.open({ fs, logDirs: '/data', clock, defaults: config });
  await mgr.loadAll();
  mgr.startBackgroundTasks({ cleaner: { backoffMs: 3_600_000 } });
  const log = await mgr.createLog('table', 0);
  for (let v = 0; v < 10; v++) {
    for (let k = 0; k < 4; k++) await log.appendAsLeader(buildRecordBatch({ records: [{ key: Buffer.from(`k${k}`), value: Buffer.from(`v${v}`), timestamp: BigInt(clock.now()) }] }), 0);
  }
  clock.advance(1000);
  const cleanedAt = clock.now();
  const stats = (await mgr.cleaner!.clean(log))!;
  assert.ok(stats.endOffset > 0);
  await mgr.close();
  assert.not.ok(await fs.exists('/data/table-0/cleaner-offset-checkpoint'), 'no per-partition file');
  const [row] = await describeLogDir(fs, '/data');
  assert.is(row.topic, 'table');
  assert.is(row.firstDirtyOffset, stats.endOffset, 'from the log dir\'s cleaner-offset-checkpoint');
  assert.is(row.lastCleanedMs, cleanedAt, 'the first segment was rewritten by the pass');
});


test('samsa log-dirs prints a row per partition, --json an object per partition; no dir is a usage error', async () => {
  const { dir, cleanup } = tempDir('samsa-cli-logdirs-');
  try {
    writeFileSync(join(dir, 'samsa-metadata.json'), JSON.stringify({ version: 2, topics: [{ name: 'table', configs: { 'cleanup.policy': 'compact' } }] }));
    const log = await filledLog(nodeFs, systemClock, dir, 'table', 'compact');
    const cleaner = new LogCleaner({ fs: nodeFs, clock: systemClock, logs: () => [log], workerThreads: false });
    const stats = (await cleaner.clean(log))!;
    const ratio = (await cleaner.cleanable(log))!.dirtyRatio;
    await log.close();

    const t = await samsaCli(['log-dirs', '--log-dir', dir]);
    assert.is(t.code, 0, t.stderr);
    const lines = t.stdout.trim().split('\n');
    assert.match(lines[0]!, /^TOPIC\s+PARTITION\s+POLICY\s+SEGMENTS\s+SIZE\s+FIRST-DIRTY\s+DIRTY\s+DIRTY-RATIO\s+LAST-CLEANED$/);
    assert.match(lines[1]!, new RegExp(`^table\\s+0\\s+compact\\s+\\d+\\s+\\S+ \\S+\\s+${stats.endOffset}\\s+\\S+ \\S+\\s+${ratio.toFixed(2)}\\s+\\d{4}-\\d\\d-\\d\\dT`));

    const j = await samsaCli(['log-dirs', dir, '--json']);
    assert.is(j.code, 0, j.stderr);
    const row = JSON.parse(j.stdout.trim());
    assert.is(row.topic, 'table');
    assert.is(row.firstDirtyOffset, stats.endOffset);
    assert.ok(row.lastCleanedMs > 0);

    const bad = await samsaCli(['log-dirs']);
    assert.is(bad.code, 2);
    assert.match(bad.stderr, /needs --log-dir/);
  } finally {
    cleanup();
  }
});

test('samsa log-dirs over several log dirs (as log.dirs lists them): every partition with the dir holding it', async () => {
  const { dir, cleanup } = tempDir('samsa-cli-logdirs-');
  try {
    const dirs = [join(dir, 'a'), join(dir, 'b')];
    const mgr = await LogManager.open({ fs: nodeFs, logDirs: dirs, clock: systemClock, defaults: { ...defaultLogConfig } });
    await mgr.loadAll();
    for (const p of [0, 1, 2]) await (await mgr.createLog('spread', p)).appendAsLeader(buildRecordBatch({ records: [{ key: null, value: Buffer.from('x') }] }), 0);
    await mgr.close();
    writeFileSync(join(dirs[0]!, 'samsa-metadata.json'), JSON.stringify({ version: 2, topics: [{ name: 'spread', configs: { 'cleanup.policy': 'compact' } }] }));
    const j = await samsaCli(['log-dirs', '--log-dir', dirs.join(','), '--json']);
    assert.is(j.code, 0, j.stderr);
    const rows = j.stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(rows.map((r) => [r.logDir, r.partition, r.cleanupPolicy]), [[dirs[0], 0, 'compact'], [dirs[0], 2, 'compact'], [dirs[1], 1, 'compact']]);
    const t = await samsaCli(['log-dirs', '--log-dir', dirs[0]!, '--log-dir', dirs[1]!]);
    assert.is(t.code, 0, t.stderr);
    assert.match(t.stdout.split('\n')[0]!, /^LOG-DIR\s+TOPIC\s+PARTITION/);
    assert.is(t.stdout.trim().split('\n').length, 4);
  } finally {
    cleanup();
  }
});

test.run();
