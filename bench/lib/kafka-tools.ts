/**
 * Apache Kafka's own perf tools for the benchmarks that compare Samsa with Kafka
 * (bench/kafka-compare.ts, bench/cluster-compare.ts): the JVM options of Kafka's start scripts,
 * one tool run bounded in time, and the parsers of ProducerPerformance's and ConsumerPerformance's
 * summaries.
 */
import { spawn } from 'node:child_process';
import { javaBin, kafkaJars, LOG4J_CONFIG } from '../../tools/kafka/kafka.js';

/** What kafka-server-start.sh gives the broker (KAFKA_HEAP_OPTS, KAFKA_JVM_PERFORMANCE_OPTS). */
export const KAFKA_SERVER_JVM = ['-Xmx1G', '-Xms1G', '-server', '-XX:+UseG1GC', '-XX:MaxGCPauseMillis=20', '-XX:InitiatingHeapOccupancyPercent=35',
  '-XX:+ExplicitGCInvokesConcurrent', '-XX:MaxInlineLevel=15', '-Djava.awt.headless=true', `-Dlog4j2.configurationFile=${LOG4J_CONFIG}`];
/** The perf tools' JVMs (kafka-run-class.sh defaults: 256 MiB heap). */
export const TOOL_JVM = ['-Xmx512M', '-XX:+UseG1GC', '-Djava.awt.headless=true', `-Dlog4j2.configurationFile=${LOG4J_CONFIG}`];

export interface ToolFigures {
  recordsPerS: number;
  mibPerS: number;
  p50?: number;
  p99?: number;
  p999?: number;
}

/** Runs one Kafka tool class (e.g. org.apache.kafka.tools.ProducerPerformance); resolves with its output, rejects on a non-zero exit. */
export function kafkaTool(main: string, toolArgs: string[], timeoutMs = 600_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(javaBin(), [...TOOL_JVM, '-cp', kafkaJars().classpath, main, ...toolArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    const t = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(t);
      if (code === 0) resolve(out);
      else reject(new Error(`${main} exited ${code}: ${out.slice(-1500)}`));
    });
  });
}

/** "N records sent, R records/sec (M MB/sec), A ms avg latency, X ms max latency, P50 ms 50th, P95 ms 95th, P99 ms 99th, P999 ms 99.9th." */
export function parseProducer(out: string): ToolFigures {
  const lines = out.trim().split('\n').filter((l) => /records sent/.test(l));
  const m = /([\d.]+) records\/sec \(([\d.]+) MB\/sec\).*?([\d.]+) ms 50th, ([\d.]+) ms 95th, ([\d.]+) ms 99th, ([\d.]+) ms 99.9th/.exec(lines[lines.length - 1] ?? '');
  if (!m) throw new Error(`unexpected ProducerPerformance output: ${out.slice(-500)}`);
  return { recordsPerS: Number(m[1]), mibPerS: Number(m[2]), p50: Number(m[3]), p99: Number(m[5]), p999: Number(m[6]) };
}

/** ConsumerPerformance's CSV line: start, end, MB, MB/sec, nMsg, nMsg/sec, rebalance ms, fetch ms, fetch MB/sec, fetch nMsg/sec. */
export function parseConsumer(out: string): ToolFigures {
  const line = out.trim().split('\n').reverse().find((l) => /^\d{4}-\d\d-\d\d/.test(l.trim()));
  if (!line) throw new Error(`unexpected ConsumerPerformance output: ${out.slice(-500)}`);
  const f = line.split(',').map((x) => x.trim());
  return { recordsPerS: Number(f[9]), mibPerS: Number(f[8]) };
}
