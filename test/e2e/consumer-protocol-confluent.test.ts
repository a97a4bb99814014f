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
import { CONSUMER_PROTOCOL_BROKER_CONFIG, confluentScenarios } from '../support/consumer-protocol-scenarios.js';
import { scenarioTestsOnSamsa } from './_scenario-tests.js';

scenarioTestsOnSamsa(CONSUMER_PROTOCOL_BROKER_CONFIG, confluentScenarios);

test.run();
