/**
 * `samsa cluster start --brokers 3`: etcd and three brokers on loopback (node ids 0-2 on ports
 * P, P+3, P+6), one cluster (every broker lists all three and one controller); Ctrl-C stops
 * them all and exits 0.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { KafkaClient } from '../../src/cli/client.js';
import { etcdMissing } from '../support/etcd.js';
import { freePort } from '../support/net.js';
import { tmpDir } from '../support/tmp.js';

const SAMSA = join(process.cwd(), 'src', 'cli', 'samsa.ts');
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A base port P with P, P+3, P+6 free, and two more free ports for etcd (client, peer). */
async function ports(): Promise<{ base: number; etcd: number }> {
  for (;;) {
    const base = await freePort();
    if (base + 6 > 65535) continue;
    if (!(await isFree(base + 3)) || !(await isFree(base + 6))) continue;
    const etcd = await freePort();
    if ([base, base + 3, base + 6].some((p) => Math.abs(p - etcd) <= 1) || !(await isFree(etcd + 1))) continue;
    return { base, etcd };
  }
}

test('samsa cluster start --brokers 3: etcd and three brokers form one cluster; Ctrl-C stops them all', async () => {
  const missing = etcdMissing();
  if (missing) {
    if (IN_CI) throw new Error(`etcd is required under CI: ${missing}`);
    return console.log('cluster start: skipped:', missing);
  }
  const dir = tmpDir('cli-cluster');
  const { base, etcd } = await ports();
  let out = '';
  const child = spawn(process.execPath, ['--import', 'tsx', SAMSA, 'cluster', 'start', '--brokers', '3', '--port', String(base), '--etcd-port', String(etcd), '--dir', dir.path,
    '--override', 'broker.session.timeout.ms=2000', '--override', 'broker.heartbeat.interval.ms=400'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const deadline = Date.now() + 90_000;
    while (!out.includes('ready: bootstrap servers')) {
      if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}:\n${out}`);
      if (Date.now() > deadline) throw new Error(`not ready:\n${out.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.match(out, `bootstrap servers 127.0.0.1:${base},127.0.0.1:${base + 3},127.0.0.1:${base + 6}`);
    for (const port of [base, base + 3, base + 6]) {
      const c = await KafkaClient.connect({ bootstrap: `127.0.0.1:${port}` });
      try {
        let m = await c.send(3, 12, { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
        for (let i = 0; i < 50 && m.brokers.length < 3; i++) {
          await new Promise((r) => setTimeout(r, 100));
          m = await c.send(3, 12, { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
        }
        assert.equal(m.brokers.map((b) => [b.nodeId, b.port]), [[0, base], [1, base + 3], [2, base + 6]]);
        assert.is(m.controllerId, 0, 'the first broker started is the controller');
      } finally {
        c.close();
      }
    }
    child.kill('SIGINT');
    assert.is(await exited, 0, out.slice(-3000));
  } finally {
    child.kill('SIGKILL');
    await dir.cleanup();
  }
});

test.run();
