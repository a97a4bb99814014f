/**
 * Features over real sockets: ApiVersions' supported and finalized features on a new cluster,
 * UpdateFeatures (057) upgrades, downgrades, validate-only and refusals, and finalized levels
 * surviving a restart on the local metadata store.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBroker, type RunningBroker } from '../../../src/testing/start-broker.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { WireClient } from './_admin-wire.js';

const dir = mkdtempSync(join(tmpdir(), 'samsa-features-'));
let b: RunningBroker;
let c: WireClient;

const apiVersions = (version: number) => c.send(18, version, { clientSoftwareName: 'samsa-test', clientSoftwareVersion: '1.0', clusterId: null, nodeId: -1 }) as Promise<any>;
const finalized = async () => Object.fromEntries((await apiVersions(4)).finalizedFeatures.map((f: any) => [f.name, f.maxVersionLevel]));
const update = (version: number, updates: { feature: string; maxVersionLevel: number; upgradeType?: number; allowDowngrade?: boolean }[], validateOnly = false) =>
  c.send(57, version, { timeoutMs: 60000, validateOnly, featureUpdates: updates.map((u) => ({ allowDowngrade: false, upgradeType: 1, ...u })) }) as Promise<any>;

test.before(async () => {
  b = await startBroker({ port: 0, logDir: dir });
  c = await WireClient.connect(b.port);
});

test.after(async () => {
  c?.close();
  await b?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A new cluster's levels besides transaction.version (Kafka 4.4's, share.version 1). */
const OTHERS = { 'eligible.leader.replicas.version': 1, 'group.version': 1, 'share.version': 1, 'streams.version': 1 };

test('a new cluster: eligible.leader.replicas.version 1, group.version 1, share.version 1, streams.version 1 and transaction.version 2 (transactions V2) finalized', async () => {
  const v4 = await apiVersions(4);
  assert.equal(v4.supportedFeatures.map((f: any) => `${f.name} ${f.minVersion}-${f.maxVersion}`).sort(),
    ['eligible.leader.replicas.version 0-1', 'group.version 0-1', 'share.version 0-1', 'streams.version 0-1', 'transaction.version 0-2']);
  assert.equal(await finalized(), { ...OTHERS, 'transaction.version': 2 });
  assert.ok(v4.finalizedFeaturesEpoch > 0n);
  const v3 = await apiVersions(3);
  assert.equal(v3.supportedFeatures, []);
  assert.equal(v3.finalizedFeatures.length, 5);
});

test('eligible.leader.replicas.version: disabled (a safe downgrade to 0, kafka-features.sh disable), enabled again; 2 is refused as by Kafka 4.4', async () => {
  assert.is((await update(2, [{ feature: 'eligible.leader.replicas.version', maxVersionLevel: 0, upgradeType: 2 }])).errorCode, ErrorCode.NONE);
  assert.not.ok('eligible.leader.replicas.version' in (await finalized()));
  assert.is((await update(2, [{ feature: 'eligible.leader.replicas.version', maxVersionLevel: 1 }])).errorCode, ErrorCode.NONE);
  const high = await update(2, [{ feature: 'eligible.leader.replicas.version', maxVersionLevel: 2 }]);
  assert.is(high.errorCode, ErrorCode.INVALID_UPDATE_VERSION);
  assert.match(high.errorMessage, /Invalid update version 2 for feature eligible\.leader\.replicas\.version\. Local controller \d+ only supports versions 0-1/);
  assert.equal(await finalized(), { ...OTHERS, 'transaction.version': 2 });
});

test('validate-only changes nothing; a safe downgrade and an upgrade are stored and raise the epoch', async () => {
  const before = (await apiVersions(4)).finalizedFeaturesEpoch;
  const dry = await update(1, [{ feature: 'transaction.version', maxVersionLevel: 1, upgradeType: 2 }], true);
  assert.equal([dry.errorCode, dry.results], [ErrorCode.NONE, [{ feature: 'transaction.version', errorCode: 0, errorMessage: 'NONE' }]]);
  assert.equal(await finalized(), { ...OTHERS, 'transaction.version': 2 });
  const down = await update(2, [{ feature: 'transaction.version', maxVersionLevel: 1, upgradeType: 2 }]);
  assert.equal([down.errorCode, down.errorMessage, down.results], [ErrorCode.NONE, null, []]);
  assert.equal(await finalized(), { ...OTHERS, 'transaction.version': 1 });
  const mid = (await apiVersions(4)).finalizedFeaturesEpoch;
  assert.ok(mid > before);
  const up = await update(2, [{ feature: 'transaction.version', maxVersionLevel: 2 }]);
  assert.is(up.errorCode, ErrorCode.NONE);
  assert.equal(await finalized(), { ...OTHERS, 'transaction.version': 2 });
  assert.ok((await apiVersions(4)).finalizedFeaturesEpoch > mid);
});

test('refusals: unknown feature, level above the supported range, downgrade as an upgrade; all or nothing', async () => {
  const unknown = await update(2, [{ feature: 'group.version', maxVersionLevel: 0, upgradeType: 2 }, { feature: 'metadata.version', maxVersionLevel: 27 }]);
  assert.is(unknown.errorCode, ErrorCode.INVALID_UPDATE_VERSION);
  assert.match(unknown.errorMessage, /metadata\.version/);
  const high = await update(1, [{ feature: 'transaction.version', maxVersionLevel: 3 }]);
  assert.equal([high.errorCode, high.results], [ErrorCode.INVALID_UPDATE_VERSION, []]);
  assert.match(high.errorMessage, /only supports versions 0-2/);
  const down = await update(2, [{ feature: 'transaction.version', maxVersionLevel: 0 }]);
  assert.is(down.errorCode, ErrorCode.INVALID_UPDATE_VERSION);
  assert.match(down.errorMessage, /downgrade/);
  const v0 = await update(0, [{ feature: 'transaction.version', maxVersionLevel: 0, allowDowngrade: false }]);
  assert.is(v0.errorCode, ErrorCode.INVALID_UPDATE_VERSION);
  assert.equal(await finalized(), { ...OTHERS, 'transaction.version': 2 });
});

test('a safe downgrade to 0 removes the feature; the levels survive a restart', async () => {
  assert.is((await update(2, [{ feature: 'transaction.version', maxVersionLevel: 0, upgradeType: 2 }])).errorCode, ErrorCode.NONE);
  assert.is((await update(0, [{ feature: 'share.version', maxVersionLevel: 0, allowDowngrade: true }])).errorCode, ErrorCode.NONE);
  const { 'share.version': _share, ...rest } = OTHERS;
  assert.equal(await finalized(), rest);
  c.close();
  await b.stop();
  b = await startBroker({ port: 0, logDir: dir });
  c = await WireClient.connect(b.port);
  assert.equal(await finalized(), rest);
});

test.run();
