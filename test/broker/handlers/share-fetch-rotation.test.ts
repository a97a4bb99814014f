/**
 * ShareFetch serves the partitions of a share session in Kafka's round-robin order
 * (PartitionRotateStrategy.ROUND_ROBIN: the list starts at the session epoch modulo its size), so
 * a partition whose records fill max_records on every fetch does not starve the partitions after
 * it. Seen with franz-go's TestShareGroupETL: a member's fetches kept taking new records of the
 * first partitions of its session while released records of the later ones waited.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../../src/index.js';
import { KafkaClient } from '../../../src/cli/client.js';

const GROUP = 'rotation';
const TOPIC = 'rotation-t';

let b: RunningBroker;

test.before(async () => {
  b = await startBroker({ config: { 'group.share.assignment.interval.ms': '0' } });
});
test.after(async () => {
  await b?.stop();
});

test('a session\'s partitions take turns: the second fetch starts at the second partition', async () => {
  const kafka = new kafkajs.Kafka({ brokers: [b.bootstrap], logLevel: kafkajs.logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 2 }] });
  await admin.disconnect();
  const c = await KafkaClient.connect({ bootstrap: b.bootstrap });
  try {
    const alter = await c.request(44, { validateOnly: false, resources: [{ resourceType: 32, resourceName: GROUP, configs: [
      { name: 'share.auto.offset.reset', configOperation: 0, value: 'earliest' },
    ] }] });
    assert.is(alter.responses[0].errorCode, 0, alter.responses[0].errorMessage ?? '');
    // 20 one-record batches in each partition: every fetch of 5 records fills up on the first
    // partition it looks at.
    const producer = kafka.producer();
    await producer.connect();
    for (let i = 0; i < 20; i++) {
      await producer.send({ topic: TOPIC, messages: [{ partition: 0, value: `p0-${i}` }, { partition: 1, value: `p1-${i}` }] });
    }
    await producer.disconnect();

    let hb = await c.request(76, { groupId: GROUP, memberId: 'rotation-member', memberEpoch: 0, rackId: null, subscribedTopicNames: [TOPIC] });
    assert.is(hb.errorCode, 0, hb.errorMessage ?? '');
    for (let i = 0; i < 50 && (hb.assignment?.topicPartitions[0]?.partitions.length ?? 0) < 2; i++) {
      await new Promise((r) => setTimeout(r, 100));
      hb = await c.request(76, { groupId: GROUP, memberId: 'rotation-member', memberEpoch: hb.memberEpoch, rackId: null, subscribedTopicNames: [TOPIC] });
    }
    const topicId = hb.assignment!.topicPartitions[0].topicId;
    const acquiredBy: number[][] = [];
    for (let epoch = 0; epoch < 2; epoch++) {
      const fetched = await c.request(78, {
        groupId: GROUP, memberId: 'rotation-member', shareSessionEpoch: epoch, maxWaitMs: 2000, minBytes: 1, maxBytes: 1 << 20, maxRecords: 5, batchSize: 5, shareAcquireMode: 0, isRenewAck: false,
        topics: epoch === 0 ? [{ topicId, partitions: [0, 1].map((p) => ({ partitionIndex: p, partitionMaxBytes: 0, acknowledgementBatches: [] })) }] : [],
        forgottenTopicsData: [],
      });
      assert.is(fetched.errorCode, 0);
      acquiredBy.push(fetched.responses.flatMap((t) => t.partitions).filter((p) => p.acquiredRecords.length > 0).map((p) => p.partitionIndex));
    }
    // Kafka 4.4: epoch 0 from the first partition, epoch 1 from the second (Samsa served the first
    // partition again while it had records, and the second one not at all).
    assert.equal(acquiredBy, [[0], [1]]);
  } finally {
    c.close();
  }
});

test.run();
