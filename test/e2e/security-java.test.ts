/**
 * The Java client (Apache Kafka 4.4's own tools: kafka-configs, console producer and consumer)
 * over SSL, SASL_PLAINTEXT and SASL_SSL with PLAIN, SCRAM-SHA-256/512 and OAUTHBEARER (the Java
 * unsecured login module). kafka-configs creates the SCRAM user through AlterUserScramCredentials
 * (the Java admin salts the password); the producer then logs in as that user.
 * @samsa-timeout 300
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { javaMissing } from '../../tools/kafka/kafka.js';
import { kafkaTool } from '../support/kafka-tools.js';
import { describeRun } from '../support/clients.js';
import { KafkaClient } from '../../src/cli/client.js';

const missing = javaMissing();
let b: RunningBroker;
let dir: string;
const port: Record<string, number> = {};

test.before(async () => {
  if (missing) return;
  dir = mkdtempSync(join(tmpdir(), 'samsa-java-sec-'));
  b = await startBroker({
    tls: true,
    sasl: { plain: { alice: 'alice-secret' }, scram: { bob: 'bob-secret' }, oauthbearer: true },
    config: {
      listeners: 'SASL_SSL://127.0.0.1:0,SSL://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,PLAINTEXT://127.0.0.1:0',
      'sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";',
      'num.partitions': 1,
      'group.initial.rebalance.delay.ms': 0,
    },
  });
  for (const l of b.broker.listeners) port[l.name] = l.boundPort;
});

test.after(async () => {
  await b?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function props(name: string, lines: Record<string, string>): string {
  const file = join(dir, `${name}.properties`);
  writeFileSync(file, Object.entries(lines).map(([k, v]) => `${k}=${v.replace(/\\/g, '\\\\')}`).join('\n') + '\n');
  return file;
}

function clientProps(protocol: string, mechanism: string | null, jaas: string | null): Record<string, string> {
  const p: Record<string, string> = { 'security.protocol': protocol };
  if (protocol.endsWith('SSL')) Object.assign(p, { 'ssl.truststore.type': 'PEM', 'ssl.truststore.location': b.tls!.caFile });
  if (mechanism) Object.assign(p, { 'sasl.mechanism': mechanism, 'sasl.jaas.config': jaas! });
  return p;
}

const java = (cls: string, args: string[], input?: string) => kafkaTool(cls, args, { timeoutMs: 90_000, ...(input !== undefined ? { input } : {}) });

const scram = (user: string, pw: string) => `org.apache.kafka.common.security.scram.ScramLoginModule required username="${user}" password="${pw}";`;

test('kafka-configs creates a SCRAM-SHA-512 user over SASL_SSL (AlterUserScramCredentials)', async () => {
  if (missing) return void console.log(`skipped: ${missing}`);
  const admin = props('admin', clientProps('SASL_SSL', 'PLAIN', 'org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="alice-secret";'));
  const alter = await java('org.apache.kafka.tools.ConfigCommand', ['--bootstrap-server', `127.0.0.1:${port.SASL_SSL}`, '--command-config', admin,
    '--alter', '--add-config', 'SCRAM-SHA-512=[iterations=8192,password=java-secret]', '--entity-type', 'users', '--entity-name', 'java-user']);
  assert.is(alter.code, 0, describeRun(alter));
  // (kafka-configs --describe also lists client quotas, which this broker may not serve yet.)
  const c = await KafkaClient.connect({ bootstrap: `127.0.0.1:${port.PLAINTEXT}` });
  const d = await c.send(50, 0, { users: [{ name: 'java-user' }] });
  c.close();
  assert.equal(d.results, [{ user: 'java-user', errorCode: 0, errorMessage: '', credentialInfos: [{ mechanism: 2, iterations: 8192 }] }]);
});

const COMBOS: [string, string | null, string | null][] = [
  ['SSL', null, null],
  ['SASL_PLAINTEXT', 'SCRAM-SHA-256', scram('bob', 'bob-secret')],
  ['SASL_SSL', 'PLAIN', 'org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="alice-secret";'],
  ['SASL_SSL', 'SCRAM-SHA-512', scram('java-user', 'java-secret')],
  ['SASL_SSL', 'OAUTHBEARER', 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="carol";'],
];

for (const [protocol, mechanism, jaas] of COMBOS) {
  test(`console producer and consumer over ${protocol}${mechanism ? ` ${mechanism}` : ''}`, async () => {
    if (missing) return void console.log(`skipped: ${missing}`);
    const name = `java-${protocol}-${mechanism ?? 'tls'}`.toLowerCase();
    const file = props(name, clientProps(protocol, mechanism, jaas));
    const bs = `127.0.0.1:${port[protocol]}`;
    const prod = await java('org.apache.kafka.tools.ConsoleProducer', ['--bootstrap-server', bs, '--topic', name, '--command-config', file], 'j1\nj2\n');
    assert.is(prod.code, 0, describeRun(prod));
    const cons = await java('org.apache.kafka.tools.consumer.ConsoleConsumer', ['--bootstrap-server', bs, '--topic', name, '--from-beginning',
      '--max-messages', '2', '--timeout-ms', '30000', '--command-config', file, '--group', `g-${name}`]);
    assert.is(cons.code, 0, describeRun(cons));
    assert.equal(cons.stdout.trim().split('\n'), ['j1', 'j2']);
  });
}

test('a wrong SCRAM password fails the Java producer with Kafka\'s message', async () => {
  if (missing) return void console.log(`skipped: ${missing}`);
  const file = props('java-bad', { ...clientProps('SASL_PLAINTEXT', 'SCRAM-SHA-256', scram('bob', 'wrong')), 'max.block.ms': '5000' });
  const prod = await java('org.apache.kafka.tools.ConsoleProducer', ['--bootstrap-server', `127.0.0.1:${port.SASL_PLAINTEXT}`, '--topic', 'java-bad', '--command-config', file], 'x\n');
  assert.match(prod.stdout + prod.stderr, 'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256');
});

test.run();
