/**
 * The share-group scenarios of test/e2e/share-groups-*.test.ts (KIP-932, and KIP-1191's
 * dead-letter topics) against a real Apache Kafka 4.4 (tools/kafka, skipped where it cannot run):
 * the same clients (confluent-kafka 2.16's ShareConsumer, the Java client 4.4's
 * KafkaShareConsumer, kafkajs for the classic group beside them), the same short share-group
 * sessions and lowered lock-duration bound, the same assertions. What passes here and on Samsa is
 * behaviour the scenarios may rely on. The scenarios run at once (each on its own topic and group). Kafka 4.4 serves share groups without a feature flag (the
 * share.version feature is on for a freshly formatted cluster).
 * A pass is recorded (compat-tests/lib/kafka-verdicts.ts): while this file, what it imports and
 * the Kafka release are unchanged, the recorded pass stands and Kafka is not started.
 * @samsa-timeout 400
 */
import { test } from 'uvu';
import type { RunningKafka } from '../tools/kafka/kafka.js';
import { kafkaOrSkip } from '../test/support/kafka.js';
import { SHARE_BROKER_CONFIG, concurrently, confluentScenarios, javaScenarios } from '../test/e2e/share-groups-scenarios.js';
import { recordedPass, recordPass, verdictFingerprint } from './lib/kafka-verdicts.js';

const VERDICT = 'share-groups';
const scenarios = concurrently([...confluentScenarios, ...javaScenarios]);
const fingerprint = verdictFingerprint('compat-tests/share-groups.test.ts');
const recorded = recordedPass(VERDICT, fingerprint);
let kafka: RunningKafka | null = null;
const passed: string[] = [];

test.before(async () => {
  if (recorded) {
    console.log(`share-group scenarios: Kafka's pass recorded ${recorded.recordedAt} (compat-tests/kafka-verdicts.json: the inputs are unchanged)`);
    return;
  }
  // One partition each for __share_group_state and __consumer_offsets (50 by default): quicker
  // to create at the first share group and the first group.
  kafka = await kafkaOrSkip('share-group scenarios', { overrides: { ...SHARE_BROKER_CONFIG, 'share.coordinator.state.topic.num.partitions': '1', 'offsets.topic.num.partitions': '1' } });
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
