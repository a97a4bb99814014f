/**
 * ApiVersions (018) against a fake BrokerServices: the table it answers, the KIP-511 client
 * software checks of v3+ (Kafka's ApiVersionsRequest.isValid), and its whole-request error answer
 * (ApiVersionsRequest.getErrorResponse). The answer to a version above the advertised range is
 * the dispatcher's (dispatch.ts), not this handler's.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { apiVersionsHandler } from '../../../src/broker/handlers/018-api-versions.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { fakeServices, requestContext } from '../../support/fake-services.js';

const table = [{ apiKey: 0, minVersion: 3, maxVersion: 11 }, { apiKey: 18, minVersion: 0, maxVersion: 4 }, { apiKey: 3, minVersion: 0, maxVersion: 12 }];
const broker = fakeServices({ dispatcher: { advertised: () => table }, metadataCache: { revision: 42, features: new Map([['group.version', 1], ['transaction.version', 2]]) } } as never);

const ask = (v: number, clientSoftwareName: string, clientSoftwareVersion: string) =>
  apiVersionsHandler.handle(requestContext(broker, 18, v), { clientSoftwareName, clientSoftwareVersion, clusterId: null, nodeId: -1 }) as any;

test('v4: the advertised table with NONE, throttle 0, the supported features and the finalized levels at the metadata revision', () => {
  const r = ask(4, 'apache-kafka-java', '3.9.0');
  assert.equal(r, {
    errorCode: ErrorCode.NONE, apiKeys: table, throttleTimeMs: 0,
    supportedFeatures: [
      { name: 'group.version', minVersion: 0, maxVersion: 1 }, { name: 'share.version', minVersion: 0, maxVersion: 1 }, { name: 'streams.version', minVersion: 0, maxVersion: 1 },
      { name: 'transaction.version', minVersion: 0, maxVersion: 2 }, { name: 'eligible.leader.replicas.version', minVersion: 0, maxVersion: 1 },
    ],
    finalizedFeaturesEpoch: 42n,
    finalizedFeatures: [{ name: 'group.version', maxVersionLevel: 1, minVersionLevel: 1 }, { name: 'transaction.version', maxVersionLevel: 2, minVersionLevel: 2 }],
    zkMigrationReady: false,
  });
});

test('v3: no supported feature with minimum 0 (KAFKA-17011), the finalized ones as at v4', () => {
  const r = ask(3, 'apache-kafka-java', '3.9.0');
  assert.equal(r.supportedFeatures, []);
  assert.is(r.finalizedFeaturesEpoch, 42n);
  assert.is(r.finalizedFeatures.length, 2);
});

test('v3+: a client software name or version outside [a-zA-Z0-9](?:[a-zA-Z0-9-.]*[a-zA-Z0-9])? is INVALID_REQUEST with no APIs', () => {
  for (const [name, version] of [['librdkafka', '2.15.0'], ['a', '1'], ['kafka-python', '2.0.2-dev.1']]) {
    assert.is(ask(3, name, version).errorCode, ErrorCode.NONE, `${name} ${version}`);
  }
  for (const [name, version] of [['', '1.0'], ['java', ''], ['-java', '1'], ['java.', '1'], ['my client', '1'], ['java', '1.0_beta'], ['jävä', '1']]) {
    const r = ask(3, name, version);
    assert.equal([r.errorCode, r.apiKeys], [ErrorCode.INVALID_REQUEST, []], `'${name}' '${version}'`);
  }
});

test('before v3 the software fields are not looked at', () => {
  assert.is(ask(2, '', '').errorCode, ErrorCode.NONE);
  assert.is(ask(0, 'bad name', '?').errorCode, ErrorCode.NONE);
});

test('the whole-request error answer: UNSUPPORTED_VERSION lists ApiVersions\' own range only, any other error no APIs (KIP-511)', () => {
  const unsupported = apiVersionsHandler.errorResponse({ clientSoftwareName: '', clientSoftwareVersion: '', clusterId: null, nodeId: -1 }, ErrorCode.UNSUPPORTED_VERSION, requestContext(broker, 18, 3));
  assert.equal([unsupported.errorCode, unsupported.apiKeys], [ErrorCode.UNSUPPORTED_VERSION, [{ apiKey: 18, minVersion: 0, maxVersion: 4 }]]);
  const other = apiVersionsHandler.errorResponse({ clientSoftwareName: '', clientSoftwareVersion: '', clusterId: null, nodeId: -1 }, ErrorCode.ILLEGAL_SASL_STATE, requestContext(broker, 18, 3));
  assert.equal([other.errorCode, other.apiKeys], [ErrorCode.ILLEGAL_SASL_STATE, []]);
});

test.run();
