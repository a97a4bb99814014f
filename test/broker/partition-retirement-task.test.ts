/**
 * The controller's deletion of retired partitions (src/broker/partition-retirement-task.ts) on one
 * broker, driven one pass at a time: a retired partition stays while it holds unexpired records
 * or a group has committed below its end, partitions go from the top only, and the retirement
 * config leaves with the last one.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBroker } from '../../src/testing/start-broker.js';
import { PARTITIONS_KEEP } from '../../src/cluster/partition-retirement.js';
import { tmpDir } from '../support/tmp.js';

const { Kafka, logLevel } = kafkajs;

test('a retired partition is deleted once retention emptied it and every group committed its end, highest first', async () => {
  const b = await startBroker({ port: 0, config: { 'log.retention.check.interval.ms': 3_600_000 } });
  const kafka = new Kafka({ clientId: 'task', brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  const producer = kafka.producer();
  try {
    await admin.connect();
    await producer.connect();
    await admin.createTopics({ topics: [{ topic: 'q', numPartitions: 3 }] });
    for (const partition of [1, 2]) await producer.send({ topic: 'q', acks: -1, messages: [{ partition, value: 'a' }, { partition, value: 'b' }] });
    await admin.setOffsets({ groupId: 'slow', topic: 'q', partitions: [{ partition: 1, offset: '1' }, { partition: 2, offset: '2' }] });
    const task = b.broker.retirement!;
    const configs = (keep: string) => admin.alterConfigs({ validateOnly: false, resources: [{ type: 2, name: 'q', configEntries: [{ name: PARTITIONS_KEEP, value: keep }, { name: 'retention.ms', value: '1' }] }] });

    await admin.alterConfigs({ validateOnly: false, resources: [{ type: 2, name: 'q', configEntries: [{ name: PARTITIONS_KEEP, value: '1' }] }] });
    assert.is(await task.runOnce(), 0, 'unexpired records keep both');
    await configs('1');
    await b.broker.logs.enforceRetentionAll();
    const log = (p: number) => b.broker.replicaManager.getPartition('q', p)!.log;
    assert.equal([log(1).logStartOffset, log(2).logStartOffset], [2, 2], 'retention emptied the retired partitions');

    assert.is(await task.runOnce(), 0, 'a partition goes only when found drained in two passes in a row');
    assert.is(await task.runOnce(), 1, 'partition 2 (committed at its end) goes; partition 1 (group at 1 of 2) stays');
    assert.is(b.broker.metadataCache.topic('q')!.partitions, 2);
    assert.is(b.broker.metadataCache.topic('q')!.configs[PARTITIONS_KEEP], '1', 'partition 1 is still retired');
    assert.is(b.broker.replicaManager.getPartition('q', 2), undefined);

    await admin.setOffsets({ groupId: 'slow', topic: 'q', partitions: [{ partition: 1, offset: '2' }] });
    assert.is(await task.runOnce(), 0);
    assert.is(await task.runOnce(), 1);
    assert.is(b.broker.metadataCache.topic('q')!.partitions, 1);
    assert.is(b.broker.metadataCache.topic('q')!.configs[PARTITIONS_KEEP], undefined);
    assert.is(b.broker.metadataCache.topic('q')!.configs['retention.ms'], '1', 'other configs stay');
    const md = await admin.fetchTopicMetadata({ topics: ['q'] });
    assert.equal(md.topics[0].partitions.map((p) => p.partitionId), [0]);
    assert.is(await task.runOnce(), 0, 'nothing left to do');
  } finally {
    await producer.disconnect().catch(() => {});
    await admin.disconnect().catch(() => {});
    await b.stop();
  }
});

test('a restart keeps the retirement; a log left by a partition deleted while the broker was down is removed at start', async () => {
  const dir = tmpDir('retire-restart');
  let b = await startBroker({ port: 0, logDir: dir.path });
  try {
    const kafka = new Kafka({ clientId: 'restart', brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'kept', numPartitions: 3 }] });
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: 2, name: 'kept', configEntries: [{ name: PARTITIONS_KEEP, value: '2' }] }] });
    await admin.disconnect();
    await b.stop();
    b = await startBroker({ port: 0, logDir: dir.path, config: { 'log.retention.check.interval.ms': 3_600_000 } });
    assert.is(b.broker.metadataCache.topic('kept')!.configs[PARTITIONS_KEEP], '2', 'the retirement survives a restart');
    assert.ok(b.broker.replicaManager.getPartition('kept', 2), 'partition 2 is still there, retired');
    await b.stop();
    // The partition deleted from the metadata while this broker was down (another controller did it).
    const file = join(dir.path, 'samsa-metadata.json');
    const data = JSON.parse(readFileSync(file, 'utf8')) as { topics: { name: string; topicId: string; partitions: number; configs: Record<string, string> }[]; partitions: { topicId: string; partition: number }[] };
    const t = data.topics.find((x) => x.name === 'kept')!;
    t.partitions = 2;
    delete t.configs[PARTITIONS_KEEP];
    data.partitions = data.partitions.filter((p) => !(p.topicId === t.topicId && p.partition === 2));
    writeFileSync(file, JSON.stringify(data));
    assert.ok(existsSync(join(dir.path, 'kept-2')));
    b = await startBroker({ port: 0, logDir: dir.path });
    assert.is(b.broker.logs.getLog('kept', 2), undefined, 'the log of the deleted partition is gone');
    assert.ok(!existsSync(join(dir.path, 'kept-2')), 'its directory too');
    assert.ok(b.broker.logs.getLog('kept', 1));
    assert.is(b.broker.metadataCache.topic('kept')!.partitions, 2);
  } finally {
    await b.stop();
    dir.cleanup();
  }
});

test.run();
