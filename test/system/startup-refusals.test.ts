/**
 * Bad configuration refused at start-up by a broker process (exit 3, a clear error, data left as
 * it was; issue 11, item 6):
 * - A log dir knows its cluster (meta.properties, as Kafka writes it): a broker writes it on its
 *   first start; pointed at the data of another cluster (another cluster id in etcd) or of another
 *   node, it exits before it loads a log or registers, and not a byte of the data changes. A new,
 *   empty etcd prefix takes the data's cluster id.
 * - etcd unreachable: retries naming the endpoint, exits after samsa.etcd.connect.timeout.ms.
 * - A node.id held by a live broker: DUPLICATE_BROKER_REGISTRATION once the registration retry
 *   (two sessions) is over; the live broker keeps its registration.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { etcdOrSkip, type EtcdServer } from '../support/etcd.js';
import { freePort } from '../support/net.js';
import { tmpDir, type TmpDir } from '../support/tmp.js';
import { KafkaClient } from '../../src/cli/client.js';
import { EtcdMetadataStore } from '../../src/cluster/etcd-metadata-store.js';
import { parseMetaProperties, verifyLogDirs, InconsistentClusterIdError } from '../../src/cluster/meta-properties.js';
import { buildRecordBatch } from '../../src/protocol/records/record.js';
import { ZERO_UUID } from '../../src/protocol/reader.js';

const MAIN = join(process.cwd(), 'src', 'main.ts');
let etcd: EtcdServer | null = null;
let dir: TmpDir;

test.before(async () => {
  etcd = await etcdOrSkip('cluster-id');
  dir = tmpDir('cluster-id');
});

test.after(async () => {
  await etcd?.cleanup();
  await dir?.cleanup();
});

interface Run {
  code: Promise<number | null>;
  out: () => string;
  kill: () => void;
  port: number;
  exited: () => boolean;
}

async function broker(prefix: string, nodeId: number, over: Record<string, string> = {}): Promise<Run> {
  const port = await freePort();
  const settings: Record<string, string> = {
    'node.id': String(nodeId), listeners: `PLAINTEXT://127.0.0.1:${port}`, 'log.dirs': dir.path,
    'samsa.etcd.endpoints': etcd!.clientUrl, 'samsa.etcd.key.prefix': prefix,
    'broker.session.timeout.ms': '2000', 'broker.heartbeat.interval.ms': '400', ...over,
  };
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...Object.entries(settings).flatMap(([k, v]) => ['--override', `${k}=${v}`])], {
    stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, SAMSA_LOG_LEVEL: 'info' },
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  let exited = false;
  const code = new Promise<number | null>((r) => child.once('exit', (c) => {
    exited = true;
    r(c);
  }));
  return { code, out: () => out, kill: () => child.kill('SIGTERM'), port, exited: () => exited };
}

async function started(r: Run): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!r.out().includes('Samsa started')) {
    if (r.exited() || Date.now() > deadline) throw new Error(`no start within 30 s:\n${r.out()}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

/** Every file under the log dir with its size, mtime and content hash. */
function snapshot(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const st = statSync(p);
        out.push(`${p.slice(root.length)} ${st.size} ${st.mtimeMs} ${createHash('sha256').update(readFileSync(p)).digest('hex')}`);
      }
    }
  };
  walk(root);
  return out;
}

test('meta.properties is written; the data of another cluster or another node is refused untouched (exit 3); a new prefix adopts it', async () => {
  if (!etcd) return;
  // Cluster A: a broker writes data and meta.properties, then stops.
  const a = await broker('/cluster-a/', 1);
  await started(a);
  const cl = await KafkaClient.connect({ bootstrap: `127.0.0.1:${a.port}`, clientId: 'cluster-id-test', requestTimeoutMs: 10_000 });
  const ct = await cl.send(19, 7, { topics: [{ name: 'kept', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false });
  assert.is(ct.topics[0].errorCode, 0);
  const pr = await cl.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 'kept', topicId: ZERO_UUID, partitionData: [{ index: 0, records: buildRecordBatch({ records: [{ key: null, value: Buffer.from('v') }] }) }] }] });
  assert.is(pr.responses[0].partitionResponses[0].errorCode, 0);
  cl.close();
  a.kill();
  assert.is(await a.code, 0);
  const meta = parseMetaProperties(readFileSync(join(dir.path, 'meta.properties'), 'utf8'));
  const storeA = await EtcdMetadataStore.connect({ endpoints: [etcd.clientUrl], prefix: '/cluster-a/', connectTimeoutMs: 5000 });
  const idA = (await storeA.readImage()).clusterId!;
  await storeA.close();
  assert.equal({ ...meta, directoryId: meta.directoryId?.length }, { version: 1, clusterId: idA, nodeId: 1, directoryId: 22 });

  // Cluster B exists with its own id: the broker refuses the log dir, writes nothing, registers nothing.
  const storeB = await EtcdMetadataStore.connect({ endpoints: [etcd.clientUrl], prefix: '/cluster-b/', connectTimeoutMs: 5000 });
  const idB = await storeB.ensureClusterId('AAAAAAAAAAAAAAAAAAAAAQ');
  const before = snapshot(dir.path);
  const b = await broker('/cluster-b/', 1);
  assert.is(await b.code, 3, b.out());
  assert.match(b.out(), `samsa: Invalid cluster.id in ${join(dir.path, 'meta.properties')}: the cluster in etcd`);
  assert.match(b.out(), `has id ${idB}, but the log dir belongs to cluster ${idA}`);
  assert.not.match(b.out(), 'Samsa started');
  assert.equal(snapshot(dir.path), before, 'the log dir is untouched');
  assert.is((await storeB.readImage()).brokers.size, 0, 'nothing registered in cluster B');
  await storeB.close();

  // The right cluster, another node.id: refused the same way.
  const wrongNode = await broker('/cluster-a/', 2);
  assert.is(await wrongNode.code, 3, wrongNode.out());
  assert.match(wrongNode.out(), 'Stored node id 1 in');
  assert.match(wrongNode.out(), 'does not match node.id 2');
  assert.equal(snapshot(dir.path), before, 'the log dir is untouched');

  // An empty prefix (etcd's data lost): the cluster takes the data's id.
  const c = await broker('/cluster-c/', 1);
  await started(c);
  assert.match(c.out(), `Samsa started: cluster ${idA}`);
  c.kill();
  assert.is(await c.code, 0);
});

test('etcd unreachable: the broker retries naming the endpoint, then exits 3 after samsa.etcd.connect.timeout.ms', async () => {
  if (!etcd) return;
  const port = await freePort(); // nothing listens there
  const other = tmpDir('refusal-etcd');
  try {
    const t0 = Date.now();
    const r = await broker('/nowhere/', 1, { 'samsa.etcd.endpoints': `http://127.0.0.1:${port}`, 'samsa.etcd.connect.timeout.ms': '1500', 'log.dirs': other.path });
    assert.is(await r.code, 3, r.out());
    const took = Date.now() - t0;
    assert.match(r.out(), `samsa: could not reach etcd at http://127.0.0.1:${port} within 1500 ms (samsa.etcd.connect.timeout.ms)`);
    assert.match(r.out(), 'not reachable (attempt 2');
    assert.ok(took >= 1500, `exited after ${took} ms`);
  } finally {
    await other.cleanup();
  }
});

test('a node.id held by a live broker: the second one exits 3 (DUPLICATE_BROKER_REGISTRATION); the first keeps serving', async () => {
  if (!etcd) return;
  const mine = tmpDir('refusal-dup-first');
  const first = await broker('/cluster-dup/', 7, { 'log.dirs': mine.path });
  const other = tmpDir('refusal-dup');
  try {
    await started(first);
    const second = await broker('/cluster-dup/', 7, { 'log.dirs': other.path });
    assert.is(await second.code, 3, second.out());
    assert.match(second.out(), 'samsa: node.id 7 is already registered by a live broker');
    assert.match(second.out(), `PLAINTEXT://127.0.0.1:${first.port}`);
    const store = await EtcdMetadataStore.connect({ endpoints: [etcd.clientUrl], prefix: '/cluster-dup/', connectTimeoutMs: 5000 });
    const reg = (await store.readImage()).brokers.get(7);
    await store.close();
    assert.equal(reg?.endpoints.map((e) => e.port), [first.port], 'the live broker is still registered');
  } finally {
    first.kill();
    await first.code;
    await other.cleanup();
    await mine.cleanup();
  }
});

test('verifyLogDirs: log dirs of two clusters, or one other than cluster.id, are refused', () => {
  const x = tmpDir('meta-x');
  const y = tmpDir('meta-y');
  try {
    const write = (d: string, id: string) => writeFileSync(join(d, 'meta.properties'), `#\nversion=1\ncluster.id=${id}\nnode.id=4\n`);
    write(x.path, 'AAAAAAAAAAAAAAAAAAAAAQ');
    write(y.path, 'AAAAAAAAAAAAAAAAAAAAAg');
    assert.is(verifyLogDirs([x.path], { nodeId: 4, clusterId: null }), 'AAAAAAAAAAAAAAAAAAAAAQ');
    assert.throws(() => verifyLogDirs([x.path, y.path], { nodeId: 4, clusterId: null }), (e: Error) => e instanceof InconsistentClusterIdError && e.message.includes('but read AAAAAAAAAAAAAAAAAAAAAg'));
    assert.throws(() => verifyLogDirs([x.path], { nodeId: 4, clusterId: 'AAAAAAAAAAAAAAAAAAAAAg' }), (e: Error) => e.message.includes('(cluster.id)'));
    assert.is(verifyLogDirs([join(x.path, 'does-not-exist')], { nodeId: 4, clusterId: null }), null);
  } finally {
    void x.cleanup();
    void y.cleanup();
  }
});

test.run();
