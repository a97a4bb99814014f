/**
 * The framework tests' JVMs: compat-tests/frameworks/*.java compiled once per content
 * (tools/kafka/java-classes.ts), with the
 * ServiceLoader manifests of the Connect plugins among them, then run with the release's jars,
 * Kafka Streams and RocksDB (tools/kafka/frameworks.ts) on the classpath.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { javaBin } from '../../tools/kafka/kafka.js';
import { javaClasses } from '../../tools/kafka/java-classes.js';
import { frameworkJars } from '../../tools/kafka/frameworks.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const LOG4J = path.join(HERE, 'log4j2.properties');
/** Connect plugins among the sources, by the interface ServiceLoader finds them under. */
const SERVICES: Record<string, string[]> = {
  'org.apache.kafka.connect.source.SourceConnector': ['FileLines$Source'],
  'org.apache.kafka.connect.sink.SinkConnector': ['FileLines$Sink'],
};

/** Small heap, quick start (several JVMs share two cores), our logging. */
export const JVM_ARGS = ['-Xms32m', '-Xmx320m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Djava.awt.headless=true', `-Dlog4j2.configurationFile=${LOG4J}`];

let pending: Promise<string> | null = null;

/** The classpath: the compiled sources, then the jars. Compiles at most once per process. */
export function frameworksClasspath(): Promise<string> {
  pending ??= build().catch((e) => {
    pending = null;
    throw e;
  });
  return pending;
}

async function build(): Promise<string> {
  const jars = frameworkJars();
  const files = readdirSync(HERE).filter((f) => f.endsWith('.java')).sort().map((f) => path.join(HERE, f));
  const dir = await javaClasses({
    name: 'frameworks', sources: files, classpath: jars.classpath,
    finish: (tmp) => {
      mkdirSync(path.join(tmp, 'META-INF', 'services'), { recursive: true });
      for (const [service, classes] of Object.entries(SERVICES)) writeFileSync(path.join(tmp, 'META-INF', 'services', service), classes.join('\n') + '\n');
    },
  });
  return `${dir}${path.delimiter}${jars.classpath}`;
}

export interface JvmProcess {
  child: ChildProcess;
  /** The JSON lines printed so far, parsed. */
  lines: Record<string, unknown>[];
  /** Resolves at exit with the code (null when killed by a signal) and the tail of stderr. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  /** Resolves with the first JSON line that satisfies `pred` (rejects when the process exits first). */
  line(pred: (l: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  kill(signal?: NodeJS.Signals): void;
}

/** Starts `java <main> <args>` with the frameworks' classpath (or `opts.classpath`). */
export async function startJvm(main: string, args: string[], opts: { jvmArgs?: string[]; onLine?: (l: string) => void; classpath?: string } = {}): Promise<JvmProcess> {
  const classpath = opts.classpath ?? await frameworksClasspath();
  const child = spawn(javaBin(), [...JVM_ARGS, ...(opts.jvmArgs ?? []), '-cp', classpath, main, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  const waiters: { pred: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }[] = [];
  let stderr = '';
  let buf = '';
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const text = buf.slice(0, i);
      buf = buf.slice(i + 1);
      opts.onLine?.(text);
      if (!text.startsWith('{')) continue;
      let l: Record<string, unknown>;
      try {
        l = JSON.parse(text) as Record<string, unknown>;
      } catch {
        continue;
      }
      lines.push(l);
      for (const w of [...waiters]) {
        if (w.pred(l)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(l);
        }
      }
    }
  });
  child.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-20_000);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr })));
  return {
    child,
    lines,
    exited,
    line(pred) {
      const seen = lines.find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        waiters.push({ pred, resolve });
        void exited.then((e) => reject(new Error(`${main} exited (${e.code ?? e.signal}) before the line awaited: ${JSON.stringify(lines.slice(-5))}\n${e.stderr.slice(-3000)}`)));
      });
    },
    kill(signal: NodeJS.Signals = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}

/** SIGTERM, then SIGKILL when it has not exited within `graceMs`. */
export async function stopJvm(p: JvmProcess, graceMs = 20_000): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  p.kill('SIGTERM');
  const t = setTimeout(() => p.kill('SIGKILL'), graceMs);
  try {
    return await p.exited;
  } finally {
    clearTimeout(t);
  }
}
