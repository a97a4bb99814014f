/** Pure logic of src/broker/topic-configs.ts (no broker). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KafkaApiError } from '../../../src/errors.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { alterConfigResources, applyIncrementalOps, validateTopicConfigs } from '../../../src/broker/topic-configs.js';

function failure(fn: () => unknown): [number, string] {
  try {
    fn();
  } catch (e) {
    if (e instanceof KafkaApiError) return [e.errorCode, e.message];
    throw e;
  }
  throw new Error('did not throw');
}

test('validateTopicConfigs: nulls first, then unknown names, then values; returns the map', () => {
  assert.equal(validateTopicConfigs({ 'retention.ms': '5', 'cleanup.policy': 'compact' }), { 'retention.ms': '5', 'cleanup.policy': 'compact' });
  assert.equal(validateTopicConfigs({}), {});
  assert.equal(failure(() => validateTopicConfigs({ nope: '1', 'retention.ms': null })), [ErrorCode.INVALID_CONFIG, 'Null value not supported for topic configs: retention.ms']);
  assert.equal(failure(() => validateTopicConfigs({ 'retention.ms': 'x', nope: '1' })), [ErrorCode.INVALID_CONFIG, 'Unknown topic config name: nope']);
  assert.equal(failure(() => validateTopicConfigs({ 'cleanup.policy': 'sometimes' })), [ErrorCode.INVALID_CONFIG, 'Invalid value sometimes for configuration cleanup.policy: String must be one of: compact, delete']);
  assert.equal(failure(() => validateTopicConfigs({ 'min.insync.replicas': '0' }))[0], ErrorCode.INVALID_CONFIG);
});

test('applyIncrementalOps: APPEND/SUBTRACT start from the override or the default', () => {
  assert.equal(applyIncrementalOps({}, [{ name: 'cleanup.policy', configOperation: 2, value: 'compact' }]), { 'cleanup.policy': 'delete,compact' });
  assert.equal(applyIncrementalOps({ 'cleanup.policy': 'compact' }, [{ name: 'cleanup.policy', configOperation: 3, value: 'compact' }]), { 'cleanup.policy': '' });
  assert.equal(applyIncrementalOps({ a: '1' }, [{ name: 'a', configOperation: 1, value: null }, { name: 'b', configOperation: 0, value: '2' }]), { b: '2' });
  assert.equal(failure(() => applyIncrementalOps({}, [{ name: 'nope', configOperation: 2, value: 'x' }])), [ErrorCode.INVALID_CONFIG, "Can't APPEND to key nope because its type is not LIST."]);
  assert.equal(failure(() => applyIncrementalOps({}, [{ name: 'a', configOperation: -1, value: 'x' }])), [ErrorCode.UNKNOWN_SERVER_ERROR, 'UNKNOWN_SERVER_ERROR']);
});

test('alterConfigResources against a fake broker: applies unless validate_only', async () => {
  const stored: Record<string, Record<string, string>> = { t: { 'retention.ms': '1' } };
  const target = {
    nodeId: 3,
    metadataCache: { topic: (n: string) => (stored[n] ? { configs: stored[n] } : undefined) },
    setTopicConfigs: (n: string, cfg: Record<string, string>) => { stored[n] = cfg; },
  };
  const res = (validateOnly: boolean) => alterConfigResources(target, [{ resourceType: 2, resourceName: 't', configs: [{ name: 'segment.ms', configOperation: 0, value: '100' }] }], { validateOnly, incremental: true });
  assert.equal(await res(true), [{ resourceType: 2, resourceName: 't', errorCode: 0, errorMessage: null }]);
  assert.equal(stored.t, { 'retention.ms': '1' });
  await res(false);
  assert.equal(stored.t, { 'retention.ms': '1', 'segment.ms': '100' });
  const [broker] = await alterConfigResources(target, [{ resourceType: 4, resourceName: '+3', configs: [] }], { validateOnly: false, incremental: false });
  assert.is(broker.errorCode, ErrorCode.NONE);
});

test.run();
