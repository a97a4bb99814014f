/**
 * The server.properties examples (those with `listeners=`) of docs/security.md's "Security: TLS and
 * SASL" section load and start a broker (with the file paths pointed at generated certificates).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { allHandlers } from '../../src/broker/handlers/index.js';
import { startBrokerHttp } from '../../src/http/server.js';
import { Broker } from '../../src/broker/broker.js';
import { createLogger } from '../../src/logger.js';
import { MemFs } from '../../src/storage/fs.js';
import { createTestCa, issueServerCertificate } from '../../src/testing/certificates.js';

const readme = readFileSync(join(process.cwd(), 'docs', 'security.md'), 'utf8');
const start = readme.indexOf('## Security: TLS and SASL');
const section = readme.slice(start, readme.indexOf('\n## ', start + 5));
// The broker examples (with their listeners); the section also shows a client's properties.
const blocks = [...section.matchAll(/```properties\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((b) => /^listeners=/m.test(b));

test('the section has an example per protocol', () => {
  assert.is(blocks.length, 4);
  for (const p of ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL']) assert.ok(blocks.some((b) => new RegExp(`\\b${p}\\b`).test(b)), p);
});

test('every example starts a broker', async () => {
  const ca = createTestCa();
  const server = issueServerCertificate(ca, 'readme');
  try {
    for (const [i, block] of blocks.entries()) {
      const text = block
        .replace(/\/etc\/samsa\/broker\.pem/g, server.pemFile)
        .replace(/\/etc\/samsa\/ca\.pem/g, ca.certFile)
        .replace(/:(909\d)/g, ':0');
      const file = join(ca.dir, `example-${i}.properties`);
      writeFileSync(file, `${text}\nlog.dirs=/readme-${i}\n`);
      const config = loadConfig({ argv: ['--config', file], env: {}, cwd: ca.dir });
      const broker = await Broker.start({ config, logger: createLogger('error'), fs: new MemFs(), handlers: allHandlers, http: startBrokerHttp });
      assert.ok(broker.listeners.length >= 1, block);
      await broker.stop();
    }
  } finally {
    rmSync(ca.dir, { recursive: true, force: true });
  }
});

test.run();
