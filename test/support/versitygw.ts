/**
 * A real S3-compatible server for the tiered storage tests: Versity's gateway (versitygw) with its
 * posix backend in a fresh temporary directory (objects are plain files a test can look at), on a
 * free loopback port. tools/ensure-versitygw.sh builds it once per machine from the Go module proxy
 * (npm test's pretest starts that build in the background; `versitygwBin()` waits for it, or builds
 * it here when nothing is building).
 *
 * The handle stops it (SIGTERM) and starts it again on the same port and directory (the store
 * unreachable and back), and removes the directory on `close()`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'node:net';
import { freePort } from './net.js';
import { tmpDir, type TmpDir } from './tmp.js';

const BIN = process.env.SAMSA_VERSITYGW_BIN ?? join(homedir(), '.cache', 'samsa', 'bin', 'versitygw');
const STATUS = join(homedir(), '.cache', 'samsa', 'bin', 'versitygw.build');

export const S3_ACCESS_KEY = 'samsa-test';
export const S3_SECRET_KEY = 'samsa-test-secret';

/** The versitygw executable, waiting for a background build (at most 10 minutes) or building it now. */
export async function versitygwBin(): Promise<string> {
  const deadline = Date.now() + 10 * 60_000;
  while (!existsSync(BIN)) {
    const status = existsSync(STATUS) ? readFileSync(STATUS, 'utf8').trim() : '';
    const fresh = existsSync(STATUS) && Date.now() - statSync(STATUS).mtimeMs < 10 * 60_000;
    if (status === 'building' && fresh && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 2000));
      continue;
    }
    const r = spawnSync('bash', [join(process.cwd(), 'tools', 'ensure-versitygw.sh')], { stdio: 'inherit' });
    if (r.status !== 0 || !existsSync(BIN)) throw new Error(`versitygw is not available (tools/ensure-versitygw.sh exited ${r.status})`);
  }
  return BIN;
}

export interface S3Server {
  readonly endpoint: string;
  readonly port: number;
  /** The posix backend's root: bucket directories, objects as files. */
  readonly root: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ host: '127.0.0.1', port }, () => { s.destroy(); resolve(true); });
    s.on('error', () => resolve(false));
  });
}

export async function startVersitygw(): Promise<S3Server> {
  const bin = await versitygwBin();
  const dir: TmpDir = tmpDir('samsa-s3-');
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn(bin, ['--port', `127.0.0.1:${port}`, '--access', S3_ACCESS_KEY, '--secret', S3_SECRET_KEY, 'posix', dir.path], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr?.resume();
    const deadline = Date.now() + 20_000;
    while (!(await portOpen(port))) {
      if (Date.now() > deadline) throw new Error('versitygw did not listen within 20 s');
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const stop = async () => {
    const c = child as ChildProcess | null;
    child = null;
    if (!c || c.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill('SIGTERM');
    });
  };
  await start();
  return {
    endpoint: `http://127.0.0.1:${port}`, port, root: dir.path, start, stop,
    close: async () => {
      await stop();
      await dir.cleanup();
    },
  };
}
