/**
 * What the Java-based drivers (java.ts: the kafka-clients agent; kafka-cli.ts: Kafka's tools)
 * share: the jars of the pinned Apache Kafka release (tools/kafka/kafka.ts), the agent compiled
 * from clients/java/*.java into a cache directory outside the repository (keyed by a hash of the
 * sources and the Kafka version, so an edit recompiles and the checkout stays clean), the JVM
 * options, and Kafka's table {exception class: protocol error name} for reading tool output.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../../test/support/external.js';
import { JVM_OPTS, javaBin, javaMissing, kafkaJars } from '../../tools/kafka/kafka.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SOURCES = path.join(HERE, 'java');
const LOG4J = path.join(SOURCES, 'log4j2.properties');

export interface JavaRuntime {
  java: string;
  kafkaVersion: string;
  /** The compiled agent classes, then the Kafka jars. */
  classpath: string;
  /** Options before -cp: small heap (several JVMs share two cores), quick start, our logging. */
  jvmArgs: string[];
  /** Exception class name (fully qualified) -> Kafka protocol error name. */
  errorNames: Map<string, string>;
}

let pending: Promise<JavaRuntime> | null = null;

/** Resolves the jars and compiles the agent once per process (and once per source hash on disk). */
export function javaRuntime(): Promise<JavaRuntime> {
  pending ??= build().catch((e) => {
    pending = null; // a later driver start may retry (e.g. after mvn could reach Maven Central)
    throw e;
  });
  return pending;
}

async function build(): Promise<JavaRuntime> {
  const missing = javaMissing();
  if (missing) throw new Error(missing);
  const jars = kafkaJars();
  const java = javaBin();
  const jvmArgs = [...JVM_OPTS.filter((o) => !/^-Xm[sx]|^-Dlog4j2\.configurationFile=/.test(o)), '-Xms32m', '-Xmx384m', `-Dlog4j2.configurationFile=${LOG4J}`];
  const files = readdirSync(SOURCES).filter((f) => f.endsWith('.java')).sort();
  const hash = createHash('sha256').update(jars.version);
  for (const f of files) hash.update(f).update(readFileSync(path.join(SOURCES, f)));
  // The cache root kafkaJars() uses: .../samsa/kafka-<version>/libs -> .../samsa
  const dir = path.join(path.resolve(jars.libs, '..', '..'), `java-agent-${hash.digest('hex').slice(0, 16)}`);
  const table = path.join(dir, 'errors.json');
  if (!existsSync(table)) {
    // Build beside the final directory and rename: another process may be building the same hash.
    const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
    mkdirSync(tmp, { recursive: true });
    try {
      const javac = java === 'java' ? 'javac' : path.join(path.dirname(java), 'javac');
      const c = await run(javac, ['-encoding', 'UTF-8', '-cp', jars.classpath, '-d', tmp, ...files.map((f) => path.join(SOURCES, f))], { timeoutMs: 120_000 });
      if (c.code !== 0) throw new Error(`javac failed: ${(c.stdout + c.stderr).slice(-2000)}`);
      const t = await run(java, [...jvmArgs, '-cp', `${tmp}${path.delimiter}${jars.classpath}`, 'Errs'], { timeoutMs: 60_000 });
      if (t.code !== 0) throw new Error(`error table: ${t.stderr.slice(-2000)}`);
      JSON.parse(t.stdout);
      writeFileSync(path.join(tmp, 'errors.json'), t.stdout);
      try {
        renameSync(tmp, dir);
      } catch (e) {
        if (!existsSync(table)) throw e; // else: the other builder won; its result is the same
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  const errorNames = new Map(Object.entries(JSON.parse(readFileSync(table, 'utf8')) as Record<string, string>));
  return { java, kafkaVersion: jars.version, classpath: `${dir}${path.delimiter}${jars.classpath}`, jvmArgs, errorNames };
}
