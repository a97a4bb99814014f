/**
 * JAAS configuration strings as Kafka's `sasl.jaas.config` holds them:
 *
 *   org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";
 *
 * One or more entries `<LoginModule class> <flag> [key=value ...];`, values bare or double-quoted
 * (backslash escapes inside quotes). Only the options matter to the broker: PLAIN's users
 * (`user_<name>`), OAUTHBEARER's unsecured-validator options.
 */

export interface JaasEntry {
  loginModule: string;
  flag: 'required' | 'requisite' | 'sufficient' | 'optional';
  options: Map<string, string>;
}

const FLAGS = new Set(['required', 'requisite', 'sufficient', 'optional']);

export class JaasParseError extends Error {}

export function parseJaasConfig(text: string): JaasEntry[] {
  const out: JaasEntry[] = [];
  let i = 0;
  const n = text.length;
  const skipSpace = () => {
    while (i < n && /\s/.test(text[i]!)) i++;
  };
  const word = (): string => {
    const start = i;
    while (i < n && /[^\s=;"]/.test(text[i]!)) i++;
    return text.slice(start, i);
  };
  for (;;) {
    skipSpace();
    if (i >= n) break;
    const loginModule = word();
    if (loginModule === '') throw new JaasParseError(`JAAS config entry must start with a login module class name (at character ${i})`);
    skipSpace();
    const flag = word().toLowerCase();
    if (!FLAGS.has(flag)) throw new JaasParseError(`JAAS config entry for ${loginModule} has an invalid control flag '${flag}'`);
    const options = new Map<string, string>();
    for (;;) {
      skipSpace();
      if (i >= n) throw new JaasParseError(`JAAS config entry for ${loginModule} is not terminated with ';'`);
      if (text[i] === ';') {
        i++;
        break;
      }
      const key = word();
      skipSpace();
      if (key === '' || text[i] !== '=') throw new JaasParseError(`JAAS config option of ${loginModule} must be key=value (near character ${i})`);
      i++;
      skipSpace();
      let value = '';
      if (text[i] === '"') {
        i++;
        while (i < n && text[i] !== '"') {
          if (text[i] === '\\' && i + 1 < n) i++;
          value += text[i];
          i++;
        }
        if (i >= n) throw new JaasParseError(`JAAS config option ${key} of ${loginModule} has an unterminated quoted value`);
        i++;
      } else {
        value = word();
      }
      options.set(key, value);
    }
    out.push({ loginModule, flag: flag as JaasEntry['flag'], options });
  }
  return out;
}

/** PLAIN's users: the `user_<name>="<password>"` options of the entries. */
export function plainUsers(entries: readonly JaasEntry[]): Map<string, string> {
  const users = new Map<string, string>();
  for (const e of entries) {
    for (const [k, v] of e.options) if (k.startsWith('user_') && k.length > 5) users.set(k.slice(5), v);
  }
  return users;
}

/** All options of every entry in one map (later entries win). */
export function jaasOptions(entries: readonly JaasEntry[]): Map<string, string> {
  const all = new Map<string, string>();
  for (const e of entries) for (const [k, v] of e.options) all.set(k, v);
  return all;
}
