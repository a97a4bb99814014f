/**
 * The bytes Samsa writes into __share_group_state, read by Kafka 4.4's own
 * ShareCoordinatorRecordSerde (java/DecodeShareRecords.java): every ShareSnapshot, ShareUpdate and
 * tombstone decodes to the fields Samsa meant and re-encodes to the same bytes.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../../src/clock.js';
import { createLogger } from '../../../src/logger.js';
import { MemoryOffsetsTopic } from '../../../src/coordinator/group/group-coordinator.js';
import { ShareCoordinator } from '../../../src/coordinator/share-state/share-coordinator.js';
import { CoordinatorPersister } from '../../../src/coordinator/share-state/coordinator-persister.js';
import { LocalStateChannel } from '../../../src/coordinator/share-state/state-channel.js';
import { DeliveryState } from '../../../src/coordinator/share/persister.js';
import { JVM_OPTS, javaBin, javaMissing, kafkaJars } from '../../../tools/kafka/kafka.js';
import { javaProgram } from '../../../tools/kafka/java-classes.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const TOPIC_ID = 'q6hWjGXhT1SJ2bNzGPGYdA';

test("Kafka 4.4's ShareCoordinatorRecordSerde decodes Samsa's records and re-encodes the same bytes", async () => {
  const missing = javaMissing();
  if (missing) return void console.log(`skipped: ${missing}`);
  const topic = new MemoryOffsetsTopic();
  const c = new ShareCoordinator({ clock: new ManualClock(1_700_000_000_000), logger: createLogger('silent'), topic, numPartitions: 1, snapshotUpdateRecordsPerSnapshot: 2, topics: () => 4 });
  const persister = new CoordinatorPersister(new LocalStateChannel(() => c), 1000);
  const key = { groupId: 'grp:with:colons', topicId: TOPIC_ID, partition: 3 };
  await persister.write(key, { stateEpoch: 2, leaderEpoch: 7, startOffset: 100, stateBatches: [{ firstOffset: 100, lastOffset: 149, deliveryState: DeliveryState.ACKNOWLEDGED, deliveryCount: 1 }] });
  await persister.read(key, 8);
  await persister.write(key, { leaderEpoch: 8, startOffset: 120, deliveryCompleteCount: 30, stateBatches: [{ firstOffset: 150, lastOffset: 150, deliveryState: DeliveryState.ARCHIVED, deliveryCount: 5 }, { firstOffset: 151, lastOffset: 160, deliveryState: DeliveryState.AVAILABLE, deliveryCount: 2 }] });
  await persister.delete([key]);
  await c.shutdown();
  const records = topic.log(0).records;
  assert.is(records.length, 5, 'initialise, write, leader-epoch update, snapshot, tombstone');
  const args = records.map((r) => `${r.key.toString('hex')}:${r.value ? r.value.toString('hex') : ''}`);
  const { classpath } = kafkaJars();
  const prog = await javaProgram(path.join(HERE, 'java', 'DecodeShareRecords.java'), classpath);
  const run = spawnSync(javaBin(), [...JVM_OPTS, '-cp', prog.classpath, prog.main, ...args], { encoding: 'utf8', timeout: 120_000 });
  assert.is(run.status, 0, run.stderr);
  const lines = run.stdout.trim().split('\n');
  assert.is(lines.length, 5, run.stdout);
  for (const l of lines) assert.ok(l.endsWith('same=true'), `Kafka re-encodes the same bytes: ${l}`);
  const keyText = `groupId='grp:with:colons', topicId=${TOPIC_ID}, partition=3`;
  assert.ok(lines[0].startsWith(`key=ShareSnapshotKey(${keyText}) value=ShareSnapshotValue(snapshotEpoch=0, stateEpoch=2, leaderEpoch=0, startOffset=100, deliveryCompleteCount=0, createTimestamp=1700000000000, writeTimestamp=1700000000000, stateBatches=[])`), lines[0]);
  assert.ok(lines[1].startsWith(`key=ShareUpdateKey(${keyText}) value=ShareUpdateValue(snapshotEpoch=0, leaderEpoch=0, startOffset=100, deliveryCompleteCount=0, stateBatches=[StateBatch(firstOffset=100, lastOffset=149, deliveryState=2, deliveryCount=1)])`), lines[1]);
  assert.ok(lines[2].startsWith(`key=ShareUpdateKey(${keyText}) value=ShareUpdateValue(snapshotEpoch=0, leaderEpoch=8, startOffset=100,`), lines[2]);
  assert.ok(lines[3].startsWith(`key=ShareSnapshotKey(${keyText}) value=ShareSnapshotValue(snapshotEpoch=1, stateEpoch=2, leaderEpoch=8, startOffset=120, deliveryCompleteCount=30,`), lines[3]);
  assert.ok(lines[3].includes('stateBatches=[StateBatch(firstOffset=120, lastOffset=149, deliveryState=2, deliveryCount=1), StateBatch(firstOffset=150, lastOffset=150, deliveryState=4, deliveryCount=5), StateBatch(firstOffset=151, lastOffset=160, deliveryState=0, deliveryCount=2)]'), lines[3]);
  assert.ok(lines[4].startsWith(`key=ShareSnapshotKey(${keyText}) value=null`), lines[4]);
});

test.run();
