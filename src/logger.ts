/**
 * Minimal leveled logger writing to stderr. `log.level`-style control through SAMSA_LOG_LEVEL
 * (error, warn, info, debug); tests and the library API default to 'warn'.
 */
export type LogLevel = 'error' | 'warn' | 'info' | 'debug' | 'silent';

const ORDER: Record<LogLevel, number> = { silent: -1, error: 0, warn: 1, info: 2, debug: 3 };

export interface Logger {
  level: LogLevel;
  error(msg: string, err?: unknown): void;
  warn(msg: string): void;
  info(msg: string): void;
  debug(msg: string): void;
}

export function createLogger(level: LogLevel = (process.env.SAMSA_LOG_LEVEL as LogLevel) ?? 'info', sink: (line: string) => void = (l) => process.stderr.write(l + '\n')): Logger {
  const out = (lvl: LogLevel, msg: string) => {
    if (ORDER[lvl] <= ORDER[logger.level]) sink(`[${new Date().toISOString()}] ${lvl.toUpperCase()} ${msg}`);
  };
  const logger: Logger = {
    level,
    error: (msg, err) => out('error', err ? `${msg}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}` : msg),
    warn: (msg) => out('warn', msg),
    info: (msg) => out('info', msg),
    debug: (msg) => out('debug', msg),
  };
  return logger;
}
