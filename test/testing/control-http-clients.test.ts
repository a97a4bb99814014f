/**
 * The Java and Go test control clients (compat-tests/control-clients/) against a broker serving
 * its control over HTTP: the Java one with the Kafka Java client (compiled with javac against
 * Kafka 4.4's client jars), the Go one with `go test` and kcat. Each injects Produce errors the
 * client retries, reads them back from a recording and the rule's hits, waits on the high
 * watermark, and sees a refused call.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { run } from '../support/external.js';
import { javaBin, javaMissing, kafkaJars } from '../../tools/kafka/kafka.js';
import { CLIENT_JVM_OPTS, javaClasses } from '../../tools/kafka/java-classes.js';

const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLIENTS = path.join(ROOT, 'compat-tests', 'control-clients');
const noJava = javaMissing();
if (noJava && IN_CI) throw new Error(`control-http-clients: Java is required under CI: ${noJava}`);

let b: RunningBroker;

test.before(async () => {
  b = await startBroker({ httpControl: true, 'num.partitions': 1 });
});

test.after(async () => {
  await b?.stop();
});

test('Java: SamsaControl with the Kafka Java client', async () => {
  if (noJava) return console.log(`skipped: ${noJava}`);
  const jars = kafkaJars();
  const out = await javaClasses({ name: 'control-java', sources: [path.join(CLIENTS, 'java', 'SamsaControl.java'), path.join(ROOT, 'test', 'support', 'control-java', 'ControlScenario.java')], classpath: jars.classpath });
  const r = await run(javaBin(), [...CLIENT_JVM_OPTS, '-cp', `${out}${path.delimiter}${jars.classpath}`, 'ControlScenario', b.bootstrap, b.httpUrl!], { timeoutMs: 120_000 });
  assert.is(r.code, 0, r.stderr);
  const res = JSON.parse(r.stdout.trim().split('\n').pop()!);
  assert.equal(res, { offset: 0, hits: 2, injected: 2, refused: 400 });
});

test('Go: samsacontrol with kcat', async () => {
  const r = await run('go', ['test', '-count=1', '-run', 'TestAgainstBroker', '-v', '.'], {
    cwd: path.join(CLIENTS, 'go'), timeoutMs: 170_000,
    env: { SAMSA_CONTROL_URL: b.httpUrl!, SAMSA_BOOTSTRAP: b.bootstrap, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' },
  });
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /--- PASS: TestAgainstBroker/);
});

test.run();
