/**
 * Dynamic broker configs in the etcd metadata store: `brokerConfigs/<id>` and
 * `brokerConfigs/<default>` keys, seen by another store's image and by a metadata cache's watch,
 * deleted when emptied, and refused under a fence that no longer holds.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EtcdMetadataStore } from '../../src/cluster/etcd-metadata-store.js';
import { MetadataCache } from '../../src/cluster/metadata-cache.js';
import { KafkaApiError } from '../../src/errors.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { etcdOrSkip, type EtcdServer } from '../support/etcd.js';
import { freshPrefix, logger } from '../support/cluster-members.js';

const etcd = (await etcdOrSkip('test/replication/broker-configs-etcd')) as EtcdServer;
if (!etcd) process.exit(0);

const open = (prefix: string) => EtcdMetadataStore.connect({ endpoints: [etcd.clientUrl], prefix, connectTimeoutMs: 5000, logger });
const LR = 'leader.replication.throttled.rate';

test('brokerConfigs/<id> and brokerConfigs/<default>: written, watched, read back, removed', async () => {
  const prefix = freshPrefix('broker-configs');
  const a = await open(prefix);
  const b = await open(prefix);
  const cache = await MetadataCache.start(b, logger);
  try {
    await a.ensureClusterId('AAAAAAAAAAAAAAAAAAAAAA');
    await a.alterBrokerConfigs('1', { [LR]: '1000' });
    await a.alterBrokerConfigs('<default>', { [LR]: '2000' });
    await cache.waitFor((c) => c.brokerConfigs.size === 2, 5000, 'both in the cache');
    assert.equal(cache.brokerConfigs.get('1'), { [LR]: '1000' });
    assert.equal(cache.brokerConfigs.get('<default>'), { [LR]: '2000' });
    assert.equal([...(await b.readImage()).brokerConfigs].sort(), [['1', { [LR]: '1000' }], ['<default>', { [LR]: '2000' }]]);
    await a.alterBrokerConfigs('1', {});
    await cache.waitFor((c) => !c.brokerConfigs.has('1'), 5000, 'broker 1 removed');
    assert.equal([...(await b.readImage()).brokerConfigs.keys()], ['<default>']);
    try {
      await a.alterBrokerConfigs('1', { [LR]: '5' }, { controllerEpoch: 12345 });
      assert.unreachable('a stale fence must refuse the write');
    } catch (e) {
      assert.instance(e, KafkaApiError);
      assert.is((e as KafkaApiError).errorCode, ErrorCode.NOT_CONTROLLER);
    }
    assert.not.ok((await b.readImage()).brokerConfigs.has('1'));
  } finally {
    await cache.close();
    await a.close();
    await b.close();
  }
});

test.after(async () => {
  await etcd.cleanup();
});

test.run();
