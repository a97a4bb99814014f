/**
 * Runs test/e2e/txn-v2-java/TxnV2.java (single-file source launch) with the Kafka 4.4 client jars:
 * `fill`, `hang`, `ctp` or `read`; resolves with its JSON lines (each also given to `onLine`).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { javaBin, kafkaJars } from '../../../tools/kafka/kafka.js';

const SRC = join(process.cwd(), 'test', 'e2e', 'txn-v2-java', 'TxnV2.java');

export function txnV2Java(args: string[], onLine?: (l: string) => void): { done: Promise<string[]>; kill: () => void } {
  const jars = kafkaJars();
  const child = spawn(javaBin(), [
    '-Xms32m', '-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1',
    `-Dlog4j2.configurationFile=${join(process.cwd(), 'compat-tests', 'clients', 'java', 'log4j2.properties')}`,
    '-cp', jars.classpath, SRC, ...args,
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let err = '';
  let buf = '';
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const l = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (l.startsWith('{')) { lines.push(l); onLine?.(l); }
    }
  });
  child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
  const done = new Promise<string[]>((resolve, reject) => child.on('exit', (code, signal) => {
    if (code === 0 || signal === 'SIGKILL') resolve(lines);
    else reject(new Error(`TxnV2.java ${args[0]} exited ${code}: ${err.slice(-3000)}`));
  }));
  return { done, kill: () => child.kill('SIGKILL') };
}
