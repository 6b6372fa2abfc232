import { packageVersion } from '../package-root.js'
import { type Command, type Flag, helpText } from './flags.js'
import { serveFlags } from './serve-flags.js'

/** Where `listen` and `trigger` find the running sandbox and the partner. */
const remoteFlags: Flag[] = [
  {
    name: 'url',
    type: 'string',
    arg: 'URL',
    help: 'the running sandbox: SANDBOX_URL, else http://127.0.0.1:4010',
  },
  {
    name: 'admin-token',
    type: 'string',
    arg: 'TOKEN',
    help: 'its admin token, if it has one: SANDBOX_ADMIN_TOKEN',
  },
  {
    name: 'key',
    type: 'string',
    arg: 'KEY',
    help: "the partner's API key: SANDBOX_PARTNER_KEY, else the default's",
  },
  {
    name: 'secret',
    type: 'string',
    arg: 'SECRET',
    help: "the partner's API secret: SANDBOX_PARTNER_SECRET, else the default's",
  },
]

export const serveCommand: Command = {
  name: '',
  summary: 'an offline, stateful sandbox of the Partner Card Service API',
  usage: [
    ['partner-sandbox [options]', 'start the sandbox'],
    ['partner-sandbox scenarios', 'list the bundled scenarios'],
    ['partner-sandbox listen --forward-to URL', 'forward webhook deliveries to your app'],
    ['partner-sandbox trigger EVENT', "emit a webhook event made from a partner's real state"],
    ['partner-sandbox migrate --database URL', "create or upgrade a database's tables, and exit"],
    [
      'partner-sandbox proxy --upstream URL',
      "check another deployment's traffic against the contract",
    ],
    ['partner-sandbox help COMMAND', "a command's options and examples (or: COMMAND --help)"],
  ],
  optionsTitle:
    'Options (each also read from SANDBOX_ and its name in capitals, e.g. --rate-limit from\nSANDBOX_RATE_LIMIT; --port also from PORT):',
  flags: serveFlags,
  examples: [
    'partner-sandbox --data sandbox.json --seed 42',
    'SANDBOX_PORT=0 SANDBOX_LOG_LEVEL=warn partner-sandbox',
    'partner-sandbox --database postgres://sandbox@127.0.0.1:5432/sandbox',
  ],
}

export const scenariosCommand: Command = {
  name: 'scenarios',
  summary: 'list the bundled scenarios, by name and what each does',
  usage: [['partner-sandbox scenarios', '']],
  flags: [],
  examples: ['partner-sandbox scenarios', 'partner-sandbox --scenario NAME'],
}

export const listenCommand: Command = {
  name: 'listen',
  summary: "forward a running sandbox's webhook deliveries to your app",
  usage: [['partner-sandbox listen --forward-to URL [options]', '']],
  about:
    "Subscribes a webhook endpoint (through the partner API) and prints its signing secret once,\nthen forwards each delivery, with its signature headers, to URL and prints your app's answer\n(the sandbox retries as your app's status says). Ctrl-C removes the endpoint.",
  flags: [
    { name: 'forward-to', type: 'string', arg: 'URL', help: "your app's webhook route (required)" },
    {
      name: 'events',
      type: 'string',
      arg: 'A,B',
      help: 'only these event types',
      default: 'every event',
    },
    { name: 'port', type: 'string', arg: 'N', help: 'port of the local listener', default: 'any' },
    {
      name: 'host',
      type: 'string',
      arg: 'HOST',
      help: 'address of the local listener',
      default: '127.0.0.1',
    },
    {
      name: 'listener-url',
      type: 'string',
      arg: 'URL',
      help: 'the URL the sandbox posts to, when it cannot reach 127.0.0.1\n(a sandbox in Docker: http://host.docker.internal:PORT/webhooks)',
    },
    ...remoteFlags,
  ],
  examples: [
    'partner-sandbox listen --forward-to http://localhost:3000/webhooks',
    'partner-sandbox listen --forward-to http://localhost:3000/webhooks --events card.funded',
  ],
}

export const triggerCommand: Command = {
  name: 'trigger',
  summary: "emit a webhook event made from a partner's real state",
  usage: [['partner-sandbox trigger EVENT [options]', '']],
  about:
    'Makes EVENT from what the partner really has (see POST /_sandbox/events), with the chosen\nfields set, and delivers it to its webhook endpoints; prints the ids of the rows it made and\nthe event. Without EVENT it lists the events.',
  flags: [
    {
      name: 'partner',
      type: 'string',
      arg: 'KEY',
      help: "the partner, by its API key: --key, else the default partner's",
    },
    {
      name: 'override',
      type: 'string',
      arg: 'PATH=VALUE',
      multiple: true,
      help: 'a chosen field of the event, e.g. data.object.amount=12.34 (repeatable;\nVALUE is JSON when it parses, else text; docs/events.md)',
    },
    ...remoteFlags,
  ],
  examples: [
    'partner-sandbox trigger card.funded',
    'partner-sandbox trigger card.funded --override data.object.amount=12.34',
    'partner-sandbox trigger card_transaction.created --url http://127.0.0.1:4010',
  ],
}

export const migrateCommand: Command = {
  name: 'migrate',
  summary: "create or upgrade the sandbox's tables in a PostgreSQL database, and exit",
  usage: [['partner-sandbox migrate [--database URL]', '']],
  about:
    "Runs the migrations this build has and the database lacks, under the schema's lock, and\nprints what it applied: a job to run before replicas start (each replica also migrates at\nstart, so it is never required). Exits 1, saying why in one line, when it cannot.",
  flags: [
    {
      name: 'database',
      type: 'string',
      arg: 'URL',
      help: 'postgres://user:password@host:5432/database, ?schema=NAME for a schema\nother than partner_sandbox; also SANDBOX_DATABASE_URL or SANDBOX_DATABASE',
    },
  ],
  examples: [
    'partner-sandbox migrate --database postgres://sandbox:secret@db:5432/sandbox',
    'SANDBOX_DATABASE_URL=postgres://sandbox:secret@db:5432/sandbox partner-sandbox migrate',
  ],
}

export const helpCommand: Command = {
  name: 'help',
  summary: "print a command's usage, options and examples",
  usage: [
    ['partner-sandbox help [COMMAND]', 'COMMAND: scenarios, listen, trigger, migrate or help'],
  ],
  flags: [],
  examples: ['partner-sandbox help listen'],
}

export const proxyCommand: Command = {
  name: 'proxy',
  summary: "check another deployment's traffic against the sandbox's contract",
  usage: [['partner-sandbox proxy --upstream URL [--record DIR] [options]', '']],
  about:
    "Forwards your app's API traffic, unchanged, to the deployment at URL (on 127.0.0.1) and\nchecks each request and answer against the sandbox's contract (its /openapi.json): each\ndifference (operation, status, field, type, header) is printed and written to the report,\nsecrets redacted. Point your app's upstream at the proxy instead of the deployment.",
  flags: [
    {
      name: 'upstream',
      type: 'string',
      arg: 'URL',
      help: 'the deployment to forward to, on 127.0.0.1 (required)',
    },
    {
      name: 'port',
      type: 'string',
      arg: 'N',
      help: 'port of the proxy, 0 for any',
      default: '4011',
    },
    {
      name: 'report',
      type: 'string',
      arg: 'FILE',
      help: 'the differences, one JSON line each',
      default: 'partner-sandbox-drift.jsonl',
    },
    {
      name: 'record',
      type: 'string',
      arg: 'DIR',
      help: 'also keep every exchange, redacted, as a JSON file here',
    },
  ],
  examples: [
    'partner-sandbox proxy --upstream http://127.0.0.1:4010',
    'partner-sandbox proxy --upstream http://127.0.0.1:8080 --port 0 --record drift/',
  ],
}

export const commands = [
  scenariosCommand,
  listenCommand,
  triggerCommand,
  migrateCommand,
  proxyCommand,
  helpCommand,
]

/** A command's help, headed by its name; the sandbox's own with the version. */
export function usageOf(command: Command): string {
  const heading = command.name
    ? `partner-sandbox ${command.name}: ${command.summary}`
    : `partner-sandbox ${packageVersion}: ${command.summary}`
  return helpText(command, heading)
}
