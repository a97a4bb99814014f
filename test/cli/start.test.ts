/**
 * `samsa start`: configuration from a properties file, --override flags and KAFKA_* environment
 * variables (the apache/kafka image's convention), and the errors that say what to do.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KafkaClient } from '../../src/cli/client.js';
import { freePort } from '../support/net.js';
import { nodeArgs, samsaMain } from '../support/node-ts.js';


function listen(port = 0): Promise<Server> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(port, '127.0.0.1', () => resolve(s));
  });
}


function start(args: string[], env: NodeJS.ProcessEnv = {}) {
  let out = '';
  const child = spawn(process.execPath, [...nodeArgs(samsaMain()), ...args], { env: { ...process.env, SAMSA_LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const started = new Promise<void>((resolve, reject) => {
    const check = () => { if (/Samsa started/.test(out)) resolve(); };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    void exited.then((code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  started.catch(() => undefined); // only some tests wait for it
  return { child, output: () => out, exited, started };
}

test('config file, --override and KAFKA_* environment combine with Kafka precedence', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'samsa-start-'));
  const port = await freePort();
  const props = join(dir, 'server.properties');
  writeFileSync(props, `listeners=PLAINTEXT://127.0.0.1:${port}\nlog.dirs=${join(dir, 'data')}\nnum.partitions=2\nlog.retention.ms=1000\n`);
  // env beats the file; --override beats env.
  const p = start(['start', '--config', props, '--override', 'log.retention.ms=3000'], { KAFKA_NUM_PARTITIONS: '3', KAFKA_LOG_RETENTION_MS: '2000' });
  try {
    await p.started;
    const c = await KafkaClient.connect({ bootstrap: `127.0.0.1:${port}` });
    try {
      const created = await c.request(19, { topics: [{ name: 'cfg', numPartitions: -1, replicationFactor: -1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
      assert.is(created.topics[0]!.errorCode, 0);
      assert.is(created.topics[0]!.numPartitions, 3, 'num.partitions from KAFKA_NUM_PARTITIONS');
      const cfg = await c.request(32, { resources: [{ resourceType: 4, resourceName: '1', configurationKeys: ['log.retention.ms', 'num.partitions'] }], includeSynonyms: false, includeDocumentation: false });
      const values = Object.fromEntries(cfg.results[0]!.configs.map((x) => [x.name, x.value]));
      assert.equal(values, { 'log.retention.ms': '3000', 'num.partitions': '3' });
    } finally {
      c.close();
    }
    p.child.kill('SIGTERM');
    assert.is(await p.exited, 0, p.output());
  } finally {
    p.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a port in use says what to do', async () => {
  const blocker = await listen();
  const port = (blocker.address() as { port: number }).port;
  const dir = mkdtempSync(join(tmpdir(), 'samsa-start-'));
  try {
    const p = start(['start', '--override', `listeners=PLAINTEXT://127.0.0.1:${port}`, '--override', `log.dirs=${dir}`]);
    assert.is(await p.exited, 2);
    assert.match(p.output(), /port already in use.*--override listeners=PLAINTEXT:\/\/:PORT/);
  } finally {
    await new Promise((r) => blocker.close(r));
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an unknown config name (flag or environment) says what was meant', async () => {
  const p = start(['start', '--override', 'num.partitons=3']);
  assert.is(await p.exited, 2);
  assert.match(p.output(), /unknown setting 'num.partitons' \(from --override\); did you mean 'num.partitions'\?/);
  const e = start(['start'], { KAFKA_LOG_RETENTON_MS: '5' });
  assert.is(await e.exited, 2);
  assert.match(e.output(), /unknown setting 'log.retenton.ms' \(from environment variable KAFKA_LOG_RETENTON_MS\); did you mean 'log.retention.ms'\?/);
});

test('samsa with no command starts a broker (like samsa start)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'samsa-start-'));
  const port = await freePort();
  const p = start(['--override', `listeners=PLAINTEXT://127.0.0.1:${port}`], { KAFKA_LOG_DIRS: dir });
  try {
    await p.started;
    p.child.kill('SIGTERM');
    assert.is(await p.exited, 0);
  } finally {
    p.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
