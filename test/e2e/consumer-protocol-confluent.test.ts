/**
 * The KIP-848 consumer protocol with confluent-kafka-python 2.x (librdkafka 2.12+, from the venv
 * tools/ensure-test-deps.sh builds), group.protocol=consumer, against Samsa: a group of three
 * reads a six-partition topic once; a fourth member takes partitions without the others losing
 * theirs; a SIGKILLed member's partitions move after the session timeout; a static member
 * restarts and keeps its partitions; a regex subscription picks up a topic created later.
 * The scenarios (consumer-protocol-scenarios.ts) also run against Kafka 4.4 in
 * compat-tests/consumer-protocol.test.ts.
 */
import { test } from 'uvu';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { hostPort } from './_clients.js';
import { CONSUMER_PROTOCOL_BROKER_CONFIG, confluentScenarios } from './consumer-protocol-scenarios.js';

let b: RunningBroker;

test.before(async () => {
  b = await startBroker({ port: 0, config: CONSUMER_PROTOCOL_BROKER_CONFIG });
});

test.after(async () => {
  await b?.stop();
});

for (const s of confluentScenarios) test(s.name, () => s.run(hostPort(b.port), 'samsa'));

test.run();
