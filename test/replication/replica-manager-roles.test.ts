/**
 * The replica manager's pass over a topic of many partitions (src/replication/replica-manager.ts):
 * the partitions become leaders together, so their leader-epoch checkpoints (each written
 * atomically with its fsyncs before the partition counts as led) are written concurrently, and
 * every one of them lands with the leader's epoch; a new log's goes to disk with its
 * partition.metadata (one directory fsync for both).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventEmitter } from 'node:events';
import { MemFs } from '../../src/storage/fs.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { ReplicaManager } from '../../src/replication/replica-manager.js';
import { ManualClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import type { MetadataCache } from '../../src/cluster/metadata-cache.js';
import type { PartitionState, TopicRecord } from '../../src/cluster/metadata-store.js';
import { config } from '../storage/helpers.js';

const NODE = 1;
const EPOCH_FILE = '/leader-epoch-checkpoint';

/** A MemFs whose atomic writes of leader-epoch checkpoints take a few turns of the event loop and are counted while in flight. */
class SlowEpochWritesFs extends MemFs {
  inFlight = 0;
  maxInFlight = 0;
  epochWrites = 0;
  /** The file names of each writeFilesAtomic call. */
  batches: string[][] = [];

  override async writeFilesAtomic(files: readonly { path: string; data: Uint8Array }[]): Promise<void> {
    this.batches.push(files.map((f) => f.path.slice(f.path.lastIndexOf('/') + 1)));
    return super.writeFilesAtomic(files);
  }

  override async writeFileAtomic(filePath: string, data: Uint8Array): Promise<void> {
    if (!filePath.endsWith(EPOCH_FILE)) return super.writeFileAtomic(filePath, data);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
      await super.writeFileAtomic(filePath, data);
      this.epochWrites++;
    } finally {
      this.inFlight--;
    }
  }
}

/** The parts of a MetadataCache the replica manager reads, holding one topic led by this node. */
function fakeCache(topic: TopicRecord, leaderEpoch: number): MetadataCache {
  const states: PartitionState[] = Array.from({ length: topic.partitions }, (_, partition) => ({
    topicId: topic.topicId, partition, replicas: [NODE], isr: [NODE], leader: NODE, leaderEpoch, partitionEpoch: 0,
  }));
  const cache = Object.assign(new EventEmitter(), {
    revision: 1,
    topics: new Map([[topic.name, topic]]),
    brokers: new Map(),
    topic: (name: string) => (name === topic.name ? topic : undefined),
    partitionsOf: (id: string) => (id === topic.topicId ? states : []),
    isEligible: () => true,
  });
  return cache as unknown as MetadataCache;
}

const TOPIC: TopicRecord = { name: 'many', topicId: 'bWFueXBhcnRpdGlvbnMwMA', partitions: 40, replicationFactor: 1, configs: {}, isInternal: false };

async function setUp(opts: { logsFirst: boolean }): Promise<{ fs: SlowEpochWritesFs; logs: LogManager; rm: ReplicaManager }> {
  const fs = new SlowEpochWritesFs();
  const clock = new ManualClock();
  const logs = await LogManager.open({ fs, logDirs: '/data', clock, defaults: config() });
  await logs.loadAll();
  if (opts.logsFirst) for (let p = 0; p < TOPIC.partitions; p++) await logs.createLog(TOPIC.name, p, config(), TOPIC.topicId);
  const rm = new ReplicaManager({
    nodeId: NODE, logs, metadataCache: fakeCache(TOPIC, 7), clock, replicaLagTimeMaxMs: 30_000,
    minInsyncReplicas: () => 1, alterIsr: async () => { throw new Error('no ISR change expected'); },
    logConfig: () => config(), logger: createLogger('silent'),
  });
  return { fs, logs, rm };
}

async function assertLedAtEpoch7(fs: MemFs, rm: ReplicaManager): Promise<void> {
  for (let p = 0; p < TOPIC.partitions; p++) {
    const part = rm.getPartition('many', p)!;
    assert.ok(part.isLeader, `partition ${p} is led`);
    assert.equal(part.log.leaderEpochCache.all, [{ epoch: 7, startOffset: 0 }]);
    const text = (await fs.readFile(`/data/many-${p}${EPOCH_FILE}`)).toString('utf8');
    assert.is(text, '0\n1\n7 0\n', `partition ${p}'s checkpoint is on disk`);
  }
}

test('existing logs becoming leaders together: their leader-epoch checkpoints are written concurrently and all land', async () => {
  const { fs, logs, rm } = await setUp({ logsFirst: true });
  try {
    await rm.start();
    assert.is(fs.epochWrites, 40, 'one checkpoint write per new leader');
    assert.ok(fs.maxInFlight > 1, `checkpoint writes overlapped (at most ${fs.maxInFlight} at once)`);
    await assertLedAtEpoch7(fs, rm);
  } finally {
    await rm.stop();
    await logs.close();
  }
});

test('new partitions: the epoch of each leader is written with its partition.metadata in one atomic batch, nothing more at makeLeader', async () => {
  const { fs, logs, rm } = await setUp({ logsFirst: false });
  try {
    await rm.start();
    assert.is(fs.batches.length, 40, 'one batch per new log');
    for (const b of fs.batches) assert.equal([...b].sort(), ['leader-epoch-checkpoint', 'partition.metadata']);
    assert.is(fs.epochWrites, 40, 'no second write of any checkpoint by makeLeader');
    assert.ok(fs.maxInFlight > 1, `the logs' writes overlapped (at most ${fs.maxInFlight} at once)`);
    await assertLedAtEpoch7(fs, rm);
  } finally {
    await rm.stop();
    await logs.close();
  }
});

test.run();
