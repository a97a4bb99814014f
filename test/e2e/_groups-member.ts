/**
 * A kafkajs group member in its own process, for tests that need a member to die without
 * leaving (SIGKILL). Usage: tsx _groups-member.ts BOOTSTRAP GROUP TOPIC SESSION_TIMEOUT_MS
 * Prints one JSON line per assignment: {"assigned":[partitions]}.
 * Not a test file (no `.test.ts`).
 */
import kafkajs from 'kafkajs';

const { Kafka, logLevel } = kafkajs;
const [bootstrap, groupId, topic, sessionTimeout] = process.argv.slice(2);
const kafka = new Kafka({ clientId: 'silent-member', brokers: [bootstrap], logLevel: logLevel.NOTHING });
const consumer = kafka.consumer({ groupId, sessionTimeout: Number(sessionTimeout), heartbeatInterval: 500, rebalanceTimeout: 10000, maxWaitTimeInMs: 200 });
consumer.on(consumer.events.GROUP_JOIN, (e) => {
  const assigned = (e.payload.memberAssignment[topic] ?? []) as number[];
  process.stdout.write(JSON.stringify({ assigned }) + '\n');
});
await consumer.connect();
await consumer.subscribe({ topic, fromBeginning: true });
await consumer.run({ eachMessage: async () => {} });
