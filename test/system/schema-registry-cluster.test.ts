/**
 * The Schema Registry on three brokers (@samsa-timeout 240): `_schemas` has three replicas; the
 * leader of its partition serves, and every other broker forwards to it, so a schema registered
 * through any broker is read back through every broker with the same id. A SIGKILL of that leader
 * loses nothing: a new leader loads `_schemas` from its replica, keeps every schema and id, and
 * gives the next schema a new id (never one already given).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { freePort } from '../support/net.js';
import { until } from '../support/until.js';

const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`schema-registry-cluster: etcd is required under CI: ${missing}`);

const CT = 'application/vnd.schemaregistry.v1+json';
let c: TestCluster | null = null;
const httpPorts = new Map<number, number>();

test.before(async () => {
  if (missing) return;
  for (const id of [1, 2, 3]) httpPorts.set(id, await freePort());
  c = await startCluster({
    brokers: 3,
    config: { 'min.insync.replicas': 2, 'default.replication.factor': 3, 'replica.lag.time.max.ms': 3000, 'samsa.schema.registry.topic.replication.factor': 3 },
    brokerConfig: (nodeId) => ({ 'samsa.http.listeners': `http://127.0.0.1:${httpPorts.get(nodeId)}` }),
  });
});

test.after(async () => {
  await c?.cleanup();
});

async function call(nodeId: number, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`http://127.0.0.1:${httpPorts.get(nodeId)}${path}`, {
    method, headers: { 'content-type': CT }, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

const schema = (fields: string[]) => JSON.stringify({ type: 'record', name: 'Event', fields: fields.map((name) => ({ name, type: 'string', default: '' })) });

async function schemasLeader(asked: number): Promise<number> {
  return until('a leader of _schemas-0', 30_000, async () => {
    const m = await c!.metadata(asked, ['_schemas']);
    const leader = m.topics[0]?.partitions[0]?.leaderId ?? -1;
    return leader > 0 ? leader : null;
  });
}

test('registered through any broker, read through every broker; a SIGKILL of the leader keeps every schema and id', async () => {
  if (!c) return console.log('schema-registry-cluster: skipped:', missing);
  // The first request creates _schemas (three replicas); the broker asked may not lead it.
  const first = await until('the first registration', 60_000, async () => {
    const r = await call(2, 'POST', '/subjects/events-value/versions', { schema: schema(['a']) });
    return r.status === 200 ? r.json : null;
  });
  assert.equal(first, { id: 1 });
  const leader = await schemasLeader(1);
  const follower = [1, 2, 3].find((id) => id !== leader)!;
  assert.equal((await call(follower, 'POST', '/subjects/events-value/versions', { schema: schema(['a', 'b']) })).json, { id: 2 });
  for (const id of [1, 2, 3]) {
    assert.equal((await call(id, 'GET', '/subjects/events-value/versions')).json, [1, 2], `broker ${id}`);
    assert.is((await call(id, 'GET', '/schemas/ids/2')).json.schema, schema(['a', 'b']), `broker ${id}`);
  }
  // Refusals come back through the forwarding broker unchanged.
  const bad = await call(follower, 'POST', '/subjects/events-value/versions', { schema: JSON.stringify({ type: 'record', name: 'Event', fields: [{ name: 'x', type: 'int' }] }) });
  assert.is(bad.status, 409);
  assert.is(bad.json.error_code, 409);

  await c.kill(leader);
  const survivors = [1, 2, 3].filter((id) => id !== leader);
  const third = await until('a registration after the leader died', 90_000, async () => {
    const r = await call(survivors[0], 'POST', '/subjects/events-value/versions', { schema: schema(['a', 'b', 'c']) }).catch(() => null);
    return r?.status === 200 ? r.json : null;
  });
  assert.equal(third, { id: 3 });
  for (const id of survivors) {
    assert.equal((await call(id, 'GET', '/subjects/events-value/versions')).json, [1, 2, 3], `broker ${id}`);
    assert.is((await call(id, 'GET', '/schemas/ids/1')).json.schema, schema(['a']), `broker ${id}`);
  }
  await c.start(leader);
  const back = await until('the restarted broker answers', 60_000, async () => {
    const r = await call(leader, 'GET', '/subjects/events-value/versions').catch(() => null);
    return r?.status === 200 ? r.json : null;
  });
  assert.equal(back, [1, 2, 3]);
});

test.run();
