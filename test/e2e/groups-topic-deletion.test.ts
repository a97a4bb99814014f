import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { startBroker } from '../../src/testing/start-broker.js';
import { tmpDir } from '../support/tmp.js';

const { Kafka, logLevel } = kafkajs;

test('deleting a topic removes its committed offsets from every group, durably; an Empty group left without offsets is gone', async () => {
  const dir = tmpDir('samsa-gtd');
  let b = await startBroker({ port: 0, logDir: dir.path });
  try {
    const kafka = new Kafka({ clientId: 'gtd', brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'doomed', numPartitions: 2 }, { topic: 'kept', numPartitions: 1 }] });
    await admin.setOffsets({ groupId: 'only-doomed', topic: 'doomed', partitions: [{ partition: 0, offset: '0' }, { partition: 1, offset: '0' }] });
    await admin.setOffsets({ groupId: 'both', topic: 'doomed', partitions: [{ partition: 0, offset: '0' }] });
    await admin.setOffsets({ groupId: 'both', topic: 'kept', partitions: [{ partition: 0, offset: '0' }] });
    const before = await b.broker.groupCoordinator.fetchOffsets('both', null);
    assert.equal(before.map((t) => t.name).sort(), ['doomed', 'kept']);
    await admin.deleteTopics({ topics: ['doomed'] });
    await admin.disconnect();

    const check = async () => {
      const both = await b.broker.groupCoordinator.fetchOffsets('both', null);
      assert.equal(both.map((t) => t.name), ['kept'], 'the other topic keeps its offsets');
      const only = await b.broker.groupCoordinator.fetchOffsets('only-doomed', null);
      assert.equal(only, [], 'no offsets left for the deleted topic');
      const groups = (await b.broker.groupCoordinator.listGroups([], [])).map((g) => g.groupId).sort();
      assert.ok(!groups.includes('only-doomed'), `the Empty group without offsets is deleted (groups: ${groups})`);
      assert.ok(groups.includes('both'));
    };
    await check();
    await b.stop();
    b = await startBroker({ port: 0, logDir: dir.path });
    await check();
  } finally {
    await b.stop();
    dir.cleanup();
  }
});

test.run();
