import type { logFormats, logLevels } from './config.js'
import { writeStderrLine } from './log-destination.js'

export type LogLevel = (typeof logLevels)[number]
export type LogFormat = (typeof logFormats)[number]
export type LogFields = Record<string, unknown>
const rank: Record<LogLevel, number> = { silent: 0, error: 1, warn: 2, info: 3, debug: 4 }

export interface Logger {
  error(message: string, fields?: LogFields): void
  warn(message: string, fields?: LogFields): void
  info(message: string, fields?: LogFields): void
  debug(message: string, fields?: LogFields): void
  /** Whether messages of this level are written (to skip building them). */
  enabled(level: LogLevel): boolean
  /** json: one object per line for log collectors; pretty: one readable line per message. */
  readonly format: LogFormat
}

export interface LoggerOptions {
  level: LogLevel
  format?: LogFormat
  /** Colour the level in pretty lines; the CLI turns it on only for a TTY without NO_COLOR. */
  color?: boolean
  write?: (line: string) => void
}

const colors: Record<string, string> = {
  error: '\x1b[31m',
  warn: '\x1b[33m',
  info: '\x1b[32m',
  debug: '\x1b[90m',
}

/**
 * Lines on stderr (stdout stays free for the banner), buffered and written asynchronously
 * (log-destination.ts). A hand-written formatter rather than pino: pino's formatting is this
 * same JSON.stringify of one object per line, and pino-pretty would add a dozen packages to
 * the tarball for the pretty format; its writer, sonic-boom, queues lines as strings, which
 * cost more than they save here (log-destination.ts says why). Callers never pass secrets
 * (bodies go through redact() first).
 */
export function createLogger(
  levelOrOptions: LogLevel | LoggerOptions,
  write: (line: string) => void = writeStderrLine,
): Logger {
  const options = typeof levelOrOptions === 'string' ? { level: levelOrOptions } : levelOrOptions
  const { level, format = 'pretty', color = false } = options
  const out = options.write ?? write
  const at = (wanted: Exclude<LogLevel, 'silent'>) => {
    if (rank[level] < rank[wanted]) return () => {}
    if (format === 'json') {
      return (message: string, fields?: LogFields) =>
        out(
          JSON.stringify({
            time: isoNow(),
            level: wanted,
            msg: message,
            ...fields,
          }),
        )
    }
    const label = color ? `${colors[wanted]}${wanted.padEnd(5)}\x1b[0m` : wanted.padEnd(5)
    return (message: string, fields?: LogFields) =>
      out(`${isoNow()} ${label} ${message}${fields ? prettyFields(fields) : ''}`)
  }
  return {
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    enabled: (wanted) => rank[level] >= rank[wanted],
    format,
  }
}

let lastMs = Number.NaN
let lastIso = ''

/**
 * The time of a line, as ISO 8601: the text is made once per millisecond, since under load a
 * few dozen lines share each one (a Date and a string less per request).
 */
function isoNow(): string {
  const now = Date.now()
  if (now !== lastMs) {
    lastMs = now
    lastIso = new Date(now).toISOString()
  }
  return lastIso
}

/** ` key=value` pairs; objects (debug bodies) as compact JSON. */
function prettyFields(fields: LogFields): string {
  let line = ''
  // for-in over the caller's plain object literal: Object.entries would build an array per pair.
  for (const key in fields) {
    const value = fields[key]
    if (value === undefined) continue
    const text = typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)
    line += ` ${key}=${text}`
  }
  return line
}
