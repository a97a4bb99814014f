/**
 * A real etcd for tests (Debian's etcd-server, /usr/bin/etcd; tools/ensure-etcd.sh installs it).
 *
 * `startEtcd()` runs one single-member etcd on free loopback ports (client and peer) with a fresh
 * temporary data dir, and resolves once /health answers true (a leader is elected and it serves
 * reads). The handle can kill it (SIGKILL), pause and resume it (SIGSTOP/SIGCONT: a long GC pause
 * or a stalled disk as the brokers see it) and restart it on the same ports and data dir, so fault
 * tests can take etcd away and bring it back with its data.
 *
 * `etcdOrSkip(what)` is for test files: it starts etcd, or, where this machine has no etcd, prints
 * one line and resolves with null so the file can skip. Under CI the absence is a failure.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { freePort, onFreshPorts } from './net.js';
import { tmpDir, type TmpDir } from './tmp.js';

export const ETCD_BIN = process.env.SAMSA_ETCD_BIN ?? '/usr/bin/etcd';
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

export interface EtcdOptions {
  /** How long to wait for the first healthy answer (default 20 s: two cores shared by many tests). */
  startTimeoutMs?: number;
  /** Lines etcd prints (stderr), for debugging a test; default: kept in `log` only. */
  onLine?: (line: string) => void;
}

export interface EtcdServer {
  /** `http://127.0.0.1:<client port>`: what samsa.etcd.endpoints takes. */
  readonly clientUrl: string;
  readonly clientPort: number;
  readonly peerPort: number;
  readonly dataDir: string;
  /** The last lines etcd printed (at most 200), for failure messages. */
  readonly log: string[];
  /** The current process id (changes on restart), or null while stopped. */
  pid(): number | null;
  /** SIGKILL, and wait for the exit. Data stays for `start()`. */
  kill(): Promise<void>;
  /** SIGTERM (graceful), and wait for the exit. */
  stop(): Promise<void>;
  /** Start again on the same ports and data dir; resolves when healthy. */
  start(): Promise<void>;
  /** kill() then start(). */
  restart(): Promise<void>;
  /** SIGSTOP: the process stays, answers nothing, its TCP connections stay open. */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  /** Kill and remove the data dir. */
  cleanup(): Promise<void>;
}

/** null when etcd can run here, else why not. */
export function etcdMissing(): string | null {
  try {
    accessSync(ETCD_BIN, constants.X_OK);
    return null;
  } catch {
    return `${ETCD_BIN} not found (run tools/ensure-etcd.sh, or apt-get install etcd-server)`;
  }
}

const live = new Set<ChildProcess>();
let hooked = false;
function hookExit(): void {
  if (hooked) return;
  hooked = true;
  // A test that throws before cleanup() must not leave etcd running (the test runner also kills
  // the process group, but a test run by hand has no runner).
  process.on('exit', () => {
    for (const c of live) {
      try {
        c.kill('SIGKILL');
      } catch {
        /* gone */
      }
    }
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function healthy(clientUrl: string): Promise<boolean> {
  try {
    const res = await fetch(`${clientUrl}/health`, { signal: AbortSignal.timeout(1000) });
    const body = (await res.json()) as { health?: string };
    return body.health === 'true';
  } catch {
    return false;
  }
}

export async function startEtcd(opts: EtcdOptions = {}): Promise<EtcdServer> {
  const missing = etcdMissing();
  if (missing) throw new Error(missing);
  hookExit();
  const startTimeoutMs = opts.startTimeoutMs ?? 20_000;
  const dir: TmpDir = tmpDir('etcd');
  const log: string[] = [];
  let child: ChildProcess | null = null;
  let clientPort = 0;
  let peerPort = 0;

  const note = (line: string) => {
    log.push(line);
    if (log.length > 200) log.shift();
    opts.onLine?.(line);
  };

  const spawnOnce = (): ChildProcess => {
    const client = `http://127.0.0.1:${clientPort}`;
    const peer = `http://127.0.0.1:${peerPort}`;
    const c = spawn(ETCD_BIN, [
      '--name', 'samsa-test',
      '--data-dir', dir.path,
      '--listen-client-urls', client,
      '--advertise-client-urls', client,
      '--listen-peer-urls', peer,
      '--initial-advertise-peer-urls', peer,
      '--initial-cluster', `samsa-test=${peer}`,
      '--initial-cluster-state', 'new',
      // A single member elects itself after one election timeout: short timeouts make start-up
      // and restarts fast. Loopback only, so 50 ms heartbeats are plenty.
      '--heartbeat-interval', '50',
      '--election-timeout', '300',
      '--logger', 'zap',
      '--log-level', 'warn',
    ], { stdio: ['ignore', 'ignore', 'pipe'] });
    let partial = '';
    c.stderr?.setEncoding('utf8');
    c.stderr?.on('data', (s: string) => {
      partial += s;
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const l of lines) if (l) note(l);
    });
    live.add(c);
    c.once('exit', () => live.delete(c));
    return c;
  };

  const waitHealthy = async (c: ChildProcess): Promise<void> => {
    const url = `http://127.0.0.1:${clientPort}`;
    const deadline = Date.now() + startTimeoutMs;
    for (;;) {
      if (c.exitCode !== null || c.signalCode !== null) {
        throw new Error(`etcd exited during start-up (${c.exitCode ?? c.signalCode}): ${log.slice(-5).join(' | ')}`);
      }
      if (await healthy(url)) return;
      if (Date.now() > deadline) {
        throw new Error(`etcd at ${url} not healthy after ${startTimeoutMs} ms: ${log.slice(-5).join(' | ')}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  // A port taken before etcd binds it: etcd exits at once ("address already in use").
  try {
    child = await onFreshPorts(async () => {
      clientPort = await freePort();
      do peerPort = await freePort(); while (peerPort === clientPort);
      const c = spawnOnce();
      try {
        await waitHealthy(c);
        return c;
      } catch (e) {
        c.kill('SIGKILL');
        await exited(c);
        throw e;
      }
    }, () => {
      const inUse = log.some((l) => l.includes('address already in use'));
      if (inUse) log.length = 0;
      return inUse;
    }, 3);
  } catch (e) {
    await dir.cleanup();
    throw e;
  }

  const clientUrl = `http://127.0.0.1:${clientPort}`;
  const server: EtcdServer = {
    clientUrl,
    clientPort,
    peerPort,
    dataDir: dir.path,
    log,
    pid: () => child?.pid ?? null,
    async kill() {
      if (!child) return;
      const c = child;
      child = null;
      c.kill('SIGCONT'); // a paused process would still die of SIGKILL, but keep state simple
      c.kill('SIGKILL');
      await exited(c);
    },
    async stop() {
      if (!child) return;
      const c = child;
      child = null;
      c.kill('SIGCONT');
      c.kill('SIGTERM');
      const t = setTimeout(() => c.kill('SIGKILL'), 5000);
      await exited(c);
      clearTimeout(t);
    },
    async start() {
      if (child) return;
      const c = spawnOnce();
      child = c;
      try {
        await waitHealthy(c);
      } catch (e) {
        c.kill('SIGKILL');
        await exited(c);
        child = null;
        throw e;
      }
    },
    async restart() {
      await server.kill();
      await server.start();
    },
    pause() {
      child?.kill('SIGSTOP');
    },
    resume() {
      child?.kill('SIGCONT');
    },
    async cleanup() {
      await server.kill();
      await dir.cleanup();
    },
  };
  return server;
}

/** Starts etcd, or says in one line why it cannot run here and resolves null (a failure under CI). */
export async function etcdOrSkip(what: string, opts: EtcdOptions = {}): Promise<EtcdServer | null> {
  const missing = etcdMissing();
  if (!missing) return startEtcd(opts);
  if (IN_CI) throw new Error(`${what}: etcd is required under CI but cannot run here: ${missing}`);
  console.log(`${what}: skipped: ${missing}`);
  return null;
}
