/**
 * Topic subscriptions by regular expression (ConsumerGroupHeartbeat v1 SubscribedTopicRegex),
 * evaluated on the broker as Kafka does: RE2/J syntax, the whole topic name must match
 * (Matcher.matches), against every topic, internal ones included (Kafka 4.4's
 * refreshRegularExpressions scans all topic names; clients such as franz-go adopt an internal
 * topic the broker assigns them).
 *
 * JavaScript's RegExp stands in for RE2/J. Differences handled here:
 * - RE2 has no lookaround and no backreferences: patterns using them are refused
 *   (INVALID_REGULAR_EXPRESSION), as RE2/J refuses them;
 * - RE2's `(?P<name>...)` named groups become JS `(?<name>...)`;
 * - a leading inline flag group `(?i)`, `(?s)`, `(?m)` (or combinations) becomes a RegExp flag;
 *   inline flags elsewhere in the pattern are refused (JS has none before ES2025).
 * Not handled (documented in docs/gaps.md): RE2's `\C`, `\pN` one-letter classes without braces,
 * `\Q...\E` quoting, and POSIX classes `[[:alpha:]]`.
 */
/** The compiled matcher, or an error message in RE2/J's spirit. */
export function compileTopicRegex(pattern: string): { ok: true; test: (topic: string) => boolean } | { ok: false; error: string } {
  let source = pattern;
  let flags = 'u';
  const lead = /^\(\?([ims]+)\)/.exec(source);
  if (lead) {
    flags += lead[1];
    source = source.slice(lead[0].length);
  }
  if (/\(\?[<]?[=!]/.test(source)) return { ok: false, error: `Invalid regular expression ${pattern}: lookaround is not supported.` };
  if (/(^|[^\\])\\[1-9]/.test(source)) return { ok: false, error: `Invalid regular expression ${pattern}: backreferences are not supported.` };
  if (/\(\?[imsU-]+[:)]/.test(source)) return { ok: false, error: `Invalid regular expression ${pattern}: inline flags are only supported at the start.` };
  source = source.replace(/\(\?P</g, '(?<');
  try {
    const re = new RegExp(`^(?:${source})$`, flags);
    return { ok: true, test: (topic) => re.test(topic) };
  } catch (err) {
    return { ok: false, error: `Invalid regular expression ${pattern}: ${(err as Error).message}` };
  }
}
