/**
 * Share groups (KIP-932) with the Java client of Apache Kafka 4.4 (KafkaShareConsumer, explicit
 * acknowledgement) against Samsa, through share-groups-java/ShareScenario.java (one JVM runs every
 * scenario; the SIGKILLed consumer is a second one): three consumers share one partition, each
 * record processed once; a SIGKILLed consumer's records come back to the others when its
 * connection closes, those of a consumer that stopped polling after the lock duration; RELEASE
 * redelivers with delivery count 2; a record at the delivery limit is archived (and
 * dead-lettered with the KIP-1191 headers when the group has a dead-letter topic); a classic
 * KafkaConsumer group reads beside a share group. Skipped without java. The scenarios
 * (share-groups-scenarios.ts) also run against Kafka 4.4 in compat-tests/share-groups.test.ts.
 * @samsa-timeout 300
 */
import { test } from 'uvu';
import { javaMissing } from '../../tools/kafka/kafka.js';
import { SHARE_BROKER_CONFIG, javaScenarios } from './share-groups-scenarios.js';
import { scenarioTestsOnSamsa } from './_scenario-tests.js';

scenarioTestsOnSamsa(SHARE_BROKER_CONFIG, javaScenarios, javaMissing());

test.run();
