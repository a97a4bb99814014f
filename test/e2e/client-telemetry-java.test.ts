/**
 * Client telemetry (KIP-714) with the Java client of Apache Kafka 4.4 (client-telemetry-java/
 * Telemetry.java): an admin client, a producer and a consumer with enable.metrics.push at its default (true)
 * against Samsa and against a real Kafka 4.4 with no client-metrics subscriptions. Both brokers
 * answer GetTelemetrySubscriptions / PushTelemetry but advertise neither, so the client must find
 * telemetry unsupported, log no warning or error, and do everything else alike on both; the
 * recording shows that the client then sends neither request to Samsa. Skipped without java.
 * @samsa-timeout 240
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { javaBin, javaMissing, kafkaJars } from '../../tools/kafka/kafka.js';
import { javaProgram } from '../../tools/kafka/java-classes.js';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { kafkaOrSkip } from '../support/kafka.js';

const DIR = join(process.cwd(), 'test', 'e2e', 'client-telemetry-java');
const COUNT = 20;
const missing = javaMissing();

interface Run {
  lines: Record<string, unknown>[];
  log: string[];
}

async function telemetryClient(bootstrap: string, topic: string): Promise<Run> {
  const prog = await javaProgram(join(DIR, 'Telemetry.java'), kafkaJars().classpath);
  const child = spawn(javaBin(), [
    '-Xms32m', '-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1',
    `-Dlog4j2.configurationFile=${join(DIR, 'log4j2.properties')}`,
    '-cp', prog.classpath, prog.main, bootstrap, topic, String(COUNT),
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
  return new Promise((resolve, reject) => child.on('exit', (code) => {
    if (code !== 0) return reject(new Error(`Telemetry.java exited ${code}: ${err.slice(-3000)}`));
    resolve({ lines: out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)), log: err.split('\n').filter((l) => l.length > 0) });
  }));
}

/** What must agree between the brokers: every printed step. */
const steps = (r: Run) => Object.assign({}, ...r.lines);
/** The client's warnings and errors (its debug lines are the telemetry sender's decisions). */
const complaints = (r: Run) => r.log.filter((l) => /^(WARN|ERROR|FATAL) /.test(l));

let samsa: RunningBroker | undefined;

test.after(async () => {
  await samsa?.stop();
});

test('Java 4.4 producer and consumer with telemetry on: the same outcome as on Kafka 4.4, no warning or error, no telemetry request sent', async () => {
  if (missing) {
    console.log(`skipped: ${missing}`);
    return;
  }
  samsa = await startBroker({ port: 0 });
  const rec = samsa.control.record({ apiKeys: ['GetTelemetrySubscriptions', 'PushTelemetry', 'Produce'] });
  const onSamsa = await telemetryClient(samsa.bootstrap, 'telemetry');
  rec.stop();
  console.log(`on Samsa: ${JSON.stringify(steps(onSamsa))}; telemetry sender: ${onSamsa.log.filter((l) => l.startsWith('DEBUG')).slice(0, 2).join(' | ')}`);
  const seen = rec.exchanges.map((e) => e.apiKey);
  assert.equal(complaints(onSamsa), [], 'no warning or error from the client');
  const s = steps(onSamsa);
  assert.equal(s, { created: 'telemetry', adminInstanceId: s.adminInstanceId, produced: COUNT, producerInstanceId: s.producerInstanceId, consumed: COUNT, last: `v${COUNT - 1}`, consumerInstanceId: s.consumerInstanceId });
  assert.ok(seen.includes(0), 'the recording saw the producer');
  assert.not.ok(seen.includes(71) || seen.includes(72), `not advertised, so not sent: ${seen.join(',')}`);

  const kafka = await kafkaOrSkip('client-telemetry-java', { overrides: { 'num.partitions': '1', 'offsets.topic.num.partitions': '1' } });
  if (!kafka) return;
  try {
    const onKafka = await telemetryClient(kafka.bootstrap, 'telemetry');
    console.log(`on Kafka 4.4: ${JSON.stringify(steps(onKafka))}; telemetry sender: ${onKafka.log.filter((l) => l.startsWith('DEBUG')).slice(0, 2).join(' | ')}`);
    assert.equal(steps(onSamsa), steps(onKafka), 'the same steps and instance id outcomes on both');
    assert.equal(complaints(onKafka), []);
  } finally {
    await kafka.stop();
  }
});

test.run();
