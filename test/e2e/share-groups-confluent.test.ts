/**
 * Share groups (KIP-932) with confluent-kafka 2.16's ShareConsumer (librdkafka 2.16, from the
 * venv tools/ensure-test-deps.sh builds), explicit acknowledgement, against Samsa: three consumers
 * on one partition share the work, each record processed once; a SIGKILLed consumer's records
 * come back to the others after the lock duration; RELEASE redelivers with delivery count 2; a
 * record at the delivery limit is archived, and with a dead-letter topic (KIP-1191) copied there
 * with its headers, as a rejected one is; Samsa's redelivery backoff spaces redeliveries by at
 * least base x 2^(n-1); a kafkajs classic group reads beside a share group;
 * the share state survives a broker restart. The scenarios (share-groups-scenarios.ts) run at
 * once, each on its own topic and group, the restart one after them; they also run against
 * Kafka 4.4 in compat-tests/share-groups.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { spawn } from 'node:child_process';
import { VENV_PYTHON, venvPython } from '../support/external.js';
import { tmpDir } from '../support/tmp.js';
import { describeRun, hostPort, jsonLines } from './_clients.js';
import { PY_RESTART_AFTER, PY_RESTART_BEFORE, SHARE_BROKER_CONFIG, concurrently, confluentDeadLetterScenarios, confluentScenarios, samsaOnlyScenarios } from './share-groups-scenarios.js';

let b: RunningBroker;

test.before(async () => {
  b = await startBroker({ port: 0, config: SHARE_BROKER_CONFIG });
});

test.after(async () => {
  await b?.stop();
});

for (const s of concurrently([...confluentScenarios, ...confluentDeadLetterScenarios, ...samsaOnlyScenarios])) test(s.name, () => s.run(hostPort(b.port), 'samsa'));

/** Runs a venv Python script until its first JSON line, which it resolves with; `stop()` SIGKILLs it. */
function pythonUntilLine(script: string, args: string[]): { line: Promise<Record<string, any>>; stop(): void } {
  const child = spawn(VENV_PYTHON, ['-c', script, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PYTHONUNBUFFERED: '1' } });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  const line = new Promise<Record<string, any>>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)));
    });
    child.on('exit', (code) => reject(new Error(`exited (${code}) before its line: ${out}\n${err.slice(-3000)}`)));
  });
  return { line, stop: () => void child.kill('SIGKILL') };
}

test('after a broker restart nothing acknowledged is redelivered and nothing unacknowledged is lost', async () => {
  const dir = tmpDir('samsa-share-restart');
  let r: RunningBroker | null = await startBroker({ port: 0, storage: { dir: dir.path }, config: SHARE_BROKER_CONFIG });
  const before = pythonUntilLine(PY_RESTART_BEFORE, [hostPort(r.port)]);
  try {
    const { accepted, held } = await before.line;
    assert.is(accepted.length, 20);
    assert.ok(held.length > 0, 'records acquired and not acknowledged when the broker stops');
    await r.stop();
    r = null;
    before.stop();
    r = await startBroker({ port: 0, storage: { dir: dir.path }, config: SHARE_BROKER_CONFIG });
    const after = await venvPython(PY_RESTART_AFTER, [hostPort(r.port)], { timeoutMs: 60_000 });
    assert.is(after.code, 0, describeRun(after));
    const { seen } = Object.assign({}, ...jsonLines(after, 'after the restart'));
    const values: string[] = seen.map((s: any[]) => s[0]);
    assert.equal(values.filter((v) => accepted.includes(v)), [], 'nothing acknowledged before the restart is delivered again');
    assert.equal([...values].sort(), Array.from({ length: 20 }, (_, i) => `r${i + 20}`).sort(), 'every unacknowledged record, once');
    for (const s of seen) if (!held.includes(s[0])) assert.is(s[2], 1, `${s[0]} was never delivered before`);
    console.log(`share groups (confluent, samsa): after a restart the ${held.length} records held at the stop came again with delivery counts ${seen.filter((s: any[]) => held.includes(s[0])).map((s: any[]) => s[2]).join(',')}`);
  } finally {
    before.stop();
    await r?.stop();
    await dir.cleanup();
  }
});

test.run();
