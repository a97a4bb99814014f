import { MemFs, nodeFs } from '../../src/storage/fs.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { ManualClock } from '../../src/clock.js';
import { batch, config, offsetsOf, tempDir } from './helpers.js';

const clock = new ManualClock();
for (const fs of [new MemFs(), nodeFs]) {
  const t = tempDir();
  const dir = t.dir + '/t-0';
  const log = await PartitionLog.open({ fs, dir, topic: 't', partition: 0, config: config({ segmentBytes: 1000, indexIntervalBytes: 100 }), clock });
  for (let i = 0; i < 50; i++) await log.appendAsLeader(batch(3), 1);
  console.log(log.logEndOffset, log.numberOfSegments, log.segmentBaseOffsets.slice(0, 5));
  const r = await log.read(77, 500, { minOneMessage: true });
  console.log(offsetsOf(r.records).slice(0, 5), r.sizeBytes);
  await log.close();
  const log2 = await PartitionLog.open({ fs, dir, topic: 't', partition: 0, config: config({ segmentBytes: 1000, indexIntervalBytes: 100 }), clock });
  console.log('reopen', log2.logEndOffset, log2.numberOfSegments);
  const r2 = await log2.read(0, 1 << 20, { minOneMessage: true });
  console.log(offsetsOf(r2.records).length);
  await log2.close();
  t.cleanup();
}
