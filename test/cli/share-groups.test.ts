/**
 * `samsa groups describe` on a share group and `samsa dlq tail`, end to end: a member joins over
 * the wire (ShareGroupHeartbeat), acquires three records (ShareFetch), accepts one, rejects one
 * (dead-lettered) and releases one; the CLI then shows the share-partition's start offset, lag
 * and in-flight record, and prints the dead-lettered record with its KIP-1191 headers.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { runSamsa } from '../support/samsa-cli.js';
import { KafkaClient } from '../../src/cli/client.js';

const GROUP = 'cli-share';
const TOPIC = 'cli-share-t';
const DLQ = 'dlq.cli-share';

let b: RunningBroker;

test.before(async () => {
  b = await startBroker({ config: { 'group.share.assignment.interval.ms': '0', 'group.share.min.record.lock.duration.ms': '1000' } });
});
test.after(async () => {
  await b?.stop();
});

const samsa = (args: string[]) => runSamsa(b.bootstrap, args);

test('groups describe shows a share group\'s share-partition; dlq tail prints what was rejected', async () => {
  const kafka = new kafkajs.Kafka({ brokers: [b.bootstrap], logLevel: kafkajs.logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 1 }, { topic: DLQ, numPartitions: 1, configEntries: [{ name: 'errors.deadletterqueue.group.enable', value: 'true' }] }] });
  await admin.disconnect();
  const c = await KafkaClient.connect({ bootstrap: b.bootstrap });
  try {
    const alter = await c.request(44, { validateOnly: false, resources: [{ resourceType: 32, resourceName: GROUP, configs: [
      { name: 'errors.deadletterqueue.topic.name', configOperation: 0, value: DLQ },
      { name: 'share.auto.offset.reset', configOperation: 0, value: 'earliest' },
    ] }] });
    assert.is(alter.responses[0].errorCode, 0, alter.responses[0].errorMessage ?? '');
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: TOPIC, messages: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] });
    await producer.disconnect();

    // Join, then heartbeat until the share-partition is initialised and assigned.
    let hb = await c.request(76, { groupId: GROUP, memberId: 'cli-member', memberEpoch: 0, rackId: null, subscribedTopicNames: [TOPIC] });
    assert.is(hb.errorCode, 0, hb.errorMessage ?? '');
    for (let i = 0; i < 50 && (hb.assignment?.topicPartitions.length ?? 0) === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      hb = await c.request(76, { groupId: GROUP, memberId: 'cli-member', memberEpoch: hb.memberEpoch, rackId: null, subscribedTopicNames: [TOPIC] });
    }
    const topicId = hb.assignment!.topicPartitions[0].topicId;
    const fetched = await c.request(78, {
      groupId: GROUP, memberId: 'cli-member', shareSessionEpoch: 0, maxWaitMs: 2000, minBytes: 1, maxBytes: 1 << 20, maxRecords: 10, batchSize: 10, shareAcquireMode: 0, isRenewAck: false,
      topics: [{ topicId, partitions: [{ partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches: [] }] }], forgottenTopicsData: [],
    });
    assert.is(fetched.errorCode, 0);
    assert.equal(fetched.responses[0].partitions[0].acquiredRecords.map((a) => [Number(a.firstOffset), Number(a.lastOffset), a.deliveryCount]), [[0, 2, 1]]);
    const acked = await c.request(79, {
      groupId: GROUP, memberId: 'cli-member', shareSessionEpoch: 1, isRenewAck: false,
      topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 0n, lastOffset: 2n, acknowledgeTypes: [1, 3, 2] }] }] }],
    });
    assert.is(acked.responses[0].partitions[0].errorCode, 0);
    await c.request(76, { groupId: GROUP, memberId: 'cli-member', memberEpoch: -1, rackId: null, subscribedTopicNames: null });
  } finally {
    c.close();
  }

  const d = await samsa(['groups', 'describe', GROUP]);
  assert.is(d.code, 0, d.stderr);
  assert.match(d.stdout, /Share group: cli-share\tState: Empty/);
  // Offset 0 accepted and 1 rejected: the start offset is 2; offset 2 was released (delivered once).
  assert.match(d.stdout, /cli-share-t\s+0\s+2\s+1\s+1\s+0/);

  const t = await samsa(['dlq', 'tail', GROUP, '--exit']);
  assert.is(t.code, 0, t.stderr);
  assert.equal(t.stdout.trim().split('\n'), [
    '0 __dlq.errors.topic=cli-share-t,__dlq.errors.partition=0,__dlq.errors.offset=1,__dlq.errors.group=cli-share,__dlq.errors.delivery.count=1,__dlq.errors.message=Offset rejected by client.',
  ]);
  const none = await samsa(['dlq', 'tail', 'no-such-group', '--exit']);
  assert.is(none.code, 1);
  assert.match(none.stderr, /has no dead-letter topic/);
});

test.run();
