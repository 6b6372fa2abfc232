#!/usr/bin/env node
import { parseArgs } from 'node:util'
import { banner } from '../src/banner.js'
import { commandsHelp, runCommand } from '../src/cli/commands.js'
import { applyHeapPolicy } from '../src/cli/heap-policy.js'
import { envNames, type SandboxOptions } from '../src/config.js'
import { ConfigError, DataFileError, ScenarioError, startSandbox } from '../src/index.js'
import { packageVersion } from '../src/package-root.js'
import { watchParent } from '../src/parent-watch.js'
import { listBundledScenarios } from '../src/scenarios/loader.js'

const help = `partner-sandbox ${packageVersion}: an offline, stateful sandbox of the Partner Card Service API

Usage:
  partner-sandbox [options]        start the sandbox
  partner-sandbox scenarios        list the bundled scenarios
  partner-sandbox listen|trigger   webhook tools (below)

Options (each also read from the environment variable shown):
  --port N              port to listen on, 0 for any free one    SANDBOX_PORT / PORT   (4010)
  --host HOST           address to bind                          SANDBOX_HOST          (127.0.0.1)
  --data FILE           keep state in this JSON file             SANDBOX_DATA          (memory)
  --fixtures PATH       fixtures file or folder to seed from     SANDBOX_FIXTURES      (bundled)
  --scenario NAME|FILE  scenario for the whole sandbox           SANDBOX_SCENARIO      (default)
  --seed N              make generated ids and values reproducible  SANDBOX_SEED
  --rate-limit N|off    requests/minute for every partner        SANDBOX_RATE_LIMIT    (each partner's own)
  --log-level LEVEL     silent, error, warn, info, debug         SANDBOX_LOG_LEVEL     (info)
  --log-format FORMAT   pretty (coloured on a TTY) or json lines SANDBOX_LOG_FORMAT    (pretty)
  --admin-token TOKEN   require this token on /_sandbox/*        SANDBOX_ADMIN_TOKEN
  --public-url URL      base URL for links the sandbox returns   SANDBOX_PUBLIC_URL
  --session-ttl DUR     session lifetime (30m, 24h, or ms)       SANDBOX_SESSION_TTL   (24h)
  --picture-limit BYTES largest profile picture                  SANDBOX_PICTURE_LIMIT (2097152)
  --body-limit BYTES    largest JSON body (API and control plane)  SANDBOX_BODY_LIMIT  (1048576)
  --snapshot-limit BYTES largest snapshot restore body            SANDBOX_SNAPSHOT_LIMIT (16777216)
  --body-timeout DUR    time to send a body after the headers    SANDBOX_BODY_TIMEOUT  (30s)
  --headers-timeout DUR time to send the headers                 SANDBOX_HEADERS_TIMEOUT (10s)
  --default-inquiry-id ID|off  inquiry_id of a completion without one  SANDBOX_DEFAULT_INQUIRY_ID (inq_sandbox_default)
  --default-product-id ID|off  product_id of a completion without one  SANDBOX_DEFAULT_PRODUCT_ID (prod_sandbox_card)
  --fsync               fsync every write (power-loss safe, slower) SANDBOX_FSYNC (off)
  -h, --help            show this help
  -v, --version         print the version
${commandsHelp}`

function fail(message: string, code = 1): never {
  process.stderr.write(`partner-sandbox: ${message}\n`)
  process.exit(code)
}

async function main() {
  if (await runCommand(process.argv.slice(2), fail)) return
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        data: { type: 'string' },
        fixtures: { type: 'string' },
        scenario: { type: 'string' },
        seed: { type: 'string' },
        'rate-limit': { type: 'string' },
        'log-level': { type: 'string' },
        'log-format': { type: 'string' },
        'admin-token': { type: 'string' },
        'public-url': { type: 'string' },
        'session-ttl': { type: 'string' },
        'picture-limit': { type: 'string' },
        'body-limit': { type: 'string' },
        'snapshot-limit': { type: 'string' },
        'body-timeout': { type: 'string' },
        'headers-timeout': { type: 'string' },
        'default-inquiry-id': { type: 'string' },
        'default-product-id': { type: 'string' },
        fsync: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    })
  } catch (error) {
    fail(`${(error as Error).message}\nRun partner-sandbox --help for the options.`, 2)
  }
  const { values, positionals } = parsed
  if (values.help) return void process.stdout.write(help)
  if (values.version) return void process.stdout.write(`${packageVersion}\n`)
  if (positionals[0] === 'scenarios') {
    for (const s of listBundledScenarios())
      process.stdout.write(`${s.name.padEnd(22)} ${s.description ?? ''}\n`)
    return
  }
  if (positionals.length > 0)
    fail(`unknown command "${positionals[0]}". Run partner-sandbox --help.`, 2)

  const options: Record<string, unknown> = {}
  // Where each option came from, as the person typed it, so an error can name it.
  const typed: Record<string, string> = {}
  for (const [env, key] of Object.entries(envNames)) {
    if (process.env[env] !== undefined && process.env[env] !== '') {
      options[key] = process.env[env]
      typed[key] = `${env}=${process.env[env]}`
    }
  }
  const flags: Record<string, string> = {
    port: 'port',
    host: 'host',
    data: 'data',
    fixtures: 'fixtures',
    scenario: 'scenario',
    seed: 'seed',
    'rate-limit': 'rateLimit',
    'log-level': 'logLevel',
    'log-format': 'logFormat',
    'admin-token': 'adminToken',
    'public-url': 'publicUrl',
    'session-ttl': 'sessionTtl',
    'picture-limit': 'pictureLimit',
    'body-limit': 'bodyLimit',
    'snapshot-limit': 'snapshotLimit',
    'body-timeout': 'bodyTimeout',
    'headers-timeout': 'headersTimeout',
    'default-inquiry-id': 'defaultInquiryId',
    'default-product-id': 'defaultProductId',
    fsync: 'fsync',
  }
  for (const [flag, key] of Object.entries(flags)) {
    if (values[flag] === undefined) continue
    options[key] = values[flag]
    typed[key] = values[flag] === true ? `--${flag}` : `--${flag} ${values[flag]}`
  }

  const started = performance.now()
  let sandbox: Awaited<ReturnType<typeof startSandbox>>
  try {
    sandbox = await startSandbox(options as SandboxOptions)
  } catch (error) {
    if (error instanceof ConfigError && error.problems.length > 0) {
      const lines = error.problems.map((p) => `${typed[p.option] ?? p.option}: ${p.message}`)
      fail(`${lines.join('\n')}\nRun partner-sandbox --help for the options.`, 2)
    }
    if (
      error instanceof DataFileError ||
      error instanceof ScenarioError ||
      error instanceof ConfigError
    ) {
      fail(error.message)
    }
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      fail(
        `port ${options.port ?? 4010} is in use; choose another with --port (0 picks a free one)`,
      )
    }
    throw error
  }
  process.stdout.write(
    banner({
      version: packageVersion,
      readyMs: performance.now() - started,
      url: sandbox.url,
      config: sandbox.deps.config,
      scenario: sandbox.deps.scenarios.default.name,
      credentials: sandbox.defaultCredentials(),
    }),
  )

  // Once serving: loading a large data file keeps V8's own growth (fewer collections).
  applyHeapPolicy()

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    sandbox.deps.logger.info(`${signal}: stopping`)
    // close() also writes out the log lines still queued (log-destination.ts), this one too.
    await sandbox.close()
    process.exit(0)
  }
  process.on('SIGINT', () => void stop('SIGINT'))
  process.on('SIGTERM', () => void stop('SIGTERM'))
  watchParent(() => void stop('parent process exited'))
}

main().catch((error) => fail((error as Error).stack ?? String(error)))
