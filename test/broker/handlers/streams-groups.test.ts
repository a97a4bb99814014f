/**
 * The streams group handlers (088, 089, 093) on a broker over a socket: served while
 * streams.version 1 is finalized (as on a new cluster), UNSUPPORTED_VERSION once it is downgraded
 * to 0 (Kafka 4.4's isStreamsGroupProtocolEnabled), and StreamsGroupTopologyDescriptionUpdate
 * answered as Kafka 4.4 without a topology description plugin.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startBroker, type RunningBroker } from '../../../src/testing/start-broker.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { WireClient } from './_admin-wire.js';

let b: RunningBroker;
let c: WireClient;

test.before(async () => {
  b = await startBroker({ port: 0 });
  c = await WireClient.connect(b.port);
  await c.send(19, 7, { topics: [{ name: 'sgh-in', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10000, validateOnly: false });
});

test.after(async () => {
  c?.close();
  await b?.stop();
});

const join = (groupId: string) => c.send(88, 1, {
  groupId, memberId: 'sgh-member', memberEpoch: 0, endpointInformationEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30000,
  topology: { epoch: 0, subtopologies: [{ subtopologyId: '0', sourceTopics: ['sgh-in'], sourceTopicRegex: [], stateChangelogTopics: [], repartitionSinkTopics: [], repartitionSourceTopics: [], copartitionGroups: [] }] },
  activeTasks: [], standbyTasks: [], warmupTasks: [], processId: 'p', userEndpoint: null, clientTags: [], taskOffsets: [], taskEndOffsets: [], shutdownApplication: false,
}) as Promise<any>;
const describe = (groupId: string) => c.send(89, 1, { groupIds: [groupId], includeAuthorizedOperations: false, includeTopologyDescription: false }) as Promise<any>;

test('with streams.version 1 (a new cluster) a member joins and the group is described', async () => {
  const r = await join('sgh-a');
  assert.equal([r.errorCode, r.memberId, r.memberEpoch], [ErrorCode.NONE, 'sgh-member', 1]);
  const d = (await describe('sgh-a')).groups[0];
  assert.equal([d.errorCode, d.groupId, d.members.length, d.assignorName], [ErrorCode.NONE, 'sgh-a', 1, 'sticky']);
});

test('StreamsGroupTopologyDescriptionUpdate: UNSUPPORTED_VERSION with Kafka 4.4\'s message (no plugin)', async () => {
  const r = await c.send(93, 0, { groupId: 'sgh-a', memberId: 'sgh-member', topologyEpoch: 0, topologyDescription: { subtopologies: [], globalStores: [] } }) as any;
  assert.equal([r.errorCode, r.errorMessage], [ErrorCode.UNSUPPORTED_VERSION, 'The broker has no streams group topology description plugin configured.']);
});

test('with streams.version downgraded to 0 heartbeats and describes answer UNSUPPORTED_VERSION', async () => {
  const u = await c.send(57, 1, { timeoutMs: 60000, validateOnly: false, featureUpdates: [{ feature: 'streams.version', maxVersionLevel: 0, upgradeType: 2, allowDowngrade: true }] }) as any;
  assert.is(u.errorCode, ErrorCode.NONE, JSON.stringify(u));
  const r = await join('sgh-b');
  assert.equal([r.errorCode, r.memberEpoch, r.memberId], [ErrorCode.UNSUPPORTED_VERSION, 0, '']);
  assert.is((await describe('sgh-a')).groups[0].errorCode, ErrorCode.UNSUPPORTED_VERSION);
  const back = await c.send(57, 1, { timeoutMs: 60000, validateOnly: false, featureUpdates: [{ feature: 'streams.version', maxVersionLevel: 1, upgradeType: 1, allowDowngrade: false }] }) as any;
  assert.is(back.errorCode, ErrorCode.NONE);
  assert.is((await join('sgh-b')).errorCode, ErrorCode.NONE);
});

test.run();
