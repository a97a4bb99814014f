/**
 * One Samsa broker as a child process (src/main.ts, see node-ts.ts, with `--override`
 * settings), for the system tests that SIGKILL it: its output kept, and a promise of its exit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { brokerMain, nodeArgs } from './node-ts.js';

export interface BrokerProcess {
  child: ChildProcess;
  /** Everything it wrote so far (stdout and stderr). */
  output: () => string;
  exited: Promise<unknown>;
}


/** Starts a broker with these settings (Kafka names) and environment additions. */
export function spawnBroker(settings: Record<string, string | number>, env: Record<string, string> = {}): BrokerProcess {
  let out = '';
  const overrides = Object.entries(settings).flatMap(([k, v]) => ['--override', `${k}=${v}`]);
  const child = spawn(process.execPath, [...nodeArgs(brokerMain()), ...overrides], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return { child, output: () => out, exited };
}
