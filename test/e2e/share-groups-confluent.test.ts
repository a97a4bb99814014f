/**
 * Share groups (KIP-932) with confluent-kafka 2.16's ShareConsumer (librdkafka 2.16, from the
 * venv tools/ensure-test-deps.sh builds), explicit acknowledgement, against Samsa: three consumers
 * on one partition share the work, each record processed once; a SIGKILLed consumer's records
 * come back to the others when its connection closes, those of a consumer that stopped polling
 * after the lock duration; RELEASE redelivers with delivery count 2; a record at the delivery
 * limit is archived, and with a dead-letter topic (KIP-1191) copied there with its headers, as a
 * rejected one is; a late acknowledgement gets Kafka's answers; a kafkajs classic group reads
 * beside a share group; read_committed share groups skip aborted and open transactions; the share
 * state survives a SIGKILL of the broker and a restart.
 * The scenarios (share-groups-scenarios.ts) run at once, each on its own topic and group (the
 * crash on a broker process of its own); all but the crash also run against Kafka 4.4 in
 * compat-tests/share-groups.test.ts. The redelivery backoff is in share-groups-backoff.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { venvPython, waitFor } from '../support/external.js';
import { pythonUntilLine } from '../support/python-groups.js';
import { freePort } from '../support/net.js';
import { tmpDir } from '../support/tmp.js';
import { describeRun, hostPort, jsonLines } from '../support/clients.js';
import { PY_RESTART_AFTER, PY_RESTART_BEFORE, SHARE_BROKER_CONFIG, concurrently, confluentScenarios, type Scenario } from './share-groups-scenarios.js';
import { brokerMain, nodeArgs } from '../support/node-ts.js';

let b: RunningBroker;

test.before(async () => {
  b = await startBroker({ port: 0, config: SHARE_BROKER_CONFIG });
});

test.after(async () => {
  await b?.stop();
});


/** A Samsa broker process (SIGKILL is a crash), with the share-group settings of the scenarios. */
async function brokerProcess(port: number, dir: string): Promise<{ child: ChildProcess; exited: Promise<unknown> }> {
  const overrides = Object.entries({ ...SHARE_BROKER_CONFIG, listeners: `PLAINTEXT://127.0.0.1:${port}`, 'log.dirs': dir }).flatMap(([k, v]) => ['--override', `${k}=${v}`]);
  const child = spawn(process.execPath, [...nodeArgs(brokerMain()), ...overrides], { env: { ...process.env, SAMSA_LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  await waitFor(() => out.includes('Samsa started'), { timeoutMs: 30_000, description: `broker start: ${out.slice(-2000)}` });
  return { child, exited };
}

async function crashAndRestart(): Promise<void> {
  const dir = tmpDir('samsa-share-restart');
  const port = await freePort();
  let b = await brokerProcess(port, dir.path);
  const before = pythonUntilLine(PY_RESTART_BEFORE, [hostPort(port)]);
  try {
    const { accepted, rejected, held } = await before.line;
    assert.is(accepted.length, 20);
    assert.equal(rejected, ['r20']);
    assert.ok(held.length > 0, 'records acquired and not acknowledged when the broker dies');
    b.child.kill('SIGKILL');
    await b.exited;
    before.stop();
    b = await brokerProcess(port, dir.path);
    const after = await venvPython(PY_RESTART_AFTER, [hostPort(port)], { timeoutMs: 60_000 });
    assert.is(after.code, 0, describeRun(after));
    const { seen, dead } = Object.assign({}, ...jsonLines(after, 'after the restart'));
    assert.equal(dead, ['20'], 'the rejected record is in the dead-letter topic once, not written again after the crash');
    const values: string[] = seen.map((s: any[]) => s[0]);
    assert.equal(values.filter((v) => accepted.includes(v) || rejected.includes(v)), [], 'nothing acknowledged before the crash is delivered again');
    assert.equal([...values].sort(), Array.from({ length: 19 }, (_, i) => `r${i + 21}`).sort(), 'every unacknowledged record, once');
    for (const s of seen) if (!held.includes(s[0])) assert.is(s[2], 1, `${s[0]} was never delivered before`);
    console.log(`share groups (confluent, samsa): after a SIGKILL and restart the ${held.length} records held at the crash came again with delivery counts ${seen.filter((s: any[]) => held.includes(s[0])).map((s: any[]) => s[2]).join(',')}`);
  } finally {
    before.stop();
    b.child.kill('SIGKILL');
    await b.exited;
    await dir.cleanup();
  }
}

const crash: Scenario = { name: 'after the broker is SIGKILLed and restarts nothing acknowledged or rejected is redelivered, nothing unacknowledged is lost, nothing is dead-lettered twice', run: crashAndRestart };

for (const s of concurrently([...confluentScenarios, crash])) test(s.name, () => s.run(hostPort(b.port), 'samsa'));

test.run();
