/**
 * DescribeCluster (060) against a fake BrokerServices: no broker, no socket (issue 24: handlers
 * are testable on their own).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { describeClusterHandler } from '../../../src/broker/handlers/060-describe-cluster.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { fakeServices, requestContext } from '../../support/fake-services.js';

const endpoints: Record<number, { host: string; port: number; rack: string | null }> = {
  1: { host: 'b1', port: 9092, rack: 'r1' }, 2: { host: 'b2', port: 9093, rack: null }, 3: { host: 'b3', port: 9094, rack: null },
};

function services(registered = true) {
  return fakeServices({
    nodeId: 2, registered, authorizer: null,
    metadataCache: { clusterId: 'cluster-x', brokers: new Map([[3, {}], [1, {}], [2, {}]]), controller: { nodeId: 3 } } as never,
    brokerEndpoint: (id: number) => endpoints[id] ?? null,
  });
}

test('the live brokers in node id order, the controller, the cluster id; operations only when asked', async () => {
  const r = await describeClusterHandler.handle(requestContext(services(), 60, 1), { includeClusterAuthorizedOperations: false, endpointType: 1, includeFencedBrokers: false } as never) as any;
  assert.equal([r.errorCode, r.clusterId, r.controllerId, r.endpointType], [ErrorCode.NONE, 'cluster-x', 3, 1]);
  assert.equal(r.brokers.map((b: any) => [b.brokerId, b.host, b.port, b.rack]), [[1, 'b1', 9092, 'r1'], [2, 'b2', 9093, null], [3, 'b3', 9094, null]]);
  assert.is(r.clusterAuthorizedOperations, -2147483648);
  const ops = await describeClusterHandler.handle(requestContext(services(), 60, 1), { includeClusterAuthorizedOperations: true, endpointType: 1, includeFencedBrokers: false } as never) as any;
  assert.is(ops.clusterAuthorizedOperations, 8096, "without an authorizer: Kafka's cluster operations");
});

test('a broker that lost its registration leaves itself out', async () => {
  const r = await describeClusterHandler.handle(requestContext(services(false), 60, 1), { includeClusterAuthorizedOperations: false, endpointType: 1, includeFencedBrokers: false } as never) as any;
  assert.equal(r.brokers.map((b: any) => b.brokerId), [1, 3]);
});

test('a controller endpoint type: MISMATCHED_ENDPOINT_TYPE (v1), an unknown one UNSUPPORTED_ENDPOINT_TYPE; the broker is never asked', async () => {
  const none = fakeServices({});
  const c = await describeClusterHandler.handle(requestContext(none, 60, 1), { includeClusterAuthorizedOperations: false, endpointType: 2, includeFencedBrokers: false } as never) as any;
  assert.is(c.errorCode, ErrorCode.MISMATCHED_ENDPOINT_TYPE);
  const u = await describeClusterHandler.handle(requestContext(none, 60, 1), { includeClusterAuthorizedOperations: false, endpointType: 7, includeFencedBrokers: false } as never) as any;
  assert.equal([u.errorCode, u.errorMessage], [ErrorCode.UNSUPPORTED_ENDPOINT_TYPE, 'Unsupported endpoint type 7']);
});

test('the fake fails loudly on a member the test did not give', async () => {
  try {
    await describeClusterHandler.handle(requestContext(fakeServices({ authorizer: null }), 60, 1), { includeClusterAuthorizedOperations: false, endpointType: 1, includeFencedBrokers: false } as never);
    assert.unreachable('it should have thrown');
  } catch (err) {
    assert.match((err as Error).message, /the test gave no/);
  }
});

test.run();
