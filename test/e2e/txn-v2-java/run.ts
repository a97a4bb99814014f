/**
 * Runs test/e2e/txn-v2-java/TxnV2.java (compiled once: tools/kafka/java-classes.ts) with the Kafka 4.4 client jars:
 * `fill`, `hang`, `ctp` or `read`; resolves with its JSON lines (each also given to `onLine`).
 */
import { join } from 'node:path';
import { kafkaJars } from '../../../tools/kafka/kafka.js';
import { javaProgram } from '../../../tools/kafka/java-classes.js';
import { startJvm, type JvmProcess } from '../../../compat-tests/frameworks/jvm.js';

const SRC = join(process.cwd(), 'test', 'e2e', 'txn-v2-java', 'TxnV2.java');

export function txnV2Java(args: string[], onLine?: (l: string) => void): { done: Promise<string[]>; kill: () => void } {
  let jvm: JvmProcess | null = null;
  let killed = false;
  const done = (async () => {
    const prog = await javaProgram(SRC, kafkaJars().classpath);
    if (killed) return [];
    const lines: string[] = [];
    jvm = await startJvm(prog.main, args, {
      classpath: prog.classpath,
      onLine: (l) => {
        if (!l.startsWith('{')) return;
        lines.push(l);
        onLine?.(l);
      },
    });
    if (killed) jvm.kill();
    const { code, signal, stderr } = await jvm.exited;
    if (code === 0 || signal === 'SIGKILL') return lines;
    throw new Error(`TxnV2 ${args[0]} exited ${code}: ${stderr.slice(-3000)}`);
  })();
  return { done, kill: () => { killed = true; jvm?.kill(); } };
}
