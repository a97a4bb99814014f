/**
 * ACLs on the KIP-848 APIs (StandardAuthorizer, SASL PLAIN users), as Kafka's KafkaApis checks
 * them: ConsumerGroupHeartbeat needs READ on the group and DESCRIBE on every subscribed topic
 * name; ConsumerGroupDescribe needs DESCRIBE on the group and on every topic of the members'
 * assignments; authorized operations are the principal's.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { KafkaClient } from '../../src/cli/client.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { e2eLogLevel } from '../support/clients.js';

const { Kafka, logLevel, AclResourceTypes: R, AclOperationTypes: O, AclPermissionTypes: P, ResourcePatternTypes: T } = kafkajs;
const USERS = { admin: 'admin-secret', alice: 'alice-secret' };

let b: RunningBroker;
const clients: KafkaClient[] = [];

async function as(user: keyof typeof USERS): Promise<KafkaClient> {
  const c = await KafkaClient.connect({ bootstrap: b.bootstrap, security: { protocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'PLAIN', username: user, password: USERS[user] } } });
  clients.push(c);
  return c;
}

const join = (group: string, memberId: string, topics: string[]) => ({
  groupId: group, memberId, memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30000,
  subscribedTopicNames: topics, subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
});

test.before(async () => {
  b = await startBroker({
    sasl: { plain: USERS },
    logLevel: e2eLogLevel,
    config: { 'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer', 'super.users': 'User:admin', 'auto.create.topics.enable': false },
  });
  const admin = new Kafka({ clientId: 'acl-admin', brokers: [b.bootstrap], logLevel: logLevel.NOTHING, sasl: { mechanism: 'plain', username: 'admin', password: USERS.admin } }).admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'cpa-open', numPartitions: 2 }, { topic: 'cpa-secret', numPartitions: 2 }] });
  await admin.createAcls({
    acl: [
      { resourceType: R.GROUP, resourceName: 'cpa-alice', resourcePatternType: T.PREFIXED, principal: 'User:alice', host: '*', operation: O.READ, permissionType: P.ALLOW },
      { resourceType: R.TOPIC, resourceName: 'cpa-open', resourcePatternType: T.LITERAL, principal: 'User:alice', host: '*', operation: O.READ, permissionType: P.ALLOW },
    ],
  });
  await admin.disconnect();
});

test.after(async () => {
  for (const c of clients) c.close();
  await b?.stop();
});

test('ConsumerGroupHeartbeat: GROUP_AUTHORIZATION_FAILED without READ on the group, TOPIC_AUTHORIZATION_FAILED for an undescribable topic', async () => {
  const alice = await as('alice');
  const denied = await alice.send(68, 1, join('cpa-other', 'm1', ['cpa-open']));
  assert.is(denied.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);
  const secret = await alice.send(68, 1, join('cpa-alice-1', 'm1', ['cpa-open', 'cpa-secret']));
  assert.is(secret.errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  assert.is(secret.errorMessage, 'Not authorized to access topics: [Topic authorization failed.]');
  const ok = await alice.send(68, 1, join('cpa-alice-1', 'm1', ['cpa-open']));
  assert.is(ok.errorCode, ErrorCode.NONE);
  assert.is(ok.assignment!.topicPartitions[0].partitions.length, 2);
});

test('ConsumerGroupDescribe: a group whose assignment names an undescribable topic answers TOPIC_AUTHORIZATION_FAILED to that principal', async () => {
  const admin = await as('admin');
  const joined = await admin.send(68, 1, join('cpa-alice-2', 'm1', ['cpa-secret']));
  assert.is(joined.errorCode, ErrorCode.NONE);
  const alice = await as('alice');
  const d = await alice.send(69, 1, { groupIds: ['cpa-alice-2', 'cpa-alice-1', 'cpa-other'], includeAuthorizedOperations: true });
  assert.equal(d.groups.map((g: { groupId: string; errorCode: number }) => [g.groupId, g.errorCode]), [
    ['cpa-alice-2', ErrorCode.TOPIC_AUTHORIZATION_FAILED],
    ['cpa-alice-1', ErrorCode.NONE],
    ['cpa-other', ErrorCode.GROUP_AUTHORIZATION_FAILED],
  ]);
  assert.is(d.groups[0].errorMessage, 'The group has described topic(s) that the client is not authorized to describe.');
  assert.is(d.groups[1].authorizedOperations, (1 << 3) | (1 << 8), 'alice may READ, and so DESCRIBE, the group');
  const full = await admin.send(69, 1, { groupIds: ['cpa-alice-2'], includeAuthorizedOperations: false });
  assert.is(full.groups[0].errorCode, ErrorCode.NONE, 'the super user sees it');
});

test.run();
