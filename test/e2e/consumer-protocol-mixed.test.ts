/**
 * A mixed group against Samsa: two kafkajs consumers (the classic protocol, eager) read and
 * commit a topic; then a confluent-kafka 2.x consumer with group.protocol=consumer joins the same
 * group. The group is upgraded online to a consumer group; the kafkajs members rejoin inside it
 * (classic members of a consumer group), give up the partitions the new member takes and keep
 * consuming. Nothing produced is lost, and nothing committed before the upgrade is read again.
 * The scenario (consumer-protocol-scenarios.ts) also runs against Kafka 4.4 in
 * compat-tests/consumer-protocol.test.ts.
 */
import { test } from 'uvu';
import { CONSUMER_PROTOCOL_BROKER_CONFIG, mixedScenarios } from '../support/consumer-protocol-scenarios.js';
import { scenarioTestsOnSamsa } from './_scenario-tests.js';

scenarioTestsOnSamsa(CONSUMER_PROTOCOL_BROKER_CONFIG, mixedScenarios);

test.run();
