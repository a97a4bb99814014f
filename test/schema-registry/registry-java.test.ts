/**
 * A Java Confluent-API Schema Registry client nobody here wrote, against Samsa's registry and
 * through Samsa's Kafka listener (issue 26, item 4; the Node and Python clients are in
 * registry-clients.test.ts).
 *
 * The client is Spring Cloud Stream's ConfluentSchemaRegistryClient
 * (org.springframework.cloud:spring-cloud-stream-schema-registry-client, RestTemplate on
 * Confluent's REST API): Confluent's own io.confluent clients are not on Maven Central, and
 * Apicurio's speak Apicurio's API. test/support/registry-java/RegistryClientScenario.java, run
 * with the single-file source launcher, registers an Avro schema, a compatible evolution and an
 * incompatible one, writes a record with Apache Avro in Confluent's wire format, produces and
 * consumes it with the Kafka Java client, fetches the writer schema by id and decodes it; it
 * prints one JSON line this test checks.
 *
 * Its jars (test/support/registry-java/pom.xml: the client, Avro, kafka-clients of the release
 * pinned in tools/kafka/pom.xml) are resolved with `mvn dependency:copy-dependencies` into the
 * cache tools/kafka/kafka.ts uses (~/.cache/samsa/registry-java-<hash of the pom and release>),
 * the first time this test runs on a machine. Without java or mvn it is skipped, except under CI,
 * where it fails.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { JVM_OPTS, KAFKA_VERSION, cacheRoot, javaBin, javaMissing } from '../../tools/kafka/kafka.js';
import { javaProgram } from '../../tools/kafka/java-classes.js';
import { run } from '../support/external.js';

const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const HERE = path.dirname(fileURLToPath(import.meta.url));
const JAVA_DIR = path.join(HERE, '..', 'support', 'registry-java');
const POM = path.join(JAVA_DIR, 'pom.xml');
const SCENARIO = path.join(JAVA_DIR, 'RegistryClientScenario.java');

/** One directory per version of the pom and of the pinned Kafka release: a changed pin resolves again. */
const JARS_DIR = path.join(cacheRoot(), `registry-java-${createHash('sha1').update(readFileSync(POM)).update(KAFKA_VERSION).digest('hex').slice(0, 12)}`);
const CLASSPATH_FILE = path.join(JARS_DIR, 'classpath.txt');

function whyMissing(): string | null {
  const java = javaMissing();
  if (java) return java;
  if (!existsSync(CLASSPATH_FILE) && spawnSync('sh', ['-c', 'command -v mvn'], { stdio: 'ignore' }).status !== 0) {
    return `no mvn on PATH to resolve ${path.relative(process.cwd(), POM)} from Maven Central`;
  }
  return null;
}

const missing = whyMissing();
if (missing && IN_CI) throw new Error(`registry-java: required under CI: ${missing}`);

/** The client's jars, resolved once per machine (into a fresh directory renamed into place, so a half-resolved one is never used). */
async function registryClientClasspath(): Promise<string> {
  if (!existsSync(CLASSPATH_FILE)) {
    const tmp = `${JARS_DIR}.${process.pid}.tmp`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(path.join(tmp, 'libs'), { recursive: true });
    console.log(`registry-java: resolving ${path.relative(process.cwd(), POM)} with Maven into ${JARS_DIR}`);
    const r = await run('mvn', ['-B', '-q', '-f', POM, 'dependency:copy-dependencies', `-Dkafka.version=${KAFKA_VERSION}`, `-DoutputDirectory=${path.join(tmp, 'libs')}`], { timeoutMs: 150_000 });
    if (r.code !== 0) {
      rmSync(tmp, { recursive: true, force: true });
      throw new Error(`mvn could not resolve the registry client's jars (${r.timedOut ? 'timed out' : `exit ${r.code}`}): ${(r.stdout + r.stderr).trim().split('\n').slice(-15).join('\n')}`);
    }
    writeFileSync(path.join(tmp, 'classpath.txt'), path.join(JARS_DIR, 'libs', '*') + '\n');
    try {
      renameSync(tmp, JARS_DIR);
    } catch (e) {
      // Another run put its copy in place first: use that one.
      rmSync(tmp, { recursive: true, force: true });
      if (!existsSync(CLASSPATH_FILE)) throw e;
    }
  }
  return readFileSync(CLASSPATH_FILE, 'utf8').trim();
}

let b: RunningBroker;
let classpath = '';

test.before(async () => {
  if (missing) return;
  classpath = await registryClientClasspath();
  b = await startBroker({ http: true, config: { 'offsets.topic.num.partitions': 1 } });
});

test.after(async () => {
  await b?.stop();
});

test("Spring's ConfluentSchemaRegistryClient (Java): register, evolve, refused, Avro in Confluent's wire format through Kafka, fetch by id, decode", async () => {
  if (missing) return void console.log(`skipped: ${missing}`);
  const record = { id: 'p-java-1', amount: 1234.56, paidAt: 1767225600123, memo: 'névé ✓', currency: 'CHF' };
  const prog = await javaProgram(SCENARIO, classpath);
  const res = await run(javaBin(), [...JVM_OPTS, '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn', '-cp', prog.classpath, prog.main, b.bootstrap, b.httpUrl!, 'java-payments', JSON.stringify(record)], { timeoutMs: 180_000 });
  const what = `java exited ${res.code}${res.timedOut ? ' (timed out)' : ''}\nstdout: ${res.stdout.slice(-3000)}\nstderr: ${res.stderr.slice(-6000)}`;
  assert.is(res.code, 0, what);
  const lines = res.stdout.trim().split('\n').filter((l) => l.startsWith('{'));
  assert.is(lines.length, 1, what);
  const o = JSON.parse(lines[0]);

  // (1) and (2): two ids, versions 1 and 2; the same schema again is the same id.
  assert.equal(o.v1.subject, 'java-payments-value');
  assert.is(o.v1.version, 1);
  assert.is(o.v2.version, 2);
  assert.ok(Number.isInteger(o.v1.id) && o.v1.id > 0, `v1 id ${o.v1.id}`);
  assert.ok(o.v2.id > o.v1.id, `v2 id ${o.v2.id} after v1 id ${o.v1.id}`);
  assert.is(o.v1Again, o.v1.id);

  // (3) refused with Confluent's 409 and its error body.
  assert.is(o.refused.registeredId, undefined, 'the incompatible schema was registered');
  assert.is(o.refused.status, 409, JSON.stringify(o.refused));
  assert.is(o.refused.body.error_code, 409);
  assert.match(o.refused.body.message, /incompatible/i);
  assert.match(o.refused.message, /Failed to register subject java-payments-value, server replied with status 409/);

  // (4) the bytes: magic 0 and v2's id, unchanged through Kafka; decoded with the schema fetched by that id.
  assert.equal(o.produced, { partition: 0, offset: 0 });
  assert.is(o.sameBytes, true);
  assert.is(o.wire.magic, 0);
  assert.is(o.wire.id, o.v2.id);
  assert.is(o.writerSchemaEqualsV2, true);
  assert.equal(o.decoded, record);
  const { currency: _dropped, ...v1Fields } = record;
  assert.equal(o.decodedAsV1, v1Fields);

  // What the registry holds, asked over plain HTTP.
  const versions = await fetch(`${b.httpUrl}/subjects/java-payments-value/versions`);
  assert.is(versions.status, 200);
  assert.equal(await versions.json(), [1, 2]);
  const byId = (await (await fetch(`${b.httpUrl}/schemas/ids/${o.v2.id}`)).json()) as { schema: string };
  assert.ok(JSON.parse(byId.schema).fields.some((f: { name: string; default?: unknown }) => f.name === 'currency' && f.default === 'EUR'));
  console.log(`registry-java: ids ${o.v1.id}, ${o.v2.id}; incompatible refused with ${o.refused.status}; java ran ${(res.durationMs / 1000).toFixed(1)} s`);
});

test.run();
