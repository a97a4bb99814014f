/**
 * The KIP-848 consumer-protocol scenarios of test/e2e/consumer-protocol-*.test.ts against a real
 * Apache Kafka 4.4 (tools/kafka, skipped where it cannot run): the same clients (confluent-kafka
 * 2.x, the Java client 4.4, kafkajs in the mixed group), the same short consumer-group timeouts, the same assertions. What
 * passes here and on Samsa is behaviour the scenarios may rely on.
 * A pass is recorded (compat-tests/lib/kafka-verdicts.ts): while this file, what it imports and
 * the Kafka release are unchanged, the recorded pass stands and Kafka is not started.
 * @samsa-timeout 400
 * @samsa-long (about two minutes: it starts first among compat-tests/)
 */
import { test } from 'uvu';
import type { RunningKafka } from '../tools/kafka/kafka.js';
import { kafkaOrSkip } from '../test/support/kafka.js';
import { CONSUMER_PROTOCOL_BROKER_CONFIG, confluentScenarios, javaScenarios, mixedScenarios } from '../test/support/consumer-protocol-scenarios.js';
import { recordedPass, recordPass, verdictFingerprint } from './lib/kafka-verdicts.js';

const VERDICT = 'consumer-protocol';
const scenarios = [...confluentScenarios, ...javaScenarios, ...mixedScenarios];
const fingerprint = verdictFingerprint('compat-tests/consumer-protocol.test.ts');
const recorded = recordedPass(VERDICT, fingerprint);
let kafka: RunningKafka | null = null;
const passed: string[] = [];

test.before(async () => {
  if (recorded) {
    console.log(`consumer-protocol scenarios: Kafka's pass recorded ${recorded.recordedAt} (compat-tests/kafka-verdicts.json: the inputs are unchanged)`);
    return;
  }
  kafka = await kafkaOrSkip('consumer-protocol scenarios', { overrides: CONSUMER_PROTOCOL_BROKER_CONFIG });
});

test.after(async () => {
  await kafka?.stop();
  if (kafka && passed.length === scenarios.length) recordPass(VERDICT, fingerprint, passed);
});

for (const s of scenarios) {
  test(`Kafka 4.4: ${s.name}`, async () => {
    if (!kafka) return;
    await s.run(kafka.bootstrap, 'kafka');
    passed.push(s.name);
  });
}

test.run();
