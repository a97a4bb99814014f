/** The SASL mechanisms' server sides, the JAAS parser and the principal mapper, without sockets. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ScramServer, scramCredentialFromPassword, saltPassword, scramCredentialFromSaltedPassword } from '../../src/security/sasl/scram.js';
import { saslClient, unsecuredJws } from '../../src/security/sasl/client.js';
import { PlainServer } from '../../src/security/sasl/plain.js';
import { OAuthBearerServer, unsecuredValidatorOptions } from '../../src/security/sasl/oauthbearer.js';
import { SaslAuthenticationError, SaslError } from '../../src/security/sasl/mechanism.js';
import { parseJaasConfig, plainUsers, JaasParseError } from '../../src/security/jaas.js';
import { SslPrincipalMapper, PrincipalMappingError } from '../../src/security/principal.js';

test('SCRAM-SHA-256 matches the RFC 7677 test vector', async () => {
  const salt = Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64');
  const cred = scramCredentialFromSaltedPassword('user', 'SCRAM-SHA-256', salt, saltPassword('SCRAM-SHA-256', 'pencil', salt, 4096), 4096);
  const server = new ScramServer('SCRAM-SHA-256', async () => cred, () => '%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0');
  const first = await server.evaluate(Buffer.from('n,,n=user,r=rOprNGfwEbeRWgbNEkqO'));
  assert.is(first.toString(), 'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096');
  const final = await server.evaluate(Buffer.from('c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ='));
  assert.is(final.toString(), 'v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=');
  assert.ok(server.complete);
  assert.is(server.authorizationId, 'user');
});

test('SCRAM-SHA-512 with our client; wrong proofs, nonces, users and authzids fail', async () => {
  const cred = scramCredentialFromPassword('a,b=c', 'SCRAM-SHA-512', 'pw');
  const lookup = async (u: string) => (u === 'a,b=c' ? cred : null);
  const client = saslClient({ mechanism: 'SCRAM-SHA-512', username: 'a,b=c', password: 'pw' });
  const server = new ScramServer('SCRAM-SHA-512', lookup);
  const t1 = client.initial();
  assert.match(t1.toString(), 'n=a=2Cb=3Dc,');
  const t2 = client.respond(await server.evaluate(t1))!;
  assert.is(client.respond(await server.evaluate(t2)), null);
  assert.ok(server.complete);

  const wrong = saslClient({ mechanism: 'SCRAM-SHA-512', username: 'a,b=c', password: 'nope' });
  const s2 = new ScramServer('SCRAM-SHA-512', lookup);
  const w2 = wrong.respond(await s2.evaluate(wrong.initial()))!;
  await s2.evaluate(w2).then(() => assert.unreachable(), (e) => assert.instance(e, SaslError));

  const s3 = new ScramServer('SCRAM-SHA-512', lookup);
  await s3.evaluate(Buffer.from('n,,n=nobody,r=abc')).then(() => assert.unreachable(), (e) => assert.instance(e, SaslError));
  const s4 = new ScramServer('SCRAM-SHA-512', lookup);
  await s4.evaluate(Buffer.from('n,a=other,n=a=2Cb=3Dc,r=abc')).then(() => assert.unreachable(), (e) => assert.instance(e, SaslAuthenticationError));
  const s5 = new ScramServer('SCRAM-SHA-512', lookup);
  await s5.evaluate(Buffer.from('n,,n=a=2Cb=3Dc,r=abc'));
  await s5.evaluate(Buffer.from('c=biws,r=abcX,p=AAAA')).then(() => assert.unreachable(), (e) => assert.instance(e, SaslError));
  for (const garbage of ['', 'y,,n=u,r=x', 'n,,r=x', 'n,,n=u=ZZ,r=x', '\u0000\u0001']) {
    const s = new ScramServer('SCRAM-SHA-512', lookup);
    await s.evaluate(Buffer.from(garbage)).then(() => assert.unreachable(garbage), (e) => assert.instance(e, SaslError));
  }
});

test('PLAIN: Kafka\'s checks and messages', () => {
  const users = new Map([['alice', 'secret']]);
  const ok = new PlainServer(users);
  ok.evaluate(Buffer.from('\0alice\0secret'));
  assert.is(ok.authorizationId, 'alice');
  const cases: [string, string | null][] = [
    ['\0alice\0bad', 'Authentication failed: Invalid username or password'],
    ['\0bob\0secret', 'Authentication failed: Invalid username or password'],
    ['\0\0secret', 'Authentication failed: username not specified'],
    ['\0alice\0', 'Authentication failed: password not specified'],
    ['bob\0alice\0secret', 'Authentication failed: Client requested an authorization id that is different from username'],
    ['alice-secret', 'Invalid SASL/PLAIN response: expected 3 tokens, got 1'],
  ];
  for (const [token, message] of cases) {
    try {
      new PlainServer(users).evaluate(Buffer.from(token));
      assert.unreachable(token);
    } catch (e) {
      if (message === null) assert.instance(e, SaslError);
      else assert.is((e as Error).message, message);
    }
  }
});

test('OAUTHBEARER unsecured JWS: sub and exp, clock skew, scope, the JSON error challenge then %x01', () => {
  const now = Date.now();
  const opts = unsecuredValidatorOptions(new Map());
  const s = new OAuthBearerServer(opts, () => Date.now());
  const token = unsecuredJws('carol', 60_000);
  s.evaluate(Buffer.from(`n,,\u0001auth=Bearer ${token}\u0001\u0001`));
  assert.ok(s.complete);
  assert.is(s.authorizationId, 'carol');
  assert.ok(Math.abs(s.credentialExpiresAtMs! - (now + 60_000)) < 2000);

  const expired = new OAuthBearerServer(opts, () => now + 120_000);
  const challenge = expired.evaluate(Buffer.from(`n,,\u0001auth=Bearer ${token}\u0001\u0001`));
  assert.is(challenge.toString(), '{"status":"invalid_token"}');
  assert.throws(() => expired.evaluate(Buffer.from([1])), (e: Error) => e instanceof SaslAuthenticationError && e.message === '{"status":"invalid_token"}');

  const scoped = new OAuthBearerServer(unsecuredValidatorOptions(new Map([['unsecuredValidatorRequiredScope', 'write']])), () => Date.now());
  assert.is(scoped.evaluate(Buffer.from(`n,,\u0001auth=Bearer ${token}\u0001\u0001`)).toString(), '{"status":"insufficient_scope", "scope":"write"}');
  const subClaim = new OAuthBearerServer(unsecuredValidatorOptions(new Map([['unsecuredValidatorPrincipalClaimName', 'user']])), () => Date.now());
  subClaim.evaluate(Buffer.from(`n,,\u0001auth=Bearer ${unsecuredJws('x', 60_000, { user: 'dana' })}\u0001\u0001`));
  assert.is(subClaim.authorizationId, 'dana');
  const signed = `${token.slice(0, -1)}.c2ln`;
  assert.is(new OAuthBearerServer(opts, () => now).evaluate(Buffer.from(`n,,\u0001auth=Bearer ${signed.replace('..', '.')}\u0001\u0001`)).toString(), '{"status":"invalid_token"}');
  assert.throws(() => new OAuthBearerServer(opts, () => now).evaluate(Buffer.from('garbage')), (e: Error) => e instanceof SaslError);
  assert.throws(() => new OAuthBearerServer(opts, () => Date.now()).evaluate(Buffer.from(`n,a=zed,\u0001auth=Bearer ${token}\u0001\u0001`)), (e: Error) => e instanceof SaslAuthenticationError);
});

test('JAAS strings: modules, flags, quoted values with escapes, PLAIN users', () => {
  const entries = parseJaasConfig('org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="a\\"b" user_admin="x y" user_bob=plain;');
  assert.is(entries.length, 1);
  assert.is(entries[0]!.flag, 'required');
  assert.is(entries[0]!.options.get('password'), 'a"b');
  assert.equal([...plainUsers(entries)], [['admin', 'x y'], ['bob', 'plain']]);
  assert.is(parseJaasConfig('A required; B optional k=v;').length, 2);
  for (const bad of ['Mod required user_a="x"', 'Mod sometimes;', 'Mod required k;', 'Mod required k="open;']) {
    assert.throws(() => parseJaasConfig(bad), (e: Error) => e instanceof JaasParseError, bad);
  }
});

test('ssl.principal.mapping.rules: DEFAULT, RULE with groups and L/U, commas inside patterns, no match', () => {
  const m = new SslPrincipalMapper('RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L, RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/, DEFAULT');
  assert.is(m.map('CN=Kafka,OU=ServiceUsers,O=Acme'), 'kafka');
  assert.is(m.map('CN=adam,OU=Eng,O=Acme,L=SF,ST=CA,C=US'), 'adam@Eng');
  assert.is(m.map('CN=other'), 'CN=other');
  const strict = new SslPrincipalMapper('RULE:^CN=(.*)$/$1/U');
  assert.is(strict.map('CN=x'), 'X');
  assert.throws(() => strict.map('O=none'), (e: Error) => e instanceof PrincipalMappingError && e.message.startsWith('No rules apply to O=none'));
  assert.throws(() => new SslPrincipalMapper('RULE:^CN=(.*)$'), (e: Error) => e instanceof PrincipalMappingError);
  assert.throws(() => new SslPrincipalMapper('NOPE'), (e: Error) => e instanceof PrincipalMappingError);
  assert.is(new SslPrincipalMapper('RULE:^CN=(.*)\\/x$/$1/').map('CN=a/x'), 'a');
});

test.run();
