/**
 * The bundled CLI (`dist/samsa.js`, what `npm start`, `npx samsa` and the Docker image run) starts
 * a broker that accepts a produce, and stops on SIGTERM with exit status 0. The bundle is ESM with
 * CommonJS dependencies inside: a dependency that reaches for `require` or `__dirname` at load
 * time (grpc-js, etcd3's proto files) broke it once while every test ran the TypeScript sources.
 * `npm ci` builds it (prepare); under CI a missing bundle is a failure.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { KafkaClient } from '../../src/cli/client.js';
import { buildRecordBatch } from '../../src/protocol/records/record.js';
import { freePort } from '../support/net.js';
import { tmpDir } from '../support/tmp.js';
import { ZERO_UUID } from '../../src/protocol/reader.js';

const BUNDLE = join(process.cwd(), 'dist', 'samsa.js');
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

test('node dist/samsa.js start: serves a produce and the Schema Registry\'s three formats (chunks), exits 0 on SIGTERM', async () => {
  if (!existsSync(BUNDLE)) {
    if (IN_CI) throw new Error(`${BUNDLE} is missing: npm ci should have built it`);
    return console.log('bundle: skipped: dist/samsa.js not built (npm run build)');
  }
  const dir = tmpDir('bundle');
  const port = await freePort();
  const httpPort = await freePort();
  let out = '';
  const child = spawn(process.execPath, [BUNDLE, 'start', '--override', `log.dirs=${dir.path}`, '--override', `listeners=PLAINTEXT://127.0.0.1:${port}`,
    '--override', `samsa.http.listeners=http://127.0.0.1:${httpPort}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const deadline = Date.now() + 30_000;
    while (!out.includes('Samsa started')) {
      if (child.exitCode !== null) throw new Error(`the bundle exited ${child.exitCode}:\n${out}`);
      if (Date.now() > deadline) throw new Error(`not started:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const c = await KafkaClient.connect({ bootstrap: `127.0.0.1:${port}` });
    try {
      const created = await c.request(19, { topics: [{ name: 'b', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false });
      assert.is(created.topics[0].errorCode, 0);
      const r = await c.request(0, {
        transactionalId: null, acks: -1, timeoutMs: 5000,
        topicData: [{ name: 'b', topicId: ZERO_UUID, partitionData: [{ index: 0, records: buildRecordBatch({ records: [{ key: null, value: Buffer.from('v') }] }) }] }],
      });
      assert.is(r.responses[0].partitionResponses[0].errorCode, 0);
    } finally {
      c.close();
    }
    // The Schema Registry's formats live in chunks of the bundle (dist/chunks/), loaded on first
    // use; Protobuf's well-known imports come from protobufjs beside the bundle.
    const register = async (subject: string, body: unknown) => {
      const res = await fetch(`http://127.0.0.1:${httpPort}/subjects/${subject}/versions`, { method: 'POST', headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' }, body: JSON.stringify(body) });
      return { status: res.status, json: await res.json() };
    };
    assert.equal(await register('a-value', { schema: '{"type":"record","name":"A","fields":[{"name":"x","type":"int"}]}' }), { status: 200, json: { id: 1 } });
    assert.equal(await register('p-value', { schemaType: 'PROTOBUF', schema: 'syntax = "proto3";\nimport "google/protobuf/timestamp.proto";\nmessage P { google.protobuf.Timestamp at = 1; }\n' }), { status: 200, json: { id: 2 } });
    assert.equal(await register('j-value', { schemaType: 'JSON', schema: '{"type":"object"}' }), { status: 200, json: { id: 3 } });
    child.kill('SIGTERM');
    assert.is(await exited, 0, out);
  } finally {
    child.kill('SIGKILL');
    await dir.cleanup();
  }
});

test.run();
