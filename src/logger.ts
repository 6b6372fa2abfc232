import type { logLevels } from './config.js'

export type LogLevel = (typeof logLevels)[number]
const rank: Record<LogLevel, number> = { silent: 0, error: 1, warn: 2, info: 3, debug: 4 }

export interface Logger {
  error(message: string): void
  warn(message: string): void
  info(message: string): void
  debug(message: string): void
  /** Whether messages of this level are written (to skip building them). */
  enabled(level: LogLevel): boolean
}

/** Plain lines on stderr (stdout stays free for the banner). Callers never pass secrets. */
export function createLogger(
  level: LogLevel,
  write = (line: string) => process.stderr.write(`${line}\n`),
): Logger {
  const at = (wanted: LogLevel) => (message: string) => {
    if (rank[level] >= rank[wanted])
      write(`${new Date().toISOString()} ${wanted.padEnd(5)} ${message}`)
  }
  return {
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    enabled: (wanted) => rank[level] >= rank[wanted],
  }
}
