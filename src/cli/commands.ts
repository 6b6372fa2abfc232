import { listBundledScenarios } from '../scenarios/loader.js'
import { DEFAULT_PARTNER } from '../store/default-credentials.js'
import { remoteSelf, selfReason } from '../webhooks/self-target.js'
import {
  commands,
  listenCommand,
  migrateCommand,
  proxyCommand,
  scenariosCommand,
  serveCommand,
  triggerCommand,
  usageOf,
} from './command-specs.js'
import { type Command, helpHint, parseFlags, UsageError } from './flags.js'
import { listen } from './listen.js'
import { runMigrate } from './migrate.js'
import { nearest } from './nearest.js'
import { runProxy } from './proxy.js'
import { remoteFrom } from './remote.js'
import { eventList, parseOverrides, trigger } from './trigger.js'

type Fail = (message: string, code?: number) => never

/** Parses a command's arguments; a mistake exits 2 with our message and the way to --help. */
export function parseOrFail(args: string[], command: Command, fail: Fail) {
  try {
    return parseFlags(args, command, [serveCommand, ...commands])
  } catch (error) {
    if (error instanceof UsageError) fail(error.message, 2)
    throw error
  }
}

/** `unknown command "listne"; did you mean listen?` for a word that is no command. */
export function unknownCommand(word: string, fail: Fail): never {
  const guess = nearest(
    word,
    commands.map((c) => c.name),
  )
  fail(
    `unknown command "${word}"${guess ? `; did you mean ${guess}?` : ''}\n${helpHint(serveCommand)}`,
    2,
  )
}

/**
 * Runs `scenarios`, `help`, `listen`, `trigger` or `migrate`; answers false for any other
 * command line (the sandbox itself).
 */
export async function runCommand(argv: string[], fail: Fail) {
  const command = commands.find((c) => c.name === argv[0])
  if (!command) return false
  const { values, positionals } = parseOrFail(argv.slice(1), command, fail)
  const print = (line: string) => process.stdout.write(`${line}\n`)
  if (values.help) {
    process.stdout.write(usageOf(command))
    return true
  }
  if (command.name === 'help') {
    const [word, ...rest] = positionals
    if (rest.length > 0) fail(`help takes one command\n${helpHint(command)}`, 2)
    const about = word === undefined ? serveCommand : commands.find((c) => c.name === word)
    if (!about) unknownCommand(word as string, fail)
    process.stdout.write(usageOf(about))
    return true
  }
  if (command === scenariosCommand) {
    if (positionals.length > 0)
      fail(`scenarios takes no arguments\n${helpHint(scenariosCommand)}`, 2)
    for (const s of listBundledScenarios()) print(`${s.name.padEnd(22)} ${s.description ?? ''}`)
    return true
  }
  if (command === migrateCommand) {
    await runMigrate({ values, positionals }, fail, print)
    return true
  }
  if (command === proxyCommand) {
    if (positionals.length > 0) fail(`proxy takes no arguments\n${helpHint(proxyCommand)}`, 2)
    await runProxy(values, fail, print)
    return true
  }
  const remote = remoteFrom(values)
  try {
    if (command === triggerCommand) {
      if (positionals.length === 0) fail(eventList(), 2)
      if (positionals.length > 1)
        fail(
          `trigger takes one event type, e.g. trigger card.funded (got ${positionals.join(' ')})`,
          2,
        )
      let overrides: Record<string, unknown> = {}
      try {
        overrides = parseOverrides(values.override as string[] | undefined)
      } catch (error) {
        fail((error as Error).message, 2)
      }
      const key = (values.partner as string | undefined) ?? remote.key ?? DEFAULT_PARTNER.api_key
      print(await trigger(remote, positionals[0] as string, key, overrides))
      return true
    }
    const forwardTo = values['forward-to'] as string | undefined
    if (!forwardTo)
      fail(
        `listen needs --forward-to URL (your app's webhook route)\n${helpHint(listenCommand)}`,
        2,
      )
    try {
      new URL(forwardTo)
    } catch {
      fail(`--forward-to ${forwardTo}: must be a URL such as http://localhost:3000/webhooks`, 2)
    }
    // Forwarding the sandbox's deliveries back into it would let them drive its own API.
    const self = selfReason(forwardTo, remoteSelf(remote.url))
    if (self) fail(`--forward-to ${forwardTo}: ${self}`, 2)
    const port = Number(values.port ?? 0)
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      fail(`--port ${values.port}: must be a whole number from 0 to 65535`, 2)
    const events = ((values.events as string | undefined) ?? '')
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean)
    const started = listen(remote, {
      forwardTo,
      events,
      port,
      host: (values.host as string | undefined) ?? '127.0.0.1',
      listenerUrl: values['listener-url'] as string | undefined,
      print,
    })
    // Handlers first: a Ctrl-C the moment "Ready!" shows (or before) still removes the endpoint.
    let stopping = false
    const stop = async () => {
      // A second Ctrl-C while the endpoint is being removed: leave at once, saying so.
      if (stopping) fail('stopped before the webhook endpoint was removed', 130)
      stopping = true
      const listener = await started.catch(() => undefined)
      // Not made: the failure is reported where it is awaited below.
      if (listener) process.exit((await listener.close()) ? 0 : 1)
    }
    process.on('SIGINT', () => void stop())
    process.on('SIGTERM', () => void stop())
    await started
    return true
  } catch (error) {
    fail((error as Error).message)
  }
}
