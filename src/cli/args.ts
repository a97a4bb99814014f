/** A small argument parser: positionals, `--flag value`, `--flag=value`, short aliases, repeated flags. */

export class UsageError extends Error {}

export interface FlagSpec {
  /** Takes a value (else boolean). */
  value?: boolean;
  /** May be given several times (values collected). */
  repeat?: boolean;
  alias?: string;
}

export interface Parsed {
  positionals: string[];
  flags: Map<string, string[]>;
}

export function parseArgs(argv: readonly string[], spec: Record<string, FlagSpec>): Parsed {
  const byAlias = new Map<string, string>();
  for (const [name, s] of Object.entries(spec)) if (s.alias) byAlias.set(s.alias, name);
  const positionals: string[] = [];
  const flags = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!a.startsWith('-') || a === '-' || /^-\d/.test(a)) {
      positionals.push(a);
      continue;
    }
    let name: string;
    let inline: string | undefined;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      name = eq > 0 ? a.slice(2, eq) : a.slice(2);
      inline = eq > 0 ? a.slice(eq + 1) : undefined;
    } else {
      const alias = a.slice(1, 2);
      const full = byAlias.get(alias);
      if (!full) throw new UsageError(`unknown option '${a}'`);
      name = full;
      inline = a.length > 2 ? a.slice(2) : undefined;
    }
    const s = spec[name];
    if (!s) throw new UsageError(`unknown option '--${name}'${suggest(name, Object.keys(spec))}`);
    let value = 'true';
    if (s.value) {
      if (inline !== undefined) value = inline;
      else if (i + 1 < argv.length) value = argv[++i]!;
      else throw new UsageError(`option '--${name}' needs a value`);
    } else if (inline !== undefined) {
      throw new UsageError(`option '--${name}' takes no value`);
    }
    const list = flags.get(name) ?? [];
    if (list.length > 0 && !s.repeat) throw new UsageError(`option '--${name}' given twice`);
    list.push(value);
    flags.set(name, list);
  }
  return { positionals, flags };
}

function suggest(name: string, names: string[]): string {
  const hit = names.find((n) => n.startsWith(name) || name.startsWith(n));
  return hit ? ` (did you mean '--${hit}'?)` : '';
}

export function flag(p: Parsed, name: string): string | undefined {
  return p.flags.get(name)?.[0];
}

export function flags(p: Parsed, name: string): string[] {
  return p.flags.get(name) ?? [];
}

export function bool(p: Parsed, name: string): boolean {
  return p.flags.has(name);
}

export function intFlag(p: Parsed, name: string, def?: number): number | undefined {
  const v = flag(p, name);
  if (v === undefined) return def;
  if (!/^-?\d+$/.test(v)) throw new UsageError(`option '--${name}' needs an integer, not '${v}'`);
  return Number(v);
}

/** `key=value` pairs (for --config and --header). */
export function keyValue(s: string, what: string): [string, string] {
  const eq = s.indexOf('=');
  if (eq <= 0) throw new UsageError(`${what} must look like key=value, not '${s}'`);
  return [s.slice(0, eq), s.slice(eq + 1)];
}
