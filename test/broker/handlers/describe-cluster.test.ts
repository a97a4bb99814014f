import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunningBroker } from '../../../src/testing/start-broker.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { WireClient, withBroker } from './_admin-wire.js';

let b: RunningBroker;
let c: WireClient;

withBroker(test, { port: 0 }, async (nb, nc) => {
  b = nb;
  c = nc;
});

test('v0 and v1 describe this node as the only broker and the controller', async () => {
  for (const version of [0, 1]) {
    const r = await c.send(60, version, { includeClusterAuthorizedOperations: false, endpointType: 1, includeFencedBrokers: false });
    assert.is(r.errorCode, ErrorCode.NONE);
    assert.is(r.errorMessage, null);
    assert.is(r.clusterId, b.broker.metadataCache.clusterId);
    assert.is(r.controllerId, b.broker.nodeId);
    const self = b.broker.endpointFor('PLAINTEXT');
    assert.is(self.port, b.port);
    assert.equal(r.brokers, [{ brokerId: b.broker.nodeId, host: self.host, port: b.port, rack: null, isFenced: false }]);
    assert.is(r.clusterAuthorizedOperations, -2147483648);
    assert.is(r.endpointType, 1);
  }
});

test('cluster authorized operations when asked: every CLUSTER operation (no authorizer)', async () => {
  const r = await c.send(60, 1, { includeClusterAuthorizedOperations: true, endpointType: 1, includeFencedBrokers: false });
  assert.is(r.clusterAuthorizedOperations, 8096);
});

test('endpoint type 2 is MISMATCHED_ENDPOINT_TYPE, others UNSUPPORTED_ENDPOINT_TYPE, with empty bodies', async () => {
  const ctl = await c.send(60, 1, { includeClusterAuthorizedOperations: false, endpointType: 2, includeFencedBrokers: false });
  assert.is(ctl.errorCode, ErrorCode.MISMATCHED_ENDPOINT_TYPE);
  assert.is(ctl.errorMessage, 'The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER');
  assert.is(ctl.clusterId, '');
  assert.is(ctl.controllerId, -1);
  assert.equal(ctl.brokers, []);
  for (const t of [0, 3]) {
    const r = await c.send(60, 1, { includeClusterAuthorizedOperations: false, endpointType: t, includeFencedBrokers: false });
    assert.is(r.errorCode, ErrorCode.UNSUPPORTED_ENDPOINT_TYPE);
    assert.is(r.errorMessage, `Unsupported endpoint type ${t}`);
  }
});

test.run();
