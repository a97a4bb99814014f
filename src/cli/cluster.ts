/**
 * `samsa cluster start`: a development cluster on loopback: one etcd (Debian's etcd-server,
 * /usr/bin/etcd) and N Samsa brokers, each a child process of this one, with its data under
 * --dir. Node ids 0..N-1 on ports 9092, 9095, 9098, ... (the layout kafkajs's integration specs
 * expect). Every child's output is prefixed with its name; Ctrl-C (or SIGTERM) stops the brokers
 * gracefully, then etcd, and exits 0. The data stays, so the next start resumes the cluster.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { flag, flags, intFlag, keyValue, parseArgs, UsageError } from './args.js';
import type { Io } from './commands.js';

export const CLUSTER_HELP = `usage: samsa cluster start [options]
       samsa cluster add-broker ID | decommission ID [options]   (see samsa cluster add-broker --help)

Starts etcd and a cluster of Samsa brokers on loopback, for development.

  --brokers N         number of brokers (default 3); node ids 0..N-1
  --port P            first broker's port (default 9092); the others follow 3 apart (9095, 9098, ...)
  --dir DIR           data directory: DIR/etcd and DIR/broker-<id> (default ./samsa-cluster)
  --etcd URL          use this etcd instead of starting one (e.g. http://127.0.0.1:2379)
  --etcd-port P       client port of the etcd started here (default 2379; peers on P+1)
  --etcd-bin PATH     etcd binary (default $SAMSA_ETCD_BIN or /usr/bin/etcd)
  --override k=v      a broker setting for every broker (repeatable), e.g. --override min.insync.replicas=2

Ctrl-C stops the brokers (each leaves the cluster), then etcd.
`;

interface Child {
  name: string;
  proc: ChildProcess;
  exited: Promise<void>;
}

function pipeLines(child: ChildProcess, name: string, io: Io): void {
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (s: string) => {
      partial += s;
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const l of lines) io.err(`[${name}] ${l}\n`);
    });
  }
}

function launch(name: string, cmd: string, args: string[], io: Io, env?: NodeJS.ProcessEnv): Child {
  const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: env ?? process.env });
  pipeLines(proc, name, io);
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  return { name, proc, exited };
}

async function etcdHealthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
    return ((await res.json()) as { health?: string }).health === 'true';
  } catch {
    return false;
  }
}

async function waitFor(what: string, timeoutMs: number, check: () => boolean | Promise<boolean>, failed: () => string | null): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    const why = failed();
    if (why) throw new Error(`${what}: ${why}`);
    if (Date.now() > deadline) throw new Error(`${what}: not ready after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The command line that runs this same CLI (the bundle, or src/cli/samsa.ts under tsx). */
function selfCommand(): string[] {
  return [...process.execArgv, process.argv[1]!];
}

export async function clusterCommand(argv: string[], io: Io, signal: AbortSignal): Promise<number> {
  if (argv[0] === 'add-broker' || argv[0] === 'decommission') return (await import('./reassign.js')).reassignCommand(argv[0], argv, io, signal);
  const p = parseArgs(argv, {
    brokers: { value: true }, port: { value: true }, dir: { value: true }, etcd: { value: true },
    'etcd-port': { value: true }, 'etcd-bin': { value: true }, override: { value: true, repeat: true }, help: { alias: 'h' },
  });
  const sub = p.positionals[0];
  if (p.flags.has('help') || sub === undefined) {
    io.out(CLUSTER_HELP);
    return sub === undefined && !p.flags.has('help') ? 2 : 0;
  }
  if (sub !== 'start') throw new UsageError(`unknown cluster command '${sub}' (start, add-broker, decommission)`);
  const n = intFlag(p, 'brokers', 3)!;
  if (n < 1 || n > 32) throw new UsageError('--brokers must be between 1 and 32');
  const basePort = intFlag(p, 'port', 9092)!;
  const dir = resolve(flag(p, 'dir') ?? 'samsa-cluster');
  const etcdPort = intFlag(p, 'etcd-port', 2379)!;
  const overrides = flags(p, 'override').map((o) => keyValue(o, '--override'));
  const children: Child[] = [];
  let stopping = false;

  const stopAll = async (): Promise<void> => {
    stopping = true;
    const brokers = children.filter((c) => c.name !== 'etcd');
    for (const c of brokers) c.proc.kill('SIGTERM');
    await Promise.race([Promise.all(brokers.map((c) => c.exited)), new Promise((r) => setTimeout(r, 20_000))]);
    for (const c of brokers) c.proc.kill('SIGKILL');
    const etcd = children.find((c) => c.name === 'etcd');
    if (etcd) {
      etcd.proc.kill('SIGTERM');
      await Promise.race([etcd.exited, new Promise((r) => setTimeout(r, 5000))]);
      etcd.proc.kill('SIGKILL');
    }
  };

  try {
    mkdirSync(dir, { recursive: true });
    let etcdUrl = flag(p, 'etcd');
    if (!etcdUrl) {
      const bin = flag(p, 'etcd-bin') ?? process.env.SAMSA_ETCD_BIN ?? '/usr/bin/etcd';
      try {
        accessSync(bin, constants.X_OK);
      } catch {
        throw new Error(`${bin} not found: install etcd (Debian: apt-get install etcd-server), or pass --etcd-bin PATH or --etcd URL`);
      }
      etcdUrl = `http://127.0.0.1:${etcdPort}`;
      const peer = `http://127.0.0.1:${etcdPort + 1}`;
      const etcd = launch('etcd', bin, [
        '--name', 'samsa-dev', '--data-dir', join(dir, 'etcd'),
        '--listen-client-urls', etcdUrl, '--advertise-client-urls', etcdUrl,
        '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer,
        '--initial-cluster', `samsa-dev=${peer}`, '--initial-cluster-state', 'new',
        '--heartbeat-interval', '100', '--election-timeout', '1000', '--log-level', 'warn',
      ], io);
      children.push(etcd);
      const url = etcdUrl;
      await waitFor(`etcd at ${url}`, 20_000, () => etcdHealthy(url), () => (etcd.proc.exitCode !== null ? `exited with ${etcd.proc.exitCode} (is port ${etcdPort} taken?)` : null));
      io.err(`[cluster] etcd ready at ${etcdUrl} (data in ${join(dir, 'etcd')})\n`);
    }
    const bootstrap: string[] = [];
    for (let id = 0; id < n; id++) {
      const port = basePort + 3 * id;
      const settings: [string, string][] = [
        ['node.id', String(id)],
        ['listeners', `PLAINTEXT://127.0.0.1:${port}`],
        ['log.dirs', join(dir, `broker-${id}`)],
        ['samsa.etcd.endpoints', etcdUrl],
        ...overrides,
      ];
      const args = [...selfCommand(), 'start', ...settings.flatMap(([k, v]) => ['--override', `${k}=${v}`])];
      let out = '';
      const child = launch(`broker ${id}`, process.execPath, args, io, { ...process.env, SAMSA_LOG_LEVEL: process.env.SAMSA_LOG_LEVEL ?? 'info' });
      child.proc.stderr?.on('data', (s: string) => { out += s; });
      child.proc.stdout?.on('data', (s: string) => { out += s; });
      children.push(child);
      await waitFor(`broker ${id}`, 60_000, () => out.includes('Samsa started'), () => (child.proc.exitCode !== null ? `exited with ${child.proc.exitCode}` : null));
      bootstrap.push(`127.0.0.1:${port}`);
    }
    io.out(`cluster of ${n} broker(s) ready: bootstrap servers ${bootstrap.join(',')}\n`);
    for (const c of children) {
      void c.exited.then(() => {
        if (!stopping) io.err(`[cluster] ${c.name} exited (${c.proc.exitCode ?? c.proc.signalCode}); the others keep running\n`);
      });
    }
    await new Promise<void>((r) => (signal.aborted ? r() : signal.addEventListener('abort', () => r(), { once: true })));
    io.err('[cluster] stopping\n');
    await stopAll();
    return 0;
  } catch (err) {
    await stopAll();
    throw err;
  }
}
