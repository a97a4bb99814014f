/**
 * Eligible leader replicas (KIP-966) on three broker processes with etcd, a new cluster (so
 * eligible.leader.replicas.version 1), a topic with replicas [1, 2, 3] and min.insync.replicas 2:
 * - broker 3 stops (SIGTERM, clean): ISR [1, 2], no ELR (the ISR is still at min ISR);
 * - broker 2 stops: ISR [1], ELR [2] and not 3 (it left while the ISR was large enough), seen by
 *   a raw DescribeTopicPartitions, the Java admin (`kafka-topics.sh --describe`: "Elr: 2") and
 *   kafkajs (ISR 1 in Metadata, which has no ELR);
 * - the high watermark rule: under min ISR an acks=1 record is appended but the HW (kafkajs's
 *   fetchTopicOffsets, consumers) stays; acks=all answers NOT_ENOUGH_REPLICAS;
 * - broker 1 stops too: nobody is left; broker 2 (an ELR member) comes back alone and is elected
 *   (ISR [2], ELR [1]);
 * - broker 1 comes back: it truncates, rejoins the ISR, the ELR empties; every record acknowledged
 *   with acks=all is there, the acks=1 record that only broker 1 had is not (it was never below
 *   the HW); acks=all works again;
 * - broker 3 is killed (SIGKILL, no clean-shutdown marker) and 2 stopped: 3 is not eligible, and
 *   after a restart from an unclean shutdown an ELR member leaves the ELR before registering.
 * A second cluster: broker 3 alive but cut off from the leader (out of the ISR, not eligible), 2
 * and then the leader 1 stopped: the partition is leaderless with ISR [], ELR [1, 2] and last known
 * ELR [1] ("Leader: none ... Elr: 1,2 LastKnownElr: 1"); 2 back is elected, 3 rejoins under it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { etcdOrSkip, type EtcdServer } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { run } from '../support/external.js';
import { readKcat } from '../support/clients.js';
import { javaBin, javaMissing, JVM_OPTS, kafkaJars } from '../../tools/kafka/kafka.js';
import type { DescribeTopicPartitionsResponse } from '../../src/protocol/generated/messages/describe-topic-partitions-response.js';

const { Kafka, logLevel } = kafkajs;
const etcd = (await etcdOrSkip('test/system/eligible-leader-replicas')) as EtcdServer;
if (!etcd) process.exit(0);

const TOPIC = 'elr';

interface Elr { leader: number; isr: number[]; elr: number[]; lastKnownElr: number[] }

async function describe(c: TestCluster, id: number): Promise<Elr | null> {
  const client = await c.client(id);
  const r = await client.send(75, 0, { topics: [{ name: TOPIC }], responsePartitionLimit: 100, cursor: null }) as DescribeTopicPartitionsResponse;
  const p = r.topics[0]?.partitions[0];
  return p ? { leader: p.leaderId, isr: p.isrNodes, elr: p.eligibleLeaderReplicas ?? [], lastKnownElr: p.lastKnownElr ?? [] } : null;
}

/** Waits until the partition state is `want` (or one of `want`, for a state that may pass before it is seen). */
async function waitElr(c: TestCluster, id: number, want: Elr | Elr[], what: string): Promise<Elr> {
  const deadline = Date.now() + 30_000;
  const wanted = (Array.isArray(want) ? want : [want]).map((w) => JSON.stringify(w));
  let last: Elr | null = null;
  for (;;) {
    last = await describe(c, id).catch(() => null);
    if (last && wanted.includes(JSON.stringify(last))) return last;
    if (Date.now() > deadline) throw new Error(`${what}: wanted ${wanted.join(' or ')}, last ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** `kafka-topics.sh --describe` of the topic's partition line (the Java admin's DescribeTopicPartitions). */
async function kafkaTopicsDescribe(bootstrap: string): Promise<string> {
  const r = await run(javaBin(), [...JVM_OPTS, '-cp', kafkaJars().classpath, 'org.apache.kafka.tools.TopicCommand', '--bootstrap-server', bootstrap, '--describe', '--topic', TOPIC], { timeoutMs: 60_000 });
  assert.is(r.code, 0, r.stderr);
  return r.stdout.split('\n').find((l) => l.includes('Partition: 0')) ?? r.stdout;
}

test('RF 3, min.insync.replicas 2: ELR as brokers stop, the HW held under min ISR, an ELR member elected with nothing acknowledged lost', async () => {
  const c = await startCluster({ brokers: 3, etcd, config: { 'min.insync.replicas': 2, 'replica.lag.time.max.ms': 3000 } });
  const kafka = (clientId: string, brokers = c.bootstrapList) => new Kafka({
    clientId, brokers, logLevel: logLevel.NOTHING, retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1000 }, requestTimeout: 10_000,
  });
  const only = (id: number) => [`127.0.0.1:${c.broker(id).port}`];
  try {
    const admin = kafka('elr-admin').admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, replicaAssignment: [{ partition: 0, replicas: [1, 2, 3] }] }], waitForLeaders: true });
    await admin.disconnect();
    await waitElr(c, 1, { leader: 1, isr: [1, 2, 3], elr: [], lastKnownElr: [] }, 'all in sync');

    const acked: string[] = [];
    const produce = async (acks: number, values: string[], brokers?: string[]) => {
      const p = kafka(`elr-producer-${acks}`, brokers).producer({ retry: { retries: 0 } });
      await p.connect();
      try {
        await p.send({ topic: TOPIC, acks, messages: values.map((value) => ({ value, partition: 0 })) });
      } finally {
        await p.disconnect();
      }
    };
    const batch = (from: number) => Array.from({ length: 10 }, (_, i) => `v${from + i}`);
    await produce(-1, batch(0));
    acked.push(...batch(0));

    await c.stop(3);
    await waitElr(c, 1, { leader: 1, isr: [1, 2], elr: [], lastKnownElr: [] }, 'broker 3 out, the ISR still at min ISR: no ELR');
    await produce(-1, batch(10), only(1));
    acked.push(...batch(10));

    await c.stop(2);
    await waitElr(c, 1, { leader: 1, isr: [1], elr: [2], lastKnownElr: [] }, 'broker 2 out: the ISR below min ISR, 2 eligible, 3 not');
    if (!javaMissing()) {
      const line = await kafkaTopicsDescribe(only(1)[0]);
      assert.match(line, /Leader: 1\tReplicas: 1,2,3\tIsr: 1\tElr: 2\tLastKnownElr: $/, 'kafka-topics.sh --describe');
    }
    const ka = kafka('elr-admin-2', only(1)).admin();
    await ka.connect();
    const meta = await ka.fetchTopicMetadata({ topics: [TOPIC] });
    assert.equal(meta.topics[0].partitions[0].isr, [1], 'kafkajs: ISR 1 (Metadata has no ELR)');

    // The HW rule: appended with acks=1, but not below the HW while the ISR is below min ISR.
    const hw = async () => (await ka.fetchTopicOffsets(TOPIC))[0].high;
    assert.is(await hw(), '20');
    await produce(1, ['unacked-by-isr'], only(1));
    await new Promise((r) => setTimeout(r, 1000));
    assert.is(await hw(), '20', 'the HW stays at 20 under min ISR');
    let refused = '';
    await produce(-1, ['refused'], only(1)).catch((e: Error & { type?: string; cause?: { type?: string } }) => { refused = `${e.type} ${e.cause?.type} ${e.message}`; });
    assert.match(refused, /NOT_ENOUGH_REPLICAS/, 'acks=all: NOT_ENOUGH_REPLICAS');
    await ka.disconnect();

    // Everybody down; the ELR member 2 comes back alone and leads.
    await c.stop(1);
    await c.start(2);
    await waitElr(c, 2, { leader: 2, isr: [2], elr: [1], lastKnownElr: [] }, 'broker 2 elected from the ELR; 1 (last in the ISR) now eligible');
    if (!javaMissing()) {
      assert.match(await kafkaTopicsDescribe(only(2)[0]), /Leader: 2\tReplicas: 1,2,3\tIsr: 2\tElr: 1\tLastKnownElr: $/);
    }
    // kcat reads without a group (the group coordinator's writes need min ISR too).
    const read = async (bootstrap: string) => (await readKcat(bootstrap, TOPIC, [0])).records.map((r) => Buffer.from(r.value!, 'base64').toString());
    // Samsa restores no checkpointed HW at start-up (a follower's starts at the log start), and an
    // ISR below min ISR cannot move it: the new leader serves what it has once the ISR regrows.
    // 1 comes back: it drops what only it had, rejoins the ISR; at min ISR the ELR empties.
    await c.start(1);
    await waitElr(c, 2, { leader: 2, isr: [1, 2], elr: [], lastKnownElr: [] }, 'broker 1 back in sync');
    assert.equal(await read(only(2)[0]), acked, 'every acks=all record is there, led by the former ELR member');
    await produce(-1, batch(20), only(2));
    acked.push(...batch(20));
    assert.equal(await read(only(1)[0]), acked, 'the acks=1 record only broker 1 had is gone; everything acknowledged is there');

    // An unclean shutdown: 3 back and in sync, then killed; then 2 stops (ISR [1], ELR [2], 3 out).
    await c.start(3);
    await waitElr(c, 2, { leader: 2, isr: [1, 2, 3], elr: [], lastKnownElr: [] }, 'broker 3 back in sync');
    await c.kill(2);
    await waitElr(c, 1, { leader: 1, isr: [1, 3], elr: [], lastKnownElr: [] }, 'broker 2 killed: its session runs out');
    await c.kill(3);
    await waitElr(c, 1, { leader: 1, isr: [1], elr: [3], lastKnownElr: [] }, 'broker 3 killed: eligible until it comes back');
    await c.start(3);
    await waitElr(c, 1, { leader: 1, isr: [1, 3], elr: [], lastKnownElr: [] }, 'back without a clean shutdown: it catches up and rejoins');
    assert.match(c.broker(3).output(), /unclean shutdown, out of .*elr \[3\] → \[\]/, 'it left the ELR before registering');
  } finally {
    await c.cleanup();
  }
});

test('the ISR down to none with a live replica out of it: leaderless, ELR and last known leader shown; an ELR member back leads', async () => {
  const c = await startCluster({ brokers: 3, etcd, peerProxies: true, config: { 'min.insync.replicas': 2, 'replica.lag.time.max.ms': 2000, 'replica.fetch.backoff.ms': 200 } });
  try {
    const admin = new Kafka({ clientId: 'lke-admin', brokers: c.bootstrapList, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, replicaAssignment: [{ partition: 0, replicas: [1, 2, 3] }] }], waitForLeaders: true });
    await admin.disconnect();
    await waitElr(c, 1, { leader: 1, isr: [1, 2, 3], elr: [], lastKnownElr: [] }, 'all in sync');
    // 3 stays alive but cannot fetch from the leader: it leaves the ISR while that is large enough.
    c.peerLink(3, 1).cut();
    await waitElr(c, 1, { leader: 1, isr: [1, 2], elr: [], lastKnownElr: [] }, '3 out of the ISR, not eligible');
    await c.stop(2);
    await waitElr(c, 1, { leader: 1, isr: [1], elr: [2], lastKnownElr: [] }, '2 eligible');
    await c.stop(1);
    await waitElr(c, 3, { leader: -1, isr: [], elr: [1, 2], lastKnownElr: [1] }, 'the ISR empty, 1 and 2 eligible, 1 the last leader; 3 alive but not eligible');
    if (!javaMissing()) {
      assert.match(await kafkaTopicsDescribe(`127.0.0.1:${c.broker(3).port}`), /Leader: none\tReplicas: 1,2,3\tIsr: \tElr: 1,2\tLastKnownElr: 1$/);
    }
    await c.start(2);
    // 3 (alive, its link to 1 only cut) may follow 2 and rejoin before a describe sees ISR [2].
    await waitElr(c, 3, [{ leader: 2, isr: [2], elr: [1], lastKnownElr: [] }, { leader: 2, isr: [2, 3], elr: [], lastKnownElr: [] }], 'the ELR member 2 back: elected');
    // 3 follows 2 (its link to 1 only was cut), catches up and rejoins: at min ISR the ELR empties.
    await waitElr(c, 3, { leader: 2, isr: [2, 3], elr: [], lastKnownElr: [] }, '3 back in sync under 2');
  } finally {
    await c.cleanup();
  }
});

test.after(async () => {
  await etcd.cleanup();
});

test.run();
