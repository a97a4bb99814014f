/**
 * MirrorMaker 2 between a real Apache Kafka 4.4 (tools/kafka) and Samsa, both ways at once
 * (compat-tests/frameworks/mirror-maker.ts): Kafka -> Samsa replicates a topic and its group's
 * offsets, Samsa -> Kafka another; records, partitions, configs and translated group offsets
 * checked on each target. Needs both brokers, so Kafka is started every run (no recorded verdict:
 * each leg has Samsa in one of its two roles). It writes the MirrorMaker row of
 * docs/compat-matrix.md's "Frameworks" table (frameworks/matrix.ts).
 * @samsa-timeout 400
 * @samsa-long (1.5-2.5 minutes on a busy 2-core machine)
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunningKafka } from '../tools/kafka/kafka.js';
import { javaMissing } from '../tools/kafka/kafka.js';
import { kafkaOrSkip } from '../test/support/kafka.js';
import { startBroker, type RunningBroker } from '../src/testing/start-broker.js';
import { MM2_BEFORE, MM2_PARTITIONS, mirrorMakerBothWays, type MirrorLeg } from './frameworks/mirror-maker.js';
import { writeFrameworkRows } from './frameworks/matrix.js';
import { MIRROR_MAKER_VERSION } from '../tools/kafka/frameworks.js';

const missing = javaMissing();
let samsa: RunningBroker | null = null;
let kafka: RunningKafka | null = null;
const log = (l: string) => {
  if (process.env.SAMSA_FRAMEWORKS_LOG === '1') console.log(l);
};

test.before(async () => {
  if (missing) {
    console.log(`mirror-maker: skipped: ${missing}`);
    return;
  }
  [samsa, kafka] = await Promise.all([
    startBroker({ port: 0, 'group.initial.rebalance.delay.ms': 0 }),
    kafkaOrSkip('mirror-maker', { overrides: { 'offsets.topic.num.partitions': '1', 'transaction.state.log.num.partitions': '1', 'group.initial.rebalance.delay.ms': '0' } }),
  ]);
});

test.after(async () => {
  await Promise.all([samsa?.stop(), kafka?.stop()]);
});

function checkLeg(leg: MirrorLeg): void {
  const what = (s: string) => `${leg.flow}: ${s}`;
  assert.is(leg.partitions, MM2_PARTITIONS, what(`${leg.remoteTopic} has the source's partitions`));
  assert.is(leg.retentionMs, '86400000', what('retention.ms copied to the remote topic'));
  for (let p = 0; p < MM2_PARTITIONS; p++) {
    assert.equal(leg.remote[p], leg.source[p], what(`partition ${p}: the remote topic holds the source's records in order, with keys, headers and timestamps`));
    const committed = leg.sourceCommitted[p]!;
    const translated = leg.translated[p]!;
    assert.is(committed, MM2_BEFORE / 2, what(`partition ${p}: the source group's offset`));
    // Translation is conservative (KAFKA-14666): an offset between two offset syncs becomes the
    // earlier sync's downstream offset + 1 (with offset.lag.max at its default, 1 here).
    assert.ok(translated >= 1 && translated <= committed, what(`partition ${p}: the group's translated offset ${translated} is in 1..${committed} (the source group's)`));
    const rest = leg.source[p]!.slice(translated).map((r) => r.value);
    assert.equal(leg.resumed[p], rest, what(`partition ${p}: the group resumed on the target from ${translated} reads every record the source group had not consumed`));
  }
  const [source, target] = leg.flow.split('->');
  for (const t of ['heartbeats', `${source}.checkpoints.internal`, `mm2-configs.${source}.internal`, `mm2-offsets.${source}.internal`, `mm2-status.${source}.internal`]) {
    assert.ok(leg.internalTopics.includes(t), what(`${t} on ${target}: ${leg.internalTopics.join(', ')}`));
  }
}

test(`MirrorMaker 2 (${MIRROR_MAKER_VERSION}): Kafka 4.4 -> Samsa and Samsa -> Kafka 4.4, a topic and its group's offsets each way`, async () => {
  if (!samsa || !kafka) return;
  const row = { framework: `MirrorMaker 2 (connect-mirror ${MIRROR_MAKER_VERSION})`, note: `one dedicated MirrorMaker between Kafka 4.4 and Samsa, both flows at once (kafka->samsa, samsa->kafka): each remote topic holds its source's ${MM2_PARTITIONS} partitions of records (keys, headers, timestamps; records sent while it runs too) and retention.ms; each group's offsets (50 of each partition's 110), translated by the checkpoint connector as Kafka translates them (to 1 on both targets: the offset sync before them + 1) and written to the target group (\`sync.group.offsets\`), resume a consumer on the target with nothing lost; heartbeats, checkpoints and its Connect topics on each target. connect-mirror ${MIRROR_MAKER_VERSION}, the newest release the registry serves (4.4.0 is not served)` };
  writeFrameworkRows([{ ...row, samsa: 'fail', kafka: 'fail' }]);
  const o = await mirrorMakerBothWays(kafka.bootstrap, samsa.bootstrap, log);
  for (const leg of o.legs) {
    console.log(`mirror-maker: ${leg.flow}: ${leg.remote.map((r) => r.length).join('+')} records, group offsets ${leg.sourceCommitted.join(',')} translated to ${leg.translated.join(',')}, resumed ${leg.resumed.map((r) => r.length).join('+')}`);
  }
  console.log(`mirror-maker: first records both ways ${o.ms.firstRecords} ms, groups synced ${o.ms.groupsSynced} ms, ${o.ms.total} ms in all`);
  for (const leg of o.legs) checkLeg(leg);
  writeFrameworkRows([{ ...row, samsa: 'pass', kafka: 'pass' }]);
});

test.run();
