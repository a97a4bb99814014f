/**
 * Metadata v12 by topic id, as Kafka 4.4 answers it: any non-zero topic id makes the request a
 * lookup by id (the Java admin client's describeTopics(TopicCollection.ofTopicIds) sends
 * {topicId, name: ""}), names are then ignored, unknown ids come first with UNKNOWN_TOPIC_ID and a
 * null name.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { WireClient, withBroker } from './_admin-wire.js';

let c: WireClient;
withBroker(test, { port: 0 }, async (_b, nc) => {
  c = nc;
});

const UNKNOWN_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';
const md = (topics: { topicId: string; name: string | null }[]) =>
  c.send(3, 12, { topics, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });

test('v12 entries with an id and an empty name are looked up by id; unknown ids first', async () => {
  const created = await c.send(19, 7, { topics: [{ name: 'by-id-a', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
  assert.is(created.topics[0].errorCode, ErrorCode.NONE);
  const id = (await md([{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'by-id-a' }])).topics[0].topicId;
  assert.is.not(id, 'AAAAAAAAAAAAAAAAAAAAAA');

  const r = await md([{ topicId: id, name: '' }, { topicId: UNKNOWN_ID, name: '' }]);
  assert.equal(r.topics.map((t: any) => [t.errorCode, t.name, t.topicId, t.partitions.length]), [
    [ErrorCode.UNKNOWN_TOPIC_ID, null, UNKNOWN_ID, 0],
    [ErrorCode.NONE, 'by-id-a', id, 2],
  ]);
  // A name beside an id is ignored; a zero-id entry is skipped in an id lookup.
  const mixed = await md([{ topicId: id, name: 'something-else' }, { topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'by-id-a' }]);
  assert.equal(mixed.topics.map((t: any) => [t.errorCode, t.name]), [[ErrorCode.NONE, 'by-id-a']]);
});

test.run();
