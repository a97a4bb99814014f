/**
 * DeleteTopics (020) against a fake BrokerServices: the resolution of names and ids, duplicates,
 * ACLs and delete.topic.enable as Kafka's ControllerApis.deleteTopics answers them (behaviours.md
 * DT1-DT6; ControllerApisTest's cases), what it hands to BrokerServices.deleteTopic.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deleteTopicsHandler } from '../../../src/broker/handlers/020-delete-topics.js';
import { loadConfig } from '../../../src/config.js';
import { KafkaApiError } from '../../../src/errors.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { AclOperation, ResourceType } from '../../../src/protocol/acl.js';
import type { DeleteTopicsRequest } from '../../../src/protocol/generated/messages/delete-topics-request.js';
import { fakeAuthorizer, fakeMetadataCache, fakeServices, requestContext, thrown, topicRecord } from '../../support/fake-services.js';

const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';
const UNKNOWN_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';
const [foo, bar, baz, offsets] = [topicRecord('foo', 1), topicRecord('bar', 2), topicRecord('baz', 1), topicRecord('__consumer_offsets', 50, { isInternal: true })];

function setup(opts: { enabled?: boolean; authorizer?: unknown; quotas?: unknown; fail?: (name: string) => Error | null } = {}) {
  const deleted: [string, unknown][] = [];
  const broker = fakeServices({
    authorizer: opts.authorizer ?? null,
    rawConfig: { ...loadConfig(), 'delete.topic.enable': opts.enabled ?? true } as never,
    quotas: (opts.quotas ?? { mutationActive: false }) as never,
    metadataCache: fakeMetadataCache([foo, bar, baz, offsets]),
    logger: { error: () => {} } as never,
    deleteTopic: async (name: string, o: unknown) => {
      const err = opts.fail?.(name);
      if (err) throw err;
      deleted.push([name, o]);
      return topicRecord(name, 1);
    },
  });
  return { broker, deleted };
}

const byNames = (...topicNames: string[]): DeleteTopicsRequest => ({ topicNames, topics: [], timeoutMs: 30_000 });
const byState = (...topics: [string | null, string][]): DeleteTopicsRequest => ({ topicNames: [], topics: topics.map(([name, topicId]) => ({ name, topicId })), timeoutMs: 30_000 });
const del = (broker: ReturnType<typeof setup>['broker'], v: number, req: DeleteTopicsRequest, over = {}) => deleteTopicsHandler.handle(requestContext(broker, 20, v, over), req) as Promise<any>;
/** Kafka shuffles the results (DT6): compared as a sorted set. */
const sorted = (xs: unknown[][]) => xs.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
const rows = (r: any) => sorted(r.responses.map((x: any) => [x.name, x.topicId, x.errorCode, x.errorMessage]));

test('by name (v1-5): NONE with the topic id, deleted through the controller path; unknown names UNKNOWN_TOPIC_OR_PARTITION with the zero id (DT1)', async () => {
  const { broker, deleted } = setup();
  const r = await del(broker, 5, byNames('foo', 'missing'));
  assert.equal(rows(r), sorted([['foo', foo.topicId, 0, null], ['missing', ZERO, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'This server does not host this topic-partition.']]));
  assert.equal(deleted, [['foo', { forwarded: false }]]);
  await del(broker, 5, byNames('bar'), { clientId: 'samsa-forwarded-1' });
  assert.equal(deleted[1], ['bar', { forwarded: true }]);
});

test('v6 by id or by name; unknown id UNKNOWN_TOPIC_ID with a null name (DT2); both or neither INVALID_REQUEST (DT3)', async () => {
  const { broker, deleted } = setup();
  const r = await del(broker, 6, byState([null, bar.topicId], ['baz', ZERO], [null, UNKNOWN_ID], ['foo', foo.topicId], [null, ZERO]));
  assert.equal(rows(r), sorted([
    ['bar', bar.topicId, 0, null], ['baz', baz.topicId, 0, null], [null, UNKNOWN_ID, ErrorCode.UNKNOWN_TOPIC_ID, 'This server does not host this topic ID.'],
    ['foo', foo.topicId, ErrorCode.INVALID_REQUEST, 'You may not specify both topic name and topic id.'], [null, ZERO, ErrorCode.INVALID_REQUEST, 'Neither topic name nor id were specified.'],
  ]));
  assert.equal(deleted.map((d) => d[0]).sort(), ['bar', 'baz']);
});

test('duplicates (DT4): a name or id twice is one INVALID_REQUEST; a name whose id is also given is one entry for the name, and nothing is deleted', async () => {
  const { broker, deleted } = setup();
  const r = await del(broker, 6, byState(['foo', ZERO], ['foo', ZERO], [null, baz.topicId], [null, baz.topicId], [null, baz.topicId], ['bar', ZERO], [null, bar.topicId]));
  assert.equal(rows(r), sorted([
    ['foo', ZERO, ErrorCode.INVALID_REQUEST, 'Duplicate topic name.'],
    [null, baz.topicId, ErrorCode.INVALID_REQUEST, 'Duplicate topic id.'],
    ['bar', bar.topicId, ErrorCode.INVALID_REQUEST, 'The provided topic name maps to an ID that was already supplied.'],
  ]));
  assert.is(r.responses.length, 3);
  const reversed = await del(broker, 6, byState([null, bar.topicId], ['bar', ZERO]));
  assert.equal(rows(reversed), [['bar', bar.topicId, ErrorCode.INVALID_REQUEST, 'The provided topic name maps to an ID that was already supplied.']]);
  assert.equal(deleted, []);
});

test('delete.topic.enable=false fails the whole request before any work: TOPIC_DELETION_DISABLED from v3, INVALID_REQUEST before (DT5)', async () => {
  const { broker, deleted } = setup({ enabled: false });
  const v3 = await thrown(() => del(broker, 3, byNames('foo')));
  assert.is((v3 as KafkaApiError).errorCode, ErrorCode.TOPIC_DELETION_DISABLED);
  const v2 = await thrown(() => del(broker, 2, byNames('foo')));
  assert.equal([(v2 as KafkaApiError).errorCode, (v2 as KafkaApiError).message], [ErrorCode.INVALID_REQUEST, 'Topic deletion is disabled.']);
  assert.equal(deleted, []);
  const e = deleteTopicsHandler.errorResponse(byState(['foo', ZERO], [null, bar.topicId]), ErrorCode.TOPIC_DELETION_DISABLED, requestContext(broker, 20, 6));
  assert.equal(e.responses.map((x) => [x.name, x.topicId, x.errorCode]), [['foo', ZERO, 73], [null, bar.topicId, 73]]);
});

test('ACLs as ControllerApis checks them: DESCRIBE, then existence, then DELETE for names; ids answer a null name unless describable', async () => {
  // foo: describable only; bar: nothing; baz: describe + delete (ControllerApisTest.testNotAuthorizedToDelete*).
  const authorizer = fakeAuthorizer((c) => c.resourceType === ResourceType.TOPIC && ((c.op === AclOperation.DESCRIBE && ['foo', 'baz', 'missing'].includes(c.name)) || (c.op === AclOperation.DELETE && c.name === 'baz')));
  const { broker, deleted } = setup({ authorizer });
  const byName = await del(broker, 6, byState(['foo', ZERO], ['bar', ZERO], ['missing', ZERO], ['secret-missing', ZERO], ['baz', ZERO]));
  assert.equal(rows(byName), sorted([
    ['foo', ZERO, ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Topic authorization failed.'], ['bar', ZERO, ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Topic authorization failed.'],
    ['missing', ZERO, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'This server does not host this topic-partition.'],
    ['secret-missing', ZERO, ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Topic authorization failed.'], ['baz', baz.topicId, 0, null],
  ]));
  const byId = await del(broker, 6, byState([null, foo.topicId], [null, bar.topicId]));
  assert.equal(rows(byId), sorted([['foo', foo.topicId, 29, 'Topic authorization failed.'], [null, bar.topicId, 29, 'Topic authorization failed.']]));
  assert.equal(deleted.map((d) => d[0]), ['baz']);
  const cluster = setup({ authorizer: fakeAuthorizer((c) => c.resourceType === ResourceType.CLUSTER && c.op === AclOperation.DELETE) });
  assert.equal(rows(await del(cluster.broker, 6, byState(['bar', ZERO]))), [['bar', bar.topicId, 0, null]]);
});

test('internal topics are refused with INVALID_TOPIC_EXCEPTION (a Samsa deviation: Kafka\'s controller deletes them)', async () => {
  const { broker, deleted } = setup();
  const r = await del(broker, 5, byNames('__consumer_offsets'));
  assert.equal(rows(r), [['__consumer_offsets', offsets.topicId, ErrorCode.INVALID_TOPIC_EXCEPTION, 'Topic __consumer_offsets is a kafka internal topic and is not allowed to be marked for deletion.']]);
  assert.equal(deleted, []);
});

test('a failed deletion is that topic\'s error; controller_mutation_rate is strict from v5', async () => {
  const { broker } = setup({ fail: (name) => (name === 'foo' ? new KafkaApiError(ErrorCode.NOT_CONTROLLER) : name === 'bar' ? new Error('disk') : null) });
  assert.equal(rows(await del(broker, 5, byNames('foo', 'bar'))), [['bar', bar.topicId, ErrorCode.UNKNOWN_SERVER_ERROR, null], ['foo', foo.topicId, ErrorCode.NOT_CONTROLLER, null]]);
  const asked: unknown[][] = [];
  const quotas = { mutationActive: true, mutate: (_p: string, _c: string, n: number, strict: boolean) => (asked.push([n, strict]), { accepted: n < 2, throttleMs: n < 2 ? 0 : 300 }), throttle: () => {} };
  const q = setup({ quotas });
  const r = await del(q.broker, 5, byNames('foo', 'bar'));
  assert.equal([rows(r).map((x: any) => [x[0], x[2]]), r.throttleTimeMs, asked, q.deleted.map((d) => d[0])], [[['bar', ErrorCode.THROTTLING_QUOTA_EXCEEDED], ['foo', 0]], 300, [[1, true], [2, true]], ['foo']]);
});

test.run();
