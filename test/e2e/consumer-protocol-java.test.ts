/**
 * The KIP-848 consumer protocol with the Java client of Apache Kafka 4.4 (group.protocol=consumer),
 * through consumer-protocol-java/Scenario.java run with the single-file source launcher: a group
 * of three reads a six-partition topic once and a fourth member takes partitions only from the
 * others; a SIGKILLed member's partitions move after the session timeout; a static member
 * restarts and keeps its partitions; a SubscriptionPattern (broker-side regex) picks up a topic
 * created later. Short consumer-group timeouts on the broker; times are printed, not asserted.
 * @samsa-timeout 300
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { run } from '../support/external.js';
import { JVM_OPTS, javaBin, javaMissing, kafkaJars } from '../../tools/kafka/kafka.js';
import { describeRun, hostPort, jsonLines } from './_clients.js';

const SCENARIO = path.join(path.dirname(fileURLToPath(import.meta.url)), 'consumer-protocol-java', 'Scenario.java');
const missing = javaMissing();
let b: RunningBroker;
let classpath = '';

test.before(async () => {
  if (missing) return;
  classpath = kafkaJars().classpath;
  b = await startBroker({
    port: 0,
    config: {
      'group.initial.rebalance.delay.ms': 0,
      'group.consumer.session.timeout.ms': 6000,
      'group.consumer.min.session.timeout.ms': 1000,
      'group.consumer.heartbeat.interval.ms': 1000,
      'group.consumer.min.heartbeat.interval.ms': 500,
    },
  });
});

test.after(async () => {
  await b?.stop();
});

async function scenario(mode: string): Promise<Record<string, any>> {
  const res = await run(javaBin(), [...JVM_OPTS, `-Dscenario.source=${SCENARIO}`, '-cp', classpath, SCENARIO, mode, hostPort(b.port)], { timeoutMs: 150_000 });
  assert.is(res.code, 0, `${mode}: ${describeRun(res)}`);
  return Object.assign({}, ...jsonLines(res, mode));
}

test('Java: three members read a six-partition topic once; a fourth takes partitions only from the others', async () => {
  if (missing) return void console.log(`skipped: ${missing}`);
  const o = await scenario('three-four');
  assert.is(o.values.length, 300, 'every record read');
  assert.is(new Set(o.values).size, 300, 'no record read twice');
  assert.equal(o.before.map((p: number[]) => p.length), [2, 2, 2]);
  const after: number[][] = o.after;
  assert.equal(after.flat().sort(), [0, 1, 2, 3, 4, 5]);
  assert.ok(after[3].length >= 1);
  for (let i = 0; i < 3; i++) {
    for (const p of o.revoked[i]) assert.ok(after[3].includes(p), `m${i} gave up partition ${p}, which the new member did not take`);
    for (const p of after[i]) assert.ok(o.before[i].includes(p), `m${i} did not gain partitions`);
  }
  assert.is(o.revoked.flat().length, after[3].length, 'only the partitions that moved were revoked');
  console.log(`consumer-protocol (java): a fourth member absorbed in ${o.absorbSeconds} s`);
});

test("Java: a SIGKILLed member's partitions move to the others after the session timeout", async () => {
  if (missing) return void console.log(`skipped: ${missing}`);
  const o = await scenario('kill');
  assert.is(o.victim.length, 2, `the victim held two partitions: ${o.victim}`);
  assert.equal(o.after.flat().sort(), [0, 1, 2, 3, 4, 5]);
  assert.ok(o.movedSeconds >= 3, `moved only after the session timeout (${o.movedSeconds} s)`);
  console.log(`consumer-protocol (java): a killed member's partitions moved after ${o.movedSeconds} s (session timeout 6 s)`);
});

test('Java: a static member that restarts within its session keeps its partitions', async () => {
  if (missing) return void console.log(`skipped: ${missing}`);
  const o = await scenario('static');
  assert.equal(o.after, o.before, 'the restarted static member has the same partitions');
  assert.equal(o.otherRevoked, [], 'the other member lost nothing');
  assert.is(o.other.length, 3);
});

test('Java: a SubscriptionPattern (broker-side regex) picks up a topic created later', async () => {
  if (missing) return void console.log(`skipped: ${missing}`);
  const o = await scenario('regex');
  assert.equal(o.topics, ['cp-j-rx-a', 'cp-j-rx-late']);
  assert.is(o.values, 22);
  console.log(`consumer-protocol (java): a new topic matching the regex was read after ${o.pickedUpSeconds} s`);
});

test.run();
