import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { tmpDir } from '../support/tmp.js';
import { kcat, waitFor } from '../support/external.js';
import { freePort } from '../support/net.js';
import { spawnBroker, type BrokerProcess } from '../support/broker-process.js';

const { Kafka, logLevel } = kafkajs;

function broker(port: number, dir: string): BrokerProcess {
  return spawnBroker({ listeners: `PLAINTEXT://127.0.0.1:${port}`, 'log.dirs': dir }, { SAMSA_LOG_LEVEL: 'info' });
}

test('SIGKILL under load: after a restart every acknowledged record is there exactly once and in order', async () => {
  const dir = tmpDir('samsa-crash');
  const port = await freePort();
  let b = broker(port, dir.path);
  try {
    await waitFor(() => b.output().includes('Samsa started'), { timeoutMs: 20000, description: 'broker start' });
    const kafka = new Kafka({ clientId: 'crash', brokers: [`127.0.0.1:${port}`], logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 1000 });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'crash', numPartitions: 1 }] });
    await admin.disconnect();
    const producer = kafka.producer({ retry: { retries: 0 } });
    await producer.connect();
    const acked: string[] = [];
    let next = 0;
    let killed = false;
    const sending = (async () => {
      for (let round = 0; round < 2000; round++) {
        const values = Array.from({ length: 20 }, () => `r${next++}`);
        try {
          await producer.send({ topic: 'crash', acks: -1, messages: values.map((value) => ({ partition: 0, value })) });
          acked.push(...values);
        } catch {
          if (killed) return;
        }
      }
    })();
    await waitFor(() => acked.length >= 2000, { timeoutMs: 30000, description: 'records acknowledged before the kill' });
    killed = true;
    b.child.kill('SIGKILL');
    await b.exited;
    await sending;
    await producer.disconnect().catch(() => undefined);

    b = broker(port, dir.path);
    await waitFor(() => b.output().includes('Samsa started'), { timeoutMs: 20000, description: 'broker restart' });
    const r = await kcat(['-b', `127.0.0.1:${port}`, '-t', 'crash', '-C', '-e', '-o', 'beginning', '-f', '%o %s\n'], { timeoutMs: 30000 });
    const lines = r.stdout.trim().split('\n').filter((l) => l !== '');
    const stored = lines.map((l) => l.split(' ')[1]);
    const offsets = lines.map((l) => Number(l.split(' ')[0]));
    assert.equal(offsets, offsets.map((_, i) => i), 'offsets are contiguous from 0');
    assert.is(new Set(stored).size, stored.length, 'no record is stored twice');
    assert.equal(stored.slice(0, acked.length), acked, 'every acknowledged record, in order, before anything unacknowledged');
    assert.ok(stored.length >= acked.length);
    const producer2 = new Kafka({ clientId: 'crash2', brokers: [`127.0.0.1:${port}`], logLevel: logLevel.NOTHING }).producer();
    await producer2.connect();
    const res = await producer2.send({ topic: 'crash', acks: -1, messages: [{ partition: 0, value: 'after' }] });
    await producer2.disconnect();
    assert.is(res[0].baseOffset, String(stored.length), 'new appends continue at the next offset');
  } finally {
    b.child.kill('SIGKILL');
    await b.exited;
    dir.cleanup();
  }
});

test.run();
