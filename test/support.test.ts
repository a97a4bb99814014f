/**
 * Self-test of test/support: `run` captures output and honours its deadline (killing the whole
 * process group), `waitFor` polls with a deadline, `tmpDir` creates and removes directories, and
 * the real clients the end-to-end tests drive are installed (so a machine missing them fails here,
 * loudly, instead of in every e2e test).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { kcat, python, run, waitFor } from './support/external.js';
import { tmpDir } from './support/tmp.js';
import { freePort } from './support/net.js';
import { createServer } from 'node:net';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('run captures stdout, stderr and the exit code', async () => {
  const r = await run('/bin/sh', ['-c', 'echo out; echo err >&2; exit 3'], { timeoutMs: 10_000 });
  assert.is(r.code, 3);
  assert.is(r.stdout, 'out\n');
  assert.is(r.stderr, 'err\n');
  assert.is(r.timedOut, false);
});

test('run feeds input to stdin and passes env', async () => {
  const r = await run('/bin/sh', ['-c', 'cat; printf "%s" "$SAMSA_X"'], { timeoutMs: 10_000, input: 'hello ', env: { SAMSA_X: 'world' } });
  assert.is(r.code, 0);
  assert.is(r.stdout, 'hello world');
});

test('run kills the whole process group at the deadline', async () => {
  const dir = tmpDir('support');
  try {
    const pidFile = path.join(dir.path, 'pid');
    // The shell starts a long sleep in the background, records its pid and waits for it.
    const r = await run('/bin/sh', ['-c', `sleep 60 & echo $! > '${pidFile}'; wait`], { timeoutMs: 500 });
    assert.is(r.timedOut, true);
    assert.is(r.code, null);
    assert.ok(r.durationMs < 10_000, `took ${r.durationMs} ms`);
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    assert.ok(pid > 0);
    await waitFor(() => !alive(pid), { timeoutMs: 5000, description: `background sleep ${pid} to be killed` });
  } finally {
    await dir.cleanup();
  }
});

test('run rejects when the program does not exist', async () => {
  try {
    await run('/nonexistent/samsa-no-such-program', [], { timeoutMs: 1000 });
    assert.unreachable('should have thrown');
  } catch (e) {
    assert.instance(e, Error);
    assert.match((e as Error).message, /cannot run/);
  }
});

test('waitFor returns the first truthy value and times out otherwise', async () => {
  let n = 0;
  const v = await waitFor(() => (++n >= 3 ? `done after ${n}` : null), { timeoutMs: 5000, intervalMs: 5 });
  assert.is(v, 'done after 3');

  const started = Date.now();
  try {
    await waitFor(() => { throw new Error('not ready'); }, { timeoutMs: 100, intervalMs: 10, description: 'never' });
    assert.unreachable('should have timed out');
  } catch (e) {
    assert.match((e as Error).message, /timed out after 100 ms: never \(last error: not ready\)/);
  }
  assert.ok(Date.now() - started < 5000);

  // A poll that never settles is abandoned at the deadline.
  try {
    await waitFor(() => new Promise<boolean>(() => {}), { timeoutMs: 100 });
    assert.unreachable('should have timed out');
  } catch (e) {
    assert.match((e as Error).message, /timed out/);
  }
});

test('tmpDir makes a fresh directory and cleanup removes it', async () => {
  const a = tmpDir('x/y');
  const b = tmpDir('x/y');
  assert.is.not(a.path, b.path);
  writeFileSync(path.join(a.path, 'f'), 'data');
  await a.cleanup();
  await b.cleanup();
  assert.is(existsSync(a.path), false);
  assert.is(existsSync(b.path), false);
  await a.cleanup(); // twice is fine
});

test('freePort: distinct bindable ports below the kernel\'s ephemeral range (which listen(0) and outgoing connections draw from)', async () => {
  const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
  assert.ok(ports.every((p) => p >= 20_000 && p < first), `${ports} below ${first}`);
  assert.ok(new Set(ports).size >= 19, `spread out: ${ports}`);
  const p = ports[0];
  await new Promise<void>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(p, '127.0.0.1', () => s.close(() => resolve()));
  });
});

test('kcat is installed', async () => {
  const r = await kcat(['-V'], { timeoutMs: 10_000 });
  assert.is(r.code, 0, `kcat -V failed: ${r.stderr}`);
  assert.match(r.stdout + r.stderr, /kcat/i);
});

test('/usr/bin/python3 imports confluent_kafka and kafka', async () => {
  const r = await python('import sys, confluent_kafka, kafka; print(confluent_kafka.version()[0], kafka.__version__, sys.argv[1])', ['arg1'], { timeoutMs: 30_000 });
  assert.is(r.code, 0, `python clients missing (run tools/ensure-test-deps.sh): ${r.stderr}`);
  assert.match(r.stdout, /^\d+\.\d+\S* \d+\.\d+\S* arg1\n$/);
});

test.run();
