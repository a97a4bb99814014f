/**
 * The KIP-848 consumer protocol with the Java client of Apache Kafka 4.4 (group.protocol=consumer)
 * against Samsa, through consumer-protocol-java/Scenario.java: a group of three then a fourth
 * member (only moved partitions revoked); a SIGKILLed member's partitions move after the session
 * timeout; a static member restarts and keeps its partitions; a SubscriptionPattern (broker-side
 * regex) picks up a topic created later. Skipped without java. The scenarios
 * (consumer-protocol-scenarios.ts) also run against Kafka 4.4 in compat-tests/consumer-protocol.test.ts.
 * @samsa-timeout 300
 */
import { test } from 'uvu';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { javaMissing } from '../../tools/kafka/kafka.js';
import { hostPort } from './_clients.js';
import { CONSUMER_PROTOCOL_BROKER_CONFIG, javaScenarios } from './consumer-protocol-scenarios.js';

const missing = javaMissing();
let b: RunningBroker;

test.before(async () => {
  if (missing) return;
  b = await startBroker({ port: 0, config: CONSUMER_PROTOCOL_BROKER_CONFIG });
});

test.after(async () => {
  await b?.stop();
});

for (const s of javaScenarios) {
  test(s.name, async () => {
    if (missing) return void console.log(`skipped: ${missing}`);
    await s.run(hostPort(b.port), 'samsa');
  });
}

test.run();
