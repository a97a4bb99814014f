/**
 * Minimal leveled logger writing to stderr. `log.level`-style control through SAMSA_LOG_LEVEL
 * (error, warn, info, debug); tests and the library API default to 'warn'.
 *
 * Two formats: 'text' (`[time] LEVEL message k=v ...`) and 'json' (`samsa.log.format=json`, or
 * SAMSA_LOG_FORMAT=json): one JSON object per line with `time`, `level`, `logger`, `message`,
 * the call's fields and, for errors, `error` and `stack`. A logger made by `namedLogger(log,
 * 'kafka.request.logger')` shares its parent's sink, level and format under another name.
 */
export type LogLevel = 'error' | 'warn' | 'info' | 'debug' | 'silent';
export type LogFormat = 'text' | 'json';
export type LogFields = Readonly<Record<string, unknown>>;

const ORDER: Record<LogLevel, number> = { silent: -1, error: 0, warn: 1, info: 2, debug: 3 };

export interface Logger {
  level: LogLevel;
  error(msg: string, err?: unknown, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  debug(msg: string, fields?: LogFields): void;
}

/** What loggers made here share (a child's level and format follow its parent's). */
interface LoggerCore {
  level: LogLevel;
  format: LogFormat;
  sink: (line: string) => void;
}

const CORE = Symbol('samsa.logger.core');

interface CoreLogger extends Logger {
  [CORE]: LoggerCore;
  readonly name: string;
}

function textValue(v: unknown): string {
  if (typeof v === 'string') return /[\s"=]/.test(v) || v === '' ? JSON.stringify(v) : v;
  if (typeof v === 'bigint') return v.toString();
  if (v === undefined) return 'undefined';
  return JSON.stringify(v) ?? String(v);
}

function jsonSafe(_key: string, v: unknown): unknown {
  return typeof v === 'bigint' ? v.toString() : v;
}

/** Field names the JSON format itself uses; a call's field of the same name is prefixed with `field.`. */
const RESERVED = new Set(['time', 'level', 'logger', 'message', 'error', 'stack']);

function render(core: LoggerCore, name: string, lvl: LogLevel, msg: string, err: unknown, fields: LogFields | undefined): string {
  const time = new Date().toISOString();
  if (core.format === 'json') {
    const o: Record<string, unknown> = { time, level: lvl, logger: name, message: msg };
    if (fields) for (const [k, v] of Object.entries(fields)) if (v !== undefined) o[RESERVED.has(k) ? `field.${k}` : k] = v;
    if (err !== undefined) {
      o.error = err instanceof Error ? err.message : String(err);
      if (err instanceof Error && err.stack) o.stack = err.stack;
    }
    return JSON.stringify(o, jsonSafe);
  }
  let line = `[${time}] ${lvl.toUpperCase()} ${msg}`;
  if (err !== undefined) line += `: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`;
  if (fields) for (const [k, v] of Object.entries(fields)) if (v !== undefined) line += ` ${k}=${textValue(v)}`;
  return line;
}

function makeLogger(core: LoggerCore, name: string): CoreLogger {
  const out = (lvl: LogLevel, msg: string, err: unknown, fields: LogFields | undefined) => {
    if (ORDER[lvl] <= ORDER[logger.level]) core.sink(render(core, name, lvl, msg, err, fields));
  };
  const logger: CoreLogger = {
    [CORE]: core,
    name,
    get level() { return core.level; },
    set level(l: LogLevel) { core.level = l; },
    error: (msg, err, fields) => out('error', msg, err, fields),
    warn: (msg, fields) => out('warn', msg, undefined, fields),
    info: (msg, fields) => out('info', msg, undefined, fields),
    debug: (msg, fields) => out('debug', msg, undefined, fields),
  };
  return logger;
}

export function createLogger(
  level: LogLevel = (process.env.SAMSA_LOG_LEVEL as LogLevel) ?? 'info',
  sink: (line: string) => void = (l) => process.stderr.write(l + '\n'),
  opts: { format?: LogFormat; name?: string } = {},
): Logger {
  const format = opts.format ?? (process.env.SAMSA_LOG_FORMAT === 'json' ? 'json' : 'text');
  return makeLogger({ level, format, sink }, opts.name ?? 'samsa');
}

/** Switches a logger made by createLogger (and every logger named from it) to `format`; others are left alone. */
export function setLogFormat(logger: Logger, format: LogFormat): void {
  const core = (logger as Partial<CoreLogger>)[CORE];
  if (core) core.format = format;
}

/**
 * The same output under another logger name (the JSON `logger` field; e.g. kafka.request.logger).
 * A logger not made by createLogger is returned as it is.
 */
export function namedLogger(logger: Logger, name: string): Logger {
  const core = (logger as Partial<CoreLogger>)[CORE];
  return core ? makeLogger(core, name) : logger;
}
