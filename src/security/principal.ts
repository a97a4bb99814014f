/**
 * Principals from TLS certificates (Kafka's DefaultKafkaPrincipalBuilder + SslPrincipalMapper).
 *
 * The name is the certificate subject's distinguished name in RFC 2253 form, most specific RDN
 * first (`CN=alice,OU=eng,O=Acme\, Inc,C=US`, as Java's X500Principal.getName() writes it), then
 * mapped by `ssl.principal.mapping.rules`: a comma-separated list of `DEFAULT` (the DN unchanged)
 * and `RULE:pattern/replacement/[L|U]` (the first rule whose pattern matches the whole DN wins;
 * the replacement may use $1.. groups; L / U lower- or upper-cases the result). A DN no rule
 * matches is an error, as in Kafka ("No rules apply to ...").
 */
import { X509Certificate } from 'node:crypto';

export const ANONYMOUS = 'User:ANONYMOUS';

/** A certificate's subject DN in RFC 2253 order. */
export function subjectDn(cert: X509Certificate | Buffer): string {
  const x = cert instanceof X509Certificate ? cert : new X509Certificate(cert);
  // Node lists the RDNs in certificate (ASN.1) order, one per line, already escaped.
  return x.subject.split('\n').filter((s) => s !== '').reverse().join(',');
}

type Rule = { kind: 'default' } | { kind: 'rule'; pattern: RegExp; replacement: string; caseFold: '' | 'L' | 'U'; text: string };

export class PrincipalMappingError extends Error {}

export class SslPrincipalMapper {
  private readonly rules: Rule[];

  constructor(readonly text: string) {
    this.rules = parseRules(text);
  }

  /** The principal name for a DN (without the `User:` prefix). */
  map(dn: string): string {
    for (const r of this.rules) {
      if (r.kind === 'default') return dn;
      r.pattern.lastIndex = 0;
      if (!r.pattern.test(dn)) continue;
      r.pattern.lastIndex = 0;
      let out = dn.replace(r.pattern, r.replacement);
      if (r.caseFold === 'L') out = out.toLowerCase();
      else if (r.caseFold === 'U') out = out.toUpperCase();
      return out;
    }
    throw new PrincipalMappingError(`No rules apply to ${dn}, rules ${this.text}`);
  }
}

/** Reads `RULE:` text up to an unescaped '/'; returns [text, index after the '/']. */
function readUntilSlash(s: string, i: number): [string, number] {
  let out = '';
  while (i < s.length && s[i] !== '/') {
    if (s[i] === '\\' && i + 1 < s.length) {
      // `\/` is a literal slash; other escapes are kept for the regex / replacement.
      if (s[i + 1] === '/') out += '/';
      else out += s.slice(i, i + 2);
      i += 2;
      continue;
    }
    out += s[i];
    i++;
  }
  if (i >= s.length) throw new PrincipalMappingError(`Invalid rule: missing '/' in ssl.principal.mapping.rules near '${s.slice(0, 40)}'`);
  return [out, i + 1];
}

export function parseRules(text: string): Rule[] {
  const rules: Rule[] = [];
  let i = 0;
  const s = text.trim();
  while (i < s.length) {
    while (i < s.length && /[\s,]/.test(s[i]!)) i++;
    if (i >= s.length) break;
    if (s.startsWith('DEFAULT', i)) {
      rules.push({ kind: 'default' });
      i += 7;
      continue;
    }
    if (!s.startsWith('RULE:', i)) throw new PrincipalMappingError(`Invalid rule: ${s.slice(i)}`);
    const start = i;
    i += 5;
    let pattern: string;
    let replacement: string;
    [pattern, i] = readUntilSlash(s, i);
    [replacement, i] = readUntilSlash(s, i);
    let caseFold: '' | 'L' | 'U' = '';
    if (s[i] === 'L' || s[i] === 'U') caseFold = s[i++] as 'L' | 'U';
    if (i < s.length && !/[\s,]/.test(s[i]!)) throw new PrincipalMappingError(`Invalid rule: ${s.slice(start)}`);
    let re: RegExp;
    try {
      re = new RegExp(`^(?:${pattern})$`, 'g');
    } catch (e) {
      throw new PrincipalMappingError(`Invalid rule pattern ${pattern}: ${(e as Error).message}`);
    }
    rules.push({ kind: 'rule', pattern: re, replacement, caseFold, text: s.slice(start, i) });
  }
  if (rules.length === 0) rules.push({ kind: 'default' });
  return rules;
}
