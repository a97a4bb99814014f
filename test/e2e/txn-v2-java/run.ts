/**
 * Runs test/e2e/txn-v2-java/TxnV2.java (compiled once: tools/kafka/java-classes.ts) with the Kafka 4.4 client jars:
 * `fill`, `hang`, `ctp` or `read`; resolves with its JSON lines (each also given to `onLine`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { javaBin, kafkaJars } from '../../../tools/kafka/kafka.js';
import { CLIENT_JVM_OPTS, javaProgram } from '../../../tools/kafka/java-classes.js';

const SRC = join(process.cwd(), 'test', 'e2e', 'txn-v2-java', 'TxnV2.java');

export function txnV2Java(args: string[], onLine?: (l: string) => void): { done: Promise<string[]>; kill: () => void } {
  let child: ChildProcess | null = null;
  let killed = false;
  const done = (async () => {
    const prog = await javaProgram(SRC, kafkaJars().classpath);
    if (killed) return [];
    const c = (child = spawn(javaBin(), [...CLIENT_JVM_OPTS, '-cp', prog.classpath, prog.main, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }));
    const lines: string[] = [];
    let err = '';
    let buf = '';
    c.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const l = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (l.startsWith('{')) { lines.push(l); onLine?.(l); }
      }
    });
    c.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
    return new Promise<string[]>((resolve, reject) => c.on('exit', (code, signal) => {
      if (code === 0 || signal === 'SIGKILL') resolve(lines);
      else reject(new Error(`TxnV2 ${args[0]} exited ${code}: ${err.slice(-3000)}`));
    }));
  })();
  return { done, kill: () => { killed = true; child?.kill('SIGKILL'); } };
}
