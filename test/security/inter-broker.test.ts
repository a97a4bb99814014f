/**
 * Brokers talk to each other over a secured inter-broker listener: two brokers (one process,
 * one etcd) whose INTERNAL listener is SASL_SSL with PLAIN (sasl.mechanism.inter.broker.protocol)
 * and a shared CA; a topic with replication factor 2 created on one is replicated to the other
 * (the follower fetches through TLS + SASL) and acks=all produces succeed with both in the ISR.
 * @samsa-timeout 120
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { createTestCa, issueServerCertificate, type TestCa } from '../../src/testing/certificates.js';
import { etcdOrSkip, type EtcdServer } from '../support/etcd.js';

const { Kafka, logLevel } = kafkajs;
let etcd: EtcdServer | null = null;
let ca: TestCa;
const brokers: RunningBroker[] = [];

test.before(async () => {
  etcd = await etcdOrSkip('inter-broker security');
  if (!etcd) return;
  ca = createTestCa();
  const server = issueServerCertificate(ca, 'brokers');
  const prefix = `/samsa-interbroker-${Date.now()}/`;
  for (const nodeId of [1, 2]) {
    brokers.push(await startBroker({
      config: {
        'node.id': nodeId,
        'samsa.etcd.endpoints': etcd.clientUrl,
        'samsa.etcd.key.prefix': prefix,
        'broker.session.timeout.ms': 2000,
        'broker.heartbeat.interval.ms': 400,
        listeners: 'CLIENT://127.0.0.1:0,INTERNAL://127.0.0.1:0',
        'listener.security.protocol.map': 'CLIENT:PLAINTEXT,INTERNAL:SASL_SSL',
        'inter.broker.listener.name': 'INTERNAL',
        'sasl.mechanism.inter.broker.protocol': 'PLAIN',
        'listener.name.internal.sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256',
        'listener.name.internal.plain.sasl.jaas.config':
          'org.apache.kafka.common.security.plain.PlainLoginModule required username="broker" password="broker-secret" user_broker="broker-secret";',
        'ssl.keystore.type': 'PEM', 'ssl.keystore.location': server.pemFile,
        'ssl.truststore.type': 'PEM', 'ssl.truststore.location': ca.certFile,
        'offsets.topic.replication.factor': 1,
      },
    }));
  }
});

test.after(async () => {
  for (const b of brokers.reverse()) await b.stop();
  await etcd?.cleanup();
  if (ca) rmSync(ca.dir, { recursive: true, force: true });
});

test('a replicated topic over a SASL_SSL inter-broker listener: both replicas in sync, acks=all works', async () => {
  if (!etcd) return;
  const clientPort = (b: RunningBroker) => b.broker.listeners.find((l) => l.name === 'CLIENT')!.boundPort;
  const kafka = new Kafka({ clientId: 'ib', brokers: [`127.0.0.1:${clientPort(brokers[0]!)}`], logLevel: logLevel.NOTHING, retry: { retries: 8 } });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'ib-rf2', numPartitions: 2, replicationFactor: 2 }], waitForLeaders: true });
  const producer = kafka.producer();
  await producer.connect();
  for (let i = 0; i < 5; i++) {
    const r = await producer.send({ topic: 'ib-rf2', acks: -1, messages: [{ key: `k${i}`, value: `v${i}` }] });
    assert.is(r[0]!.errorCode, 0);
  }
  await producer.disconnect();
  // Both brokers hold both partitions, in sync.
  let md = await admin.fetchTopicMetadata({ topics: ['ib-rf2'] });
  for (let i = 0; i < 50 && md.topics[0]!.partitions.some((p) => p.isr.length < 2); i++) {
    await new Promise((r) => setTimeout(r, 200));
    md = await admin.fetchTopicMetadata({ topics: ['ib-rf2'] });
  }
  for (const p of md.topics[0]!.partitions) assert.equal([...p.isr].sort(), [1, 2], JSON.stringify(p));
  await admin.disconnect();
  // Both copies hold the five records.
  for (const b of brokers) {
    let total = 0;
    for (const p of [0, 1]) {
      const log = b.broker.logs.getLog('ib-rf2', p);
      assert.ok(log, `broker ${b.broker.nodeId} has ib-rf2-${p}`);
      total += Number(log!.logEndOffset);
    }
    assert.is(total, 5, `broker ${b.broker.nodeId}`);
  }
});

test('SCRAM credentials live in etcd: created through one broker, a login on the other', async () => {
  if (!etcd) return;
  const { KafkaClient } = await import('../../src/cli/client.js');
  const { saltPassword } = await import('../../src/security/sasl/scram.js');
  const { randomBytes } = await import('node:crypto');
  const admin = await KafkaClient.connect({ bootstrap: `127.0.0.1:${brokers[0]!.broker.listeners.find((l) => l.name === 'CLIENT')!.boundPort}` });
  const salt = randomBytes(16);
  const r = await admin.send(51, 0, { deletions: [], upsertions: [{ name: 'etcd-user', mechanism: 1, iterations: 4096, salt, saltedPassword: saltPassword('SCRAM-SHA-256', 'etcd-pw', salt, 4096) }] });
  assert.is(r.results[0]!.errorCode, 0);
  admin.close();
  const internal = brokers[1]!.broker.listeners.find((l) => l.name === 'INTERNAL')!.boundPort;
  const c = await KafkaClient.connect({
    bootstrap: `localhost:${internal}`,
    security: { protocol: 'SASL_SSL', tls: { ca: ca.cert }, sasl: { mechanism: 'SCRAM-SHA-256', username: 'etcd-user', password: 'etcd-pw' } },
  });
  const d = await c.send(50, 0, { users: null });
  assert.equal(d.results.map((x) => x.user), ['etcd-user']);
  c.close();
});

test.run();
