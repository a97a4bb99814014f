/** Java .properties files, the command line (`--config`, `--override`) and KAFKA_* variables. */
import { ConfigError } from '../errors.js';

// ---------------------------------------------------------------------------------------------
// Properties files and arguments

export interface PropertyLine {
  key: string;
  value: string;
  /** 1-based line number where the entry starts. */
  line: number;
}

/**
 * Parses Java .properties text: `#` / `!` comment lines, `key=value`, `key: value` or
 * `key value`, surrounding whitespace trimmed, a trailing odd backslash continues the logical line
 * (the next line's leading whitespace is dropped), and the escapes \t \n \r \f \uXXXX and `\x` → x.
 */
export function parseProperties(text: string): PropertyLine[] {
  const lines = text.split(/\r\n|\r|\n/);
  const out: PropertyLine[] = [];
  for (let i = 0; i < lines.length; i++) {
    const startLine = i + 1;
    const first = lines[i]!.replace(/^[ \t\f]+/, '');
    if (first === '' || first.startsWith('#') || first.startsWith('!')) continue;
    // Join continuation lines.
    let logical = '';
    let cur = first;
    for (;;) {
      const m = /(\\+)$/.exec(cur);
      if (m && m[1]!.length % 2 === 1) {
        logical += cur.slice(0, -1);
        i++;
        if (i >= lines.length) break;
        cur = lines[i]!.replace(/^[ \t\f]+/, '');
      } else {
        logical += cur;
        break;
      }
    }
    // Split key and value at the first unescaped '=', ':' or whitespace.
    let k = 0;
    let keyRaw = '';
    while (k < logical.length) {
      const c = logical[k]!;
      if (c === '\\' && k + 1 < logical.length) {
        keyRaw += logical.slice(k, k + 2);
        k += 2;
        continue;
      }
      if (c === '=' || c === ':' || c === ' ' || c === '\t' || c === '\f') break;
      keyRaw += c;
      k++;
    }
    let rest = logical.slice(k).replace(/^[ \t\f]+/, '');
    if (rest.startsWith('=') || rest.startsWith(':')) rest = rest.slice(1).replace(/^[ \t\f]+/, '');
    out.push({ key: unescapeProperty(keyRaw), value: unescapeProperty(rest).trim(), line: startLine });
  }
  return out;
}

function unescapeProperty(s: string): string {
  return s.replace(/\\(u[0-9A-Fa-f]{4}|.)/g, (_, e: string) => {
    if (e.length === 5) return String.fromCharCode(parseInt(e.slice(1), 16));
    switch (e) {
      case 't': return '\t';
      case 'n': return '\n';
      case 'r': return '\r';
      case 'f': return '\f';
      default: return e;
    }
  });
}

export interface ConfigArgs {
  configFile: string | null;
  overrides: Array<{ key: string; value: string }>;
}

/**
 * Parses the broker's own command-line arguments: `--config FILE` (or `--config=FILE`, or one
 * positional FILE as in kafka-server-start.sh) and repeatable `--override key=value` (or
 * `--override=key=value`). Anything else is a ConfigError.
 */
export function parseConfigArgs(argv: readonly string[]): ConfigArgs {
  let configFile: string | null = null;
  const overrides: Array<{ key: string; value: string }> = [];
  const setFile = (f: string) => {
    if (configFile !== null) throw new ConfigError(`more than one config file given ('${configFile}' and '${f}')`);
    if (f === '') throw new ConfigError('--config needs a file name');
    configFile = f;
  };
  const addOverride = (kv: string) => {
    const eq = kv.indexOf('=');
    if (eq <= 0) throw new ConfigError(`--override expects key=value, got '${kv}'`);
    overrides.push({ key: kv.slice(0, eq).trim(), value: kv.slice(eq + 1) });
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--config' || a === '--override') {
      const next = argv[i + 1];
      if (next === undefined) throw new ConfigError(`${a} needs a value`);
      i++;
      if (a === '--config') setFile(next); else addOverride(next);
    } else if (a.startsWith('--config=')) {
      setFile(a.slice('--config='.length));
    } else if (a.startsWith('--override=')) {
      addOverride(a.slice('--override='.length));
    } else if (!a.startsWith('-')) {
      setFile(a);
    } else {
      throw new ConfigError(`unknown argument '${a}' (expected --config FILE or --override key=value)`);
    }
  }
  return { configFile, overrides };
}

/** Environment variables of Kafka's launcher scripts and docker image that are not settings. */
export const LAUNCHER_ENV_VARS: ReadonlySet<string> = new Set([
  'KAFKA_HEAP_OPTS', 'KAFKA_OPTS', 'KAFKA_JVM_PERFORMANCE_OPTS', 'KAFKA_LOG4J_OPTS', 'KAFKA_LOG4J_CMD_OPTS',
  'KAFKA_GC_LOG_OPTS', 'KAFKA_JMX_OPTS', 'KAFKA_JMX_HOSTNAME', 'KAFKA_JMX_PORT', 'KAFKA_DEBUG', 'KAFKA_HOME',
  'KAFKA_VERSION', 'KAFKA_LOG4J_LOGGERS', 'KAFKA_LOG4J_ROOT_LOGLEVEL', 'KAFKA_TOOLS_LOG4J_LOGLEVEL',
  'KAFKA_CLASSPATH', 'KAFKA_JAVA_OPTS',
]);

/**
 * Maps an apache/kafka-image environment variable name to a setting name: strip `KAFKA_`,
 * lower-case, `___` → `-`, `__` → `_`, `_` → `.`. Returns null for non-KAFKA_ names and launcher
 * variables.
 */
export function envVarToSetting(varName: string): string | null {
  if (!varName.startsWith('KAFKA_') || LAUNCHER_ENV_VARS.has(varName)) return null;
  const rest = varName.slice('KAFKA_'.length);
  if (rest === '') return null;
  return rest.toLowerCase().replace(/___|__|_/g, (m) => (m === '___' ? '-' : m === '__' ? '_' : '.'));
}

