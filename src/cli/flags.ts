import { parseArgs } from 'node:util'
import { nearest } from './nearest.js'

/** One flag of a command: what parses it and what its help line says, in one place. */
export interface Flag {
  /** The long name, without `--`. */
  name: string
  type: 'string' | 'boolean'
  short?: string
  /** The value's placeholder in the help (`N`, `URL`); string flags only. */
  arg?: string
  help: string
  /** Shown after the help text as `(default …)`. */
  default?: string
  /** Repeatable: every value is kept, in order (`--override a=1 --override b=2`). */
  multiple?: boolean
}

/** A command's usage, flags and examples: its `--help` and the parsing of its arguments. */
export interface Command {
  /** The words after `partner-sandbox` that run it (`listen`); '' for the sandbox itself. */
  name: string
  summary: string
  /** Synopsis lines, each with an optional description. */
  usage: [string, string][]
  flags: Flag[]
  /** The line above the option table. */
  optionsTitle?: string
  /** What it does, in a few lines under the usage. */
  about?: string
  examples: string[]
}

export const helpFlag: Flag = { name: 'help', type: 'boolean', short: 'h', help: 'show this help' }

/** Every command takes -h/--help; a command may word its own. */
function withHelp(command: Command): Flag[] {
  return command.flags.some((f) => f.name === 'help') ? command.flags : [...command.flags, helpFlag]
}

/** A mistake in the command line: the message names it; the CLI exits 2 with it. */
export class UsageError extends Error {
  override name = 'UsageError'
}

export interface Parsed {
  values: Record<string, string | string[] | boolean | undefined>
  positionals: string[]
}

/** `Run partner-sandbox listen --help for its options.` */
export function helpHint(command: Command): string {
  const name = command.name ? `partner-sandbox ${command.name}` : 'partner-sandbox'
  return `Run ${name} --help for ${command.name ? 'its' : 'the'} options.`
}

/**
 * Parses `args` against the command's flags (and `-h`/`--help`), throwing a UsageError in our
 * words for an unknown flag (with the nearest known one), a missing value or a value given to
 * a switch (or the command whose flag it is, among `others`). Node's own parser messages are written for the program's author, not its user.
 */
export function parseFlags(args: string[], command: Command, others: Command[] = []): Parsed {
  const flags = withHelp(command)
  const options = Object.fromEntries(
    flags.map((f) => [f.name, f.short ? { type: f.type, short: f.short } : { type: f.type }]),
  )
  const { tokens } = parseArgs({
    args,
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  })
  const byName = new Map(flags.map((f) => [f.name, f]))
  const byShort = new Map(flags.filter((f) => f.short).map((f) => [f.short as string, f]))
  const values: Parsed['values'] = {}
  const positionals: string[] = []
  const where = command.name ? ` for ${command.name}` : ''
  const refuse: (message: string) => never = (message) => {
    throw new UsageError(`${message}\n${helpHint(command)}`)
  }
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value)
    if (token.kind !== 'option') continue
    const long = token.rawName.startsWith('--')
    const flag = long ? byName.get(token.name) : byShort.get(token.rawName.slice(1))
    if (!flag) {
      const guess = nearest(token.name, [...byName.keys()])
      // A flag of other commands (`--forward-to` without `listen`): say whose it is.
      const owners = others
        .filter((c) => c !== command && c.flags.some((f) => f.name === token.name))
        .map((c) => (c.name ? `partner-sandbox ${c.name}` : 'partner-sandbox itself'))
      const hint = guess
        ? `; did you mean --${guess}?`
        : owners.length
          ? `; it is an option of ${owners.join(' and ')}`
          : ''
      refuse(`unknown option ${token.rawName}${where}${hint}`)
    }
    const typed = token.rawName
    if (flag.type === 'boolean') {
      if (token.inlineValue) refuse(`${typed} takes no value (give ${typed} alone to turn it on)`)
      values[flag.name] = true
      continue
    }
    const value = token.value
    const example = `${typed} ${flag.arg ?? 'VALUE'}`
    if (value === undefined || value === '') refuse(`${typed} needs a value: ${example}`)
    if (!token.inlineValue && value.startsWith('-') && value.length > 1) {
      const next = value.replace(/^--?/, '').split('=')[0] as string
      if (byName.has(next) || byShort.has(next))
        refuse(`${typed} needs a value before ${value}: ${example}`)
      refuse(`${typed} ${value}: a value that begins with - is written ${typed}=${value}`)
    }
    if (!flag.multiple) {
      values[flag.name] = value
      continue
    }
    const list = values[flag.name]
    values[flag.name] = Array.isArray(list) ? [...list, value] : [value]
  }
  return { values, positionals }
}

/** Rows as two aligned columns: every description starts at the same column. */
export function table(rows: [string, string][], indent = 2, gap = 2): string {
  const width = Math.max(0, ...rows.map(([left]) => left.length))
  const pad = ' '.repeat(indent + width + gap)
  return rows
    .map(([left, right]) => {
      if (!right) return `${' '.repeat(indent)}${left}`
      const [first, ...more] = right.split('\n')
      const head = `${' '.repeat(indent)}${left.padEnd(width)}${' '.repeat(gap)}${first}`
      return [head, ...more.map((line) => `${pad}${line}`)].join('\n')
    })
    .join('\n')
}

function flagRow(flag: Flag): [string, string] {
  const names = `${flag.short ? `-${flag.short}, ` : ''}--${flag.name}`
  const help = flag.default ? `${flag.help} (default ${flag.default})` : flag.help
  return [flag.arg ? `${names} ${flag.arg}` : names, help]
}

/** The command's `--help`: a heading, its usage, its options aligned, and examples. */
export function helpText(command: Command, heading: string): string {
  const flags = withHelp(command)
  return [
    heading,
    '',
    'Usage:',
    table(command.usage),
    '',
    ...(command.about ? [command.about, ''] : []),
    command.optionsTitle ?? 'Options:',
    table(flags.map(flagRow)),
    '',
    command.examples.length === 1 ? 'Example:' : 'Examples:',
    ...command.examples.map((e) => `  ${e}`),
    '',
  ].join('\n')
}
