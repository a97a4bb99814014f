/**
 * What the Java-based drivers (java.ts: the kafka-clients agent; kafka-cli.ts: Kafka's tools)
 * share: the jars of the pinned Apache Kafka release (tools/kafka/kafka.ts), the agent compiled
 * from clients/java/*.java once per content (tools/kafka/java-classes.ts), the JVM
 * options, and Kafka's table {exception class: protocol error name} for reading tool output.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../../test/support/external.js';
import { JVM_OPTS, javaBin, javaMissing, kafkaJars } from '../../tools/kafka/kafka.js';
import { javaClasses } from '../../tools/kafka/java-classes.js';

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
  const files = readdirSync(SOURCES).filter((f) => f.endsWith('.java')).sort().map((f) => path.join(SOURCES, f));
  const dir = await javaClasses({
    name: 'java-agent', sources: files, classpath: jars.classpath,
    // Kafka's table of exception classes, read once from the jars by the agent's Errs.
    finish: async (tmp) => {
      const t = await run(java, [...jvmArgs, '-cp', `${tmp}${path.delimiter}${jars.classpath}`, 'Errs'], { timeoutMs: 60_000 });
      if (t.code !== 0) throw new Error(`error table: ${t.stderr.slice(-2000)}`);
      JSON.parse(t.stdout);
      writeFileSync(path.join(tmp, 'errors.json'), t.stdout);
    },
  });
  const table = path.join(dir, 'errors.json');
  const errorNames = new Map(Object.entries(JSON.parse(readFileSync(table, 'utf8')) as Record<string, string>));
  return { java, kafkaVersion: jars.version, classpath: `${dir}${path.delimiter}${jars.classpath}`, jvmArgs, errorNames };
}
