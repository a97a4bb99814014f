/**
 * SASL/PLAIN (RFC 4616) against the users of the listener's JAAS config (`user_<name>="<pw>"`),
 * as Kafka's PlainSaslServer with its default PlainServerCallbackHandler: one message
 * `authzid NUL authcid NUL password`; the authorization id, when given, must equal the user name.
 */
import { timingSafeEqual } from 'node:crypto';
import { SaslAuthenticationError, type SaslServerMechanism } from './mechanism.js';

export class PlainServer implements SaslServerMechanism {
  readonly mechanism = 'PLAIN';
  complete = false;
  authorizationId = '';

  constructor(private readonly users: ReadonlyMap<string, string>) {}

  evaluate(token: Buffer): Buffer {
    const parts = token.toString('utf8').split('\u0000');
    if (parts.length !== 3) throw new SaslAuthenticationError(`Invalid SASL/PLAIN response: expected 3 tokens, got ${parts.length}`);
    const [authzid, username, password] = parts as [string, string, string];
    if (username === '') throw new SaslAuthenticationError('Authentication failed: username not specified');
    if (password === '') throw new SaslAuthenticationError('Authentication failed: password not specified');
    const expected = this.users.get(username);
    if (expected === undefined || !sameSecret(expected, password)) {
      throw new SaslAuthenticationError('Authentication failed: Invalid username or password');
    }
    if (authzid !== '' && authzid !== username) {
      throw new SaslAuthenticationError('Authentication failed: Client requested an authorization id that is different from username');
    }
    this.authorizationId = username;
    this.complete = true;
    return Buffer.alloc(0);
  }
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}
