/**
 * The command line's help and argument errors, in process: every command's `--help` (usage,
 * every flag, an example, aligned columns), a mistyped flag answered with the nearest known
 * one in our words, and the help's claim about environment variables held true.
 * test/cli.test.ts runs the same paths through the real process.
 */
import { describe, expect, it } from 'vitest'
import { commands, serveCommand, usageOf } from '../src/cli/command-specs.js'
import { type Command, parseFlags, table, UsageError } from '../src/cli/flags.js'
import { editDistance, nearest } from '../src/cli/nearest.js'
import { envNameOf, serveFlags } from '../src/cli/serve-flags.js'
import { envNames } from '../src/config.js'

const every: Command[] = [serveCommand, ...commands]

/** The lines of a help's option table: from the "Options" title to the next blank line. */
function optionLines(help: string): string[] {
  const lines = help.split('\n')
  const start = lines.findIndex((l) => l.startsWith('Options'))
  const first = lines.findIndex((l, i) => i > start && l.startsWith('  -'))
  const end = lines.indexOf('', first)
  return lines.slice(first, end)
}

/** Where a line's description starts: after the flag and its gap, or the indent of a follow-on line. */
function descriptionColumn(line: string): number {
  if (line.startsWith('  -')) return (/^ {2}\S+(?: \S+)*? {2,}/.exec(line)?.[0] ?? '').length
  return line.length - line.trimStart().length
}

function refusal(args: string[], command: Command): string {
  try {
    parseFlags(args, command)
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError)
    return (error as Error).message
  }
  throw new Error(`${args.join(' ')} was accepted`)
}

describe('every command has a --help with its usage, flags and an example', () => {
  it.each(every.map((c) => [c.name || '(the sandbox)', c] as const))('%s', (_, command) => {
    const help = usageOf(command)
    const name = command.name ? `partner-sandbox ${command.name}` : 'partner-sandbox'
    expect(help.startsWith(`${name}${command.name ? ':' : ' '}`)).toBe(true)
    expect(help).toContain(`Usage:\n  ${name}`)
    expect(help).toMatch(/\nExamples?:\n {2}\S/)
    for (const flag of [...command.flags.map((f) => f.name), 'help'])
      expect(help).toMatch(new RegExp(`^ {2}(-\\w, )?--${flag}\\b`, 'm'))
    expect(help.split('\n').filter((l) => l.length > 100)).toEqual([])
  })

  it.each(every.map((c) => [c.name || '(the sandbox)', c] as const))(
    '%s: every line of the option table starts its description at the same column',
    (_, command) => {
      const lines = optionLines(usageOf(command))
      expect(lines.length).toBeGreaterThan(0)
      const columns = new Set(lines.map(descriptionColumn))
      expect([...columns], lines.join('\n')).toHaveLength(1)
      expect([...columns][0]).toBeGreaterThan(4)
    },
  )

  it('a description on several lines continues at its column', () => {
    expect(
      table([
        ['--a', 'one\ntwo'],
        ['--longer', 'three'],
      ]).split('\n'),
    ).toEqual(['  --a       one', '            two', '  --longer  three'])
  })

  it('each sandbox flag is read from SANDBOX_ and its name in capitals, as the help says', () => {
    expect(usageOf(serveCommand)).toContain('--rate-limit from\nSANDBOX_RATE_LIMIT')
    const withOption = serveFlags.filter((f) => f.key)
    for (const flag of withOption) expect(envNames[envNameOf(flag.name)]).toBe(flag.key)
    expect(envNames.PORT).toBe('port')
    // The name every PostgreSQL tool's user expects, beside the rule's SANDBOX_DATABASE.
    expect(envNames.SANDBOX_DATABASE_URL).toBe('database')
    const named = new Set([
      'PORT',
      'SANDBOX_DATABASE_URL',
      ...withOption.map((f) => envNameOf(f.name)),
    ])
    expect(Object.keys(envNames).filter((env) => !named.has(env))).toEqual([])
  })
})

describe('a mistyped flag or command', () => {
  it('names the unknown flag and the nearest known one, and how to see them all', () => {
    expect(refusal(['--prot', '3000'], serveCommand)).toBe(
      'unknown option --prot; did you mean --port?\nRun partner-sandbox --help for the options.',
    )
    const listen = commands.find((c) => c.name === 'listen') as Command
    expect(refusal(['--forward', 'http://x'], listen)).toBe(
      'unknown option --forward for listen; did you mean --forward-to?\nRun partner-sandbox listen --help for its options.',
    )
    expect(refusal(['--log-levl', 'debug'], serveCommand)).toContain('did you mean --log-level?')
    expect(refusal(['--Port', '1'], serveCommand)).toContain('did you mean --port?')
    const wild = refusal(['--no-such-flag'], serveCommand)
    expect(wild).toMatch(/^unknown option --no-such-flag\nRun partner-sandbox --help/)
    expect(refusal(['-x'], serveCommand)).toMatch(/^unknown option -x\n/)
    // Never Node's own parser text (with its unbalanced quote).
    for (const message of [wild, refusal(['-x'], serveCommand)])
      expect(message).not.toMatch(/To specify a positional|'/)
  })

  it('names the command a flag belongs to when it is given to another', () => {
    const others = [serveCommand, ...commands]
    const message = (args: string[], command: Command) => {
      try {
        parseFlags(args, command, others)
      } catch (error) {
        return (error as Error).message
      }
    }
    expect(message(['--forward-to', 'http://x'], serveCommand)).toMatch(
      /^unknown option --forward-to; it is an option of partner-sandbox listen\n/,
    )
    expect(message(['--url', 'http://x'], serveCommand)).toMatch(
      /; it is an option of partner-sandbox listen and partner-sandbox trigger\n/,
    )
    const trigger = commands.find((c) => c.name === 'trigger') as Command
    expect(message(['--fsync'], trigger)).toMatch(
      /^unknown option --fsync for trigger; it is an option of partner-sandbox itself\n/,
    )
  })

  it('says what a flag needs: a value, no value, or = for a value that begins with -', () => {
    expect(refusal(['--port'], serveCommand)).toMatch(/^--port needs a value: --port N\n/)
    expect(refusal(['--port='], serveCommand)).toMatch(/^--port needs a value: --port N\n/)
    expect(refusal(['--port', '--fsync'], serveCommand)).toMatch(
      /^--port needs a value before --fsync: --port N\n/,
    )
    expect(refusal(['--seed', '-1'], serveCommand)).toMatch(/is written --seed=-1\n/)
    expect(refusal(['--fsync=1'], serveCommand)).toMatch(/^--fsync takes no value/)
  })

  it('reads what it knows: values, switches, short names, positionals, --name=value', () => {
    expect(parseFlags(['-h', '--port=0', '--fsync', 'x', '--seed=-1'], serveCommand)).toEqual({
      values: { help: true, port: '0', fsync: true, seed: '-1' },
      positionals: ['x'],
    })
  })

  it('suggests only what is close: an edit, a swap, or the one name it begins', () => {
    expect(editDistance('prot', 'port')).toBe(1)
    expect(editDistance('kitten', 'sitting')).toBe(3)
    expect(nearest('listne', ['scenarios', 'listen', 'trigger'])).toBe('listen')
    expect(nearest('trig', ['scenarios', 'listen', 'trigger'])).toBe('trigger')
    expect(nearest('serve', ['scenarios', 'listen', 'trigger', 'help'])).toBeUndefined()
    expect(nearest('x', ['port', 'host'])).toBeUndefined()
  })
})
