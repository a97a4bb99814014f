/**
 * The KIP-848 consumer-protocol scenarios of test/e2e/consumer-protocol-*.test.ts against a real
 * Apache Kafka 4.4 (tools/kafka, skipped where it cannot run): the same clients (confluent-kafka
 * 2.x, the Java client 4.4, kafkajs in the mixed group), the same short consumer-group timeouts, the same assertions. What
 * passes here and on Samsa is behaviour the scenarios may rely on.
 * @samsa-timeout 400
 * @samsa-long (about two minutes: it starts first among compat-tests/)
 */
import { test } from 'uvu';
import type { RunningKafka } from '../tools/kafka/kafka.js';
import { kafkaOrSkip } from '../test/support/kafka.js';
import { CONSUMER_PROTOCOL_BROKER_CONFIG, confluentScenarios, javaScenarios, mixedScenarios } from '../test/support/consumer-protocol-scenarios.js';

let kafka: RunningKafka | null = null;

test.before(async () => {
  kafka = await kafkaOrSkip('consumer-protocol scenarios', { overrides: CONSUMER_PROTOCOL_BROKER_CONFIG });
});

test.after(async () => {
  await kafka?.stop();
});

for (const s of [...confluentScenarios, ...javaScenarios, ...mixedScenarios]) {
  test(`Kafka 4.4: ${s.name}`, async () => {
    if (!kafka) return;
    await s.run(kafka.bootstrap, 'kafka');
  });
}

test.run();
