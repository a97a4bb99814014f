/**
 * `samsa <client command> --command-config FILE` with Kafka client properties: SASL_SSL with
 * SCRAM, PLAIN and OAUTHBEARER (unsecured login), SSL with a PKCS12 truststore; wrong settings are
 * refused with Kafka's message.
 */
import { test } from 'uvu';
import { samsaCli } from '../support/samsa-cli.js';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { clientSecurityFromProperties } from '../../src/cli/command-config.js';

const samsa = (args: string[], stdin = '') => samsaCli(args, { stdin, timeoutMs: 30_000 });

let b: RunningBroker;
let dir: string;
const port: Record<string, number> = {};

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'samsa-cmdcfg-'));
  b = await startBroker({
    tls: true, sasl: { scram: { bob: 'bob-secret' }, plain: { alice: 'alice-secret' }, oauthbearer: true },
    config: { listeners: 'SASL_SSL://127.0.0.1:0,SSL://127.0.0.1:0' },
  });
  for (const l of b.broker.listeners) port[l.name] = l.boundPort;
});
test.after(async () => {
  await b.stop();
  rmSync(dir, { recursive: true, force: true });
});


function config(name: string, text: string): string {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
}

test('SASL_SSL with SCRAM-SHA-512: topics create, produce, consume', async () => {
  const f = config('scram.properties', `security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="bob" password="bob-secret";
ssl.truststore.type=PEM
ssl.truststore.location=${b.tls!.caFile}
`);
  const bs = `localhost:${port.SASL_SSL}`;
  const c = await samsa(['topics', 'create', 'cc-t', '--partitions', '1', '--bootstrap', bs, '--command-config', f]);
  assert.is(c.code, 0, c.stderr);
  const p = await samsa(['produce', 'cc-t', '--bootstrap', bs, '--command-config', f], 'one\ntwo\n');
  assert.is(p.code, 0, p.stderr);
  const r = await samsa(['consume', 'cc-t', '--from', 'earliest', '-e', '--bootstrap', bs, '--command-config', f]);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, 'one');
  assert.match(r.stdout, 'two');
});

test('PLAIN, OAUTHBEARER and SSL with a PKCS12 truststore list topics; a wrong password gives Kafka\'s message', async () => {
  const trust = join(dir, 'trust.p12');
  execFileSync('openssl', ['pkcs12', '-export', '-nokeys', '-in', b.tls!.caFile, '-passout', 'pass:tpw', '-out', trust]);
  const cases = [
    [port.SASL_SSL, `security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="alice-secret";\nssl.truststore.location=${b.tls!.caFile}\nssl.truststore.type=PEM\n`],
    [port.SASL_SSL, `security.protocol=SASL_SSL\nsasl.mechanism=OAUTHBEARER\nsasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="carol";\nssl.truststore.location=${b.tls!.caFile}\nssl.truststore.type=PEM\n`],
    [port.SSL, `security.protocol=SSL\nssl.truststore.location=${trust}\nssl.truststore.type=PKCS12\nssl.truststore.password=tpw\n`],
  ] as const;
  for (const [i, [p, text]] of cases.entries()) {
    const r = await samsa(['topics', 'list', '--bootstrap', `localhost:${p}`, '--command-config', config(`c${i}.properties`, text)]);
    assert.is(r.code, 0, `${text}\n${r.stderr}`);
  }
  const bad = await samsa(['topics', 'list', '--bootstrap', `localhost:${port.SASL_SSL}`, '--command-config', config('bad.properties', cases[0][1].replace('alice-secret', 'nope'))]);
  assert.is.not(bad.code, 0);
  assert.match(bad.stderr, 'SASL_AUTHENTICATION_FAILED: Authentication failed: Invalid username or password');
});

test('clientSecurityFromProperties: protocol checks and JAAS parsing', () => {
  assert.equal(clientSecurityFromProperties('security.protocol=PLAINTEXT'), { protocol: 'PLAINTEXT' });
  assert.throws(() => clientSecurityFromProperties('security.protocol=TLS'), /unknown security.protocol/);
  assert.throws(() => clientSecurityFromProperties('security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN'), /sasl.jaas.config/);
  const s = clientSecurityFromProperties('security.protocol=SASL_PLAINTEXT\nsasl.mechanism=scram-sha-256\nsasl.jaas.config=x.ScramLoginModule required username="u" password="p";');
  assert.equal(s.sasl, { mechanism: 'SCRAM-SHA-256', username: 'u', password: 'p' });
  const token = clientSecurityFromProperties('security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=x.ScramLoginModule required username="id" password="hmac" tokenauth="true";');
  assert.equal(token.sasl, { mechanism: 'SCRAM-SHA-512', username: 'id', password: 'hmac', tokenauth: true }, 'a delegation token login');
});

test.run();
