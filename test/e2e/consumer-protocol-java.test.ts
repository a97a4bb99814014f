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
import { javaMissing } from '../../tools/kafka/kafka.js';
import { CONSUMER_PROTOCOL_BROKER_CONFIG, javaScenarios } from '../support/consumer-protocol-scenarios.js';
import { scenarioTestsOnSamsa } from './_scenario-tests.js';

scenarioTestsOnSamsa(CONSUMER_PROTOCOL_BROKER_CONFIG, javaScenarios, javaMissing());

test.run();
