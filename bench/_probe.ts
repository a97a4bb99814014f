import * as fs from 'node:fs'; import * as os from 'node:os'; import * as path from 'node:path';
import { nodeFs, MemFs } from '../src/storage/fs.js';
import { PartitionLog, defaultLogConfig } from '../src/storage/partition-log.js';
import { systemClock } from '../src/clock.js';
import { buildRecordBatch } from '../src/protocol/records/record.js';
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-probe-'));
const t = buildRecordBatch({ records: Array.from({ length: 16 }, () => ({ key: null, value: Buffer.alloc(1012, 1), timestamp: 1n })) });
for (const [name, f, iib] of [['node', nodeFs, 4096], ['node-noidx', nodeFs, 1 << 30], ['mem', new MemFs(), 4096]] as const) {
  const log = await PartitionLog.open({ fs: f, dir: path.join(root, name, 'b-0'), topic: 'b', partition: 0, config: { ...defaultLogConfig, indexIntervalBytes: iib }, clock: systemClock });
  for (let i = 0; i < 500; i++) await log.appendAsLeader(Buffer.from(t), 0);
  const t0 = performance.now();
  for (let i = 0; i < 8000; i++) await log.appendAsLeader(Buffer.from(t), 0);
  console.log(name, ((performance.now() - t0) * 1000 / 8000).toFixed(1), 'us/op');
  await log.close();
}
fs.rmSync(root, { recursive: true, force: true });
