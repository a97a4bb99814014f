/**
 * Share groups (KIP-932) with confluent-kafka 2.16's ShareConsumer (librdkafka 2.16, from the
 * venv tools/ensure-test-deps.sh builds), explicit acknowledgement, against Samsa: three consumers
 * on one partition share the work, each record processed once; a SIGKILLed consumer's records
 * come back to the others after the lock duration; RELEASE redelivers with delivery count 2; a
 * record at the delivery limit is archived; a kafkajs classic group reads beside a share group;
 * the share state survives a broker restart. The scenarios (share-groups-scenarios.ts) also run
 * against Kafka 4.4 in compat-tests/share-groups.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { venvPython } from '../support/external.js';
import { tmpDir } from '../support/tmp.js';
import { describeRun, hostPort, jsonLines } from './_clients.js';
import { PY_RESTART_AFTER, PY_RESTART_BEFORE, SHARE_BROKER_CONFIG, confluentScenarios } from './share-groups-scenarios.js';

let b: RunningBroker;

test.before(async () => {
  b = await startBroker({ port: 0, config: SHARE_BROKER_CONFIG });
});

test.after(async () => {
  await b?.stop();
});

for (const s of confluentScenarios) test(s.name, () => s.run(hostPort(b.port), 'samsa'));

test('after a broker restart nothing acknowledged is redelivered and nothing unacknowledged is lost', async () => {
  const dir = tmpDir('samsa-share-restart');
  let r: RunningBroker | null = await startBroker({ port: 0, storage: { dir: dir.path }, config: SHARE_BROKER_CONFIG });
  try {
    const before = await venvPython(PY_RESTART_BEFORE, [hostPort(r.port)], { timeoutMs: 60_000 });
    assert.is(before.code, 0, describeRun(before));
    const { accepted, held } = Object.assign({}, ...jsonLines(before, 'before the restart'));
    assert.is(accepted.length, 20);
    assert.ok(held.length > 0, 'records acquired and not acknowledged when the broker stopped');
    await r.stop();
    r = null;
    r = await startBroker({ port: 0, storage: { dir: dir.path }, config: SHARE_BROKER_CONFIG });
    const after = await venvPython(PY_RESTART_AFTER, [hostPort(r.port)], { timeoutMs: 60_000 });
    assert.is(after.code, 0, describeRun(after));
    const { seen } = Object.assign({}, ...jsonLines(after, 'after the restart'));
    const values: string[] = seen.map((s: any[]) => s[0]);
    assert.equal(values.filter((v) => accepted.includes(v)), [], 'nothing acknowledged before the restart is delivered again');
    assert.equal([...values].sort(), Array.from({ length: 20 }, (_, i) => `r${i + 20}`).sort(), 'every unacknowledged record, once');
    for (const s of seen) if (!held.includes(s[0])) assert.is(s[2], 1, `${s[0]} was never delivered before`);
    console.log(`share groups (confluent, samsa): after a restart ${held.length} records held at the stop came again with delivery counts ${seen.filter((s: any[]) => held.includes(s[0])).map((s: any[]) => s[2]).join(',')}`);
  } finally {
    await r?.stop();
    await dir.cleanup();
  }
});

test.run();
