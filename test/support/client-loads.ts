/**
 * Loads from other clients for the cluster fault tests, feeding the same `Acks` as kafkajsLoad
 * (checker.ts): each runs as a child process that prints "A <partition> <seq>" for every
 * acknowledged "<partition>:<seq>" record and "F <partition> <seq> <error>" for a failed one, and
 * stops (flush, close, "DONE") on a line on stdin.
 *
 * - librdkafka: confluent-kafka from PyPI in the test venv (tools/ensure-test-deps.sh), one
 *   producer with enable.idempotence=true and acks=all.
 * Both are paced at LOAD_RATE records/s (checker.ts), as kafkajsLoad is.
 * - The Java client: kafka-clients of the pinned Kafka release (tools/kafka/kafka.ts resolves the
 *   jars into ~/.cache/samsa), java/LoadProducer.java run as a single source file, one
 *   idempotent acks=all producer per partition.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { javaBin, javaMissing, kafkaJars } from '../../tools/kafka/kafka.js';
import { CLIENT_JVM_OPTS, javaProgram } from '../../tools/kafka/java-classes.js';
import { VENV_PYTHON } from './external.js';
import { Acks, LOAD_RATE, type Load } from './checker.js';

const PY_LOAD = `
import sys, threading, time
from confluent_kafka import Producer
bs, topic, partitions, rate = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
stop = threading.Event()
def watch():
    sys.stdin.readline()
    stop.set()
threading.Thread(target=watch, daemon=True).start()
p = Producer({'bootstrap.servers': bs, 'enable.idempotence': True, 'acks': 'all', 'linger.ms': 1,
              'message.timeout.ms': 60000, 'request.timeout.ms': 10000, 'retry.backoff.ms': 100,
              'topic.metadata.refresh.interval.ms': 5000, 'client.id': topic + '-librdkafka'})
def report(err, msg):
    part, seq = msg.value().decode().split(':')
    if err is None:
        print('A', part, seq, flush=True)
    else:
        print('F', part, seq, err.name(), flush=True)
print('STARTED', flush=True)
seq = [0] * partitions
start, sent = time.monotonic(), 0
while not stop.is_set():
    for part in range(partitions):
        if len(p) >= 10 * partitions or (rate > 0 and sent >= (time.monotonic() - start) * rate):
            break
        p.produce(topic, value=('%d:%d' % (part, seq[part])).encode(), partition=part, on_delivery=report)
        seq[part] += 1
        sent += 1
    p.poll(0.005)
left = p.flush(60)
print('DONE', left, flush=True)
`;

/** Why the librdkafka load cannot run here, or null. */
export function librdkafkaMissing(): string | null {
  return existsSync(VENV_PYTHON) ? null : `${VENV_PYTHON} not found (run tools/ensure-test-deps.sh)`;
}

/** Why the Java load cannot run here, or null. */
export function javaLoadMissing(): string | null {
  return javaMissing();
}

/**
 * Resolves the Kafka jars (a first run downloads them with mvn, synchronously) and compiles the load
 * program now: call it before anything timing-sensitive runs in this process.
 */
export function prepareJavaLoad(): Promise<{ classpath: string; main: string }> {
  return javaProgram(join(process.cwd(), 'test', 'support', 'java', 'LoadProducer.java'), kafkaJars().classpath);
}

function childLoad(child: ChildProcess, what: string, acks: Acks): Promise<Load> {
  let partial = '';
  let err = '';
  let started = false;
  let done = false;
  const failures: string[] = [];
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (s: string) => {
    err += s;
    if (err.length > 20_000) err = err.slice(-10_000);
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (s: string) => {
    partial += s;
    const lines = partial.split('\n');
    partial = lines.pop()!;
    for (const l of lines) {
      const [kind, a, b, e] = l.split(' ');
      if (kind === 'A') acks.ack(Number(a), Number(b));
      else if (kind === 'F') {
        acks.failures++;
        if (failures.length < 20) failures.push(`${a}:${b} ${e}`);
      } else if (kind === 'STARTED') started = true;
      else if (kind === 'DONE') done = true;
    }
  });
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + 60_000;
    const poll = setInterval(() => {
      if (started) {
        clearInterval(poll);
        resolve({
          acks,
          async stop() {
            child.stdin!.end('stop\n');
            const t = setTimeout(() => child.kill('SIGKILL'), 90_000);
            const code = await exited;
            clearTimeout(t);
            if (code !== 0 || !done) throw new Error(`${what} load exited ${code} (done: ${done}): ${err.slice(-3000)}`);
            if (process.env.SAMSA_LOAD_STDERR) console.log(`${what} stderr: ${err.slice(-8000)}`);
            else if (failures.length) console.log(`${what}: failed sends (first ${failures.length}): ${failures.join(', ')}\n${what} stderr: ${err.slice(-4000)}`);
          },
        });
      } else if (child.exitCode !== null || Date.now() > deadline) {
        clearInterval(poll);
        child.kill('SIGKILL');
        reject(new Error(`${what} load did not start: ${err.slice(-3000)}`));
      }
    }, 50);
  });
}

/** An idempotent acks=all confluent-kafka (librdkafka) producer over `partitions` partitions. */
export function librdkafkaLoad(bootstrap: string, topic: string, partitions: number, acks = new Acks(partitions)): Promise<Load> {
  const child = spawn(VENV_PYTHON, ['-c', PY_LOAD, bootstrap, topic, String(partitions), String(LOAD_RATE)], {
    stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' },
  });
  return childLoad(child, 'librdkafka', acks);
}

/** Idempotent acks=all kafka-clients producers, one per partition. */
export async function javaLoad(bootstrap: string, topic: string, partitions: number, acks = new Acks(partitions)): Promise<Load> {
  const prog = await prepareJavaLoad();
  const child = spawn(javaBin(), [...CLIENT_JVM_OPTS, '-cp', prog.classpath, prog.main, bootstrap, topic, String(partitions), String(LOAD_RATE)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return childLoad(child, 'java', acks);
}
