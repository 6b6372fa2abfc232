import { parseArgs } from 'node:util'
import { DEFAULT_PARTNER } from '../store/default-credentials.js'
import { listen } from './listen.js'
import { remoteFrom } from './remote.js'
import { eventList, parseOverrides, trigger } from './trigger.js'

export const commandsHelp = `
Webhook tools (against a running sandbox):
  partner-sandbox listen --forward-to URL [--events a,b] [--port N] [--host H] [--listener-url URL]
      subscribe an endpoint, print its signing secret once, forward each delivery (with its
      signature headers) to URL and print the local app's answer; Ctrl-C removes the endpoint
  partner-sandbox trigger EVENT [--partner KEY] [--override data.object.FIELD=VALUE]…
      emit EVENT for the partner with API key KEY, made from its real state, with chosen
      fields (VALUE is JSON when it parses, else text); prints the ids it made and the event.
      Without EVENT: lists the events
  Both take --url SANDBOX (SANDBOX_URL, http://127.0.0.1:4010), --admin-token (SANDBOX_ADMIN_TOKEN),
  --key/--secret (SANDBOX_PARTNER_KEY/SANDBOX_PARTNER_SECRET, default: the default partner).
`

const common = {
  url: { type: 'string' },
  'admin-token': { type: 'string' },
  key: { type: 'string' },
  secret: { type: 'string' },
} as const
const listenOptions = {
  ...common,
  'forward-to': { type: 'string' },
  events: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'listener-url': { type: 'string' },
} as const
const triggerOptions = {
  ...common,
  partner: { type: 'string' },
  override: { type: 'string', multiple: true },
} as const

/** Runs `listen` or `trigger`; answers false for any other command line. */
export async function runCommand(argv: string[], fail: (message: string, code?: number) => never) {
  const command = argv[0]
  if (command !== 'listen' && command !== 'trigger') return false
  let parsed: {
    values: Record<string, string | undefined> & { override?: string[] }
    positionals: string[]
  }
  try {
    parsed = parseArgs({
      args: argv.slice(1),
      allowPositionals: true,
      options: command === 'listen' ? listenOptions : triggerOptions,
    }) as typeof parsed
  } catch (error) {
    fail(`${(error as Error).message}\nRun partner-sandbox --help.`, 2)
  }
  const { values, positionals } = parsed
  const remote = remoteFrom(values)
  const print = (line: string) => process.stdout.write(`${line}\n`)
  try {
    if (command === 'trigger') {
      if (positionals.length === 0) fail(eventList(), 2)
      if (positionals.length > 1)
        fail(
          `trigger takes one event type, e.g. trigger card.funded (got ${positionals.join(' ')})`,
          2,
        )
      let overrides: Record<string, unknown> = {}
      try {
        overrides = parseOverrides(values.override)
      } catch (error) {
        fail((error as Error).message, 2)
      }
      const key = (values.partner as string | undefined) ?? remote.key ?? DEFAULT_PARTNER.api_key
      print(await trigger(remote, positionals[0] as string, key, overrides))
      return true
    }
    const forwardTo = values['forward-to'] as string | undefined
    if (!forwardTo) fail("listen needs --forward-to URL (your app's webhook route)", 2)
    try {
      new URL(forwardTo)
    } catch {
      fail(`--forward-to ${forwardTo}: must be a URL such as http://localhost:3000/webhooks`, 2)
    }
    const port = Number(values.port ?? 0)
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      fail(`--port ${values.port}: must be a whole number from 0 to 65535`, 2)
    const events = ((values.events as string | undefined) ?? '')
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean)
    const listener = await listen(remote, {
      forwardTo,
      events,
      port,
      host: values.host ?? '127.0.0.1',
      listenerUrl: values['listener-url'] as string | undefined,
      print,
    })
    const stop = async () => {
      await listener.close()
      process.exit(0)
    }
    process.on('SIGINT', () => void stop())
    process.on('SIGTERM', () => void stop())
    return true
  } catch (error) {
    fail((error as Error).message)
  }
}
