/**
 * Client telemetry (GetTelemetrySubscriptions 71, PushTelemetry 72; KIP-714) and ApiVersions v5
 * (KIP-1242) on the wire, one broker. The compat probes (probes-client-telemetry.ts,
 * probes-api-versions-v5.ts) compare the same requests with a real Kafka 4.4.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunningBroker } from '../../../src/testing/start-broker.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { WireClient, withBroker } from './_admin-wire.js';
import { until } from '../../support/until.js';

let b: RunningBroker;
let c: WireClient;
const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';
const id = (n: number) => Buffer.concat([Buffer.alloc(15), Buffer.from([n])]).toString('base64url');

withBroker(test, { port: 0 }, (nb, nc) => {
  b = nb;
  c = nc;
});

const get = (conn: WireClient, clientInstanceId: string) => conn.send(71, 0, { clientInstanceId });
const push = (conn: WireClient, clientInstanceId: string, subscriptionId: number, extra: Record<string, unknown> = {}) =>
  conn.send(72, 0, { clientInstanceId, subscriptionId, terminating: false, compressionType: 0, metrics: Buffer.alloc(0), ...extra } as never);

test('ApiVersions lists ApiVersions up to 5 and neither telemetry API', async () => {
  const av = await c.send(18, 4, { clientSoftwareName: 't', clientSoftwareVersion: '1' } as never);
  const keys = av.apiKeys.map((a: { apiKey: number }) => a.apiKey);
  assert.is(av.apiKeys.find((a: { apiKey: number }) => a.apiKey === 18)?.maxVersion, 5);
  assert.not.ok(keys.includes(71) || keys.includes(72));
});

test('GetTelemetrySubscriptions: a new instance id, no metrics, Kafka\'s defaults; again within the interval is throttled', async () => {
  const r = await get(c, ZERO);
  assert.is(r.errorCode, ErrorCode.NONE);
  assert.is.not(r.clientInstanceId, ZERO);
  assert.equal([r.requestedMetrics, r.pushIntervalMs, r.telemetryMaxBytes, r.acceptedCompressionTypes, r.deltaTemporality], [[], 300_000, 1_048_576, [4, 3, 1, 2], true]);
  const again = await get(c, r.clientInstanceId);
  assert.equal([again.errorCode, again.clientInstanceId, again.pushIntervalMs], [ErrorCode.THROTTLING_QUOTA_EXCEEDED, ZERO, 0]);
});

test('PushTelemetry: checked in Kafka\'s order; the first push after a Get is taken, the next is throttled', async () => {
  const sub = (await get(c, id(20))).subscriptionId;
  assert.is((await push(c, ZERO, 0)).errorCode, ErrorCode.INVALID_REQUEST, 'zero id');
  assert.is((await push(c, id(1), 0)).errorCode, ErrorCode.INVALID_REQUEST, 'reserved id');
  assert.is((await push(c, id(20), sub + 1)).errorCode, ErrorCode.UNKNOWN_SUBSCRIPTION_ID);
  // A client told its subscription id is unknown may Get again at once; the push interval still
  // runs from the refused push (Kafka 4.4 answers the same, probe push-after-refused-and-get).
  const again = await get(c, id(20));
  assert.equal([again.errorCode, again.subscriptionId], [ErrorCode.NONE, sub]);
  assert.is((await push(c, id(20), sub)).errorCode, ErrorCode.THROTTLING_QUOTA_EXCEEDED);
  const sub22 = (await get(c, id(22))).subscriptionId;
  assert.is((await push(c, id(22), sub22, { metrics: Buffer.from('x') })).errorCode, ErrorCode.NONE, 'the first push after a Get');
  assert.is((await push(c, id(22), sub22)).errorCode, ErrorCode.THROTTLING_QUOTA_EXCEEDED, 'the next one within the interval');
  assert.is((await push(c, id(22), sub22, { terminating: true })).errorCode, ErrorCode.NONE, 'a terminating push is not throttled');
  assert.is((await push(c, id(22), sub22, { terminating: true })).errorCode, ErrorCode.INVALID_REQUEST, 'nothing after terminating');
  const big = (await get(c, id(21))).subscriptionId;
  assert.is((await push(c, id(21), big, { compressionType: 9 })).errorCode, ErrorCode.UNSUPPORTED_COMPRESSION_TYPE);
  assert.is((await get(c, id(21))).errorCode, ErrorCode.NONE, 'a refused compression type lets the client Get again');
  const sub23 = (await get(c, id(23))).subscriptionId;
  assert.is((await push(c, id(23), sub23, { metrics: Buffer.alloc(1_048_577) })).errorCode, ErrorCode.TELEMETRY_TOO_LARGE);
});

test('an instance is forgotten when the connection that created it closes (Kafka\'s disconnect listener)', async () => {
  const other = await WireClient.connect(b.port);
  assert.is((await get(other, id(30))).errorCode, ErrorCode.NONE);
  assert.is((await get(c, id(30))).errorCode, ErrorCode.THROTTLING_QUOTA_EXCEEDED, 'known while that connection is open');
  const before = b.broker.clientMetrics.instanceCount;
  other.close();
  await until('the instance to be forgotten', 10_000, async () => (b.broker.clientMetrics.instanceCount < before ? true : null));
  assert.is((await get(c, id(30))).errorCode, ErrorCode.NONE, 'a new instance after the close');
});

test('ApiVersions v5: both ids must be this broker\'s (else REBOOTSTRAP_REQUIRED), one without the other is INVALID_REQUEST', async () => {
  const clusterId = b.broker.metadataCache.clusterId!;
  const node = b.broker.nodeId;
  const av = (clusterIdArg: string | null, nodeId: number) => c.send(18, 5, { clientSoftwareName: 't', clientSoftwareVersion: '1', clusterId: clusterIdArg, nodeId } as never);
  const ok = await av(clusterId, node);
  assert.is(ok.errorCode, ErrorCode.NONE);
  assert.ok(ok.apiKeys.length > 40);
  assert.is((await av(null, -1)).errorCode, ErrorCode.NONE);
  for (const [cid, n] of [[clusterId, node + 1], ['AAAAAAAAAAAAAAAAAAAAAA', node], ['', node], [clusterId, -5]] as const) {
    const r = await av(cid, n);
    assert.equal([r.errorCode, r.apiKeys.length, r.finalizedFeaturesEpoch], [ErrorCode.REBOOTSTRAP_REQUIRED, 0, -1n], `${cid} ${n}`);
  }
  assert.is((await av(clusterId, -1)).errorCode, ErrorCode.INVALID_REQUEST);
  assert.is((await av(null, node)).errorCode, ErrorCode.INVALID_REQUEST);
});

test.run();
