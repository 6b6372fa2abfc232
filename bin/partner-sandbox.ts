#!/usr/bin/env node
import { banner } from '../src/banner.js'
import { serveCommand, usageOf } from '../src/cli/command-specs.js'
import { parseOrFail, runCommand, unknownCommand } from '../src/cli/commands.js'
import { applyHeapPolicy } from '../src/cli/heap-policy.js'
import { serveFlags } from '../src/cli/serve-flags.js'
import { dataAndDatabase, envNames } from '../src/config.js'
import { packageVersion } from '../src/package-root.js'
import { watchParent } from '../src/parent-watch.js'
import type { SandboxOptions } from '../src/sandbox-options.js'
import { maskDatabaseUrl } from '../src/state/database-url.js'

function fail(message: string, code = 1): never {
  process.stderr.write(`partner-sandbox: ${message}\n`)
  process.exit(code)
}

async function main() {
  const argv = process.argv.slice(2)
  if (await runCommand(argv, fail)) return
  const { values, positionals } = parseOrFail(argv, serveCommand, fail)
  if (values.help) return void process.stdout.write(usageOf(serveCommand))
  if (values.version) return void process.stdout.write(`${packageVersion}\n`)
  if (positionals[0] !== undefined) unknownCommand(positionals[0], fail)
  // The sandbox itself is loaded only to serve: `trigger`, `listen` and `migrate` (above) talk
  // to one, and start in a third of the time without it.
  const { ConfigError, DatabaseError, DataFileError, ScenarioError, startSandbox } = await import(
    '../src/index.js'
  )

  const options: Record<string, unknown> = {}
  // Where each option came from, as the person typed it, so an error can name it.
  const typed: Record<string, string> = {}
  // The database URL's password stays out of every message.
  const shown = (key: string, value: string) =>
    key === 'database' ? maskDatabaseUrl(value) : value
  for (const [env, key] of Object.entries(envNames)) {
    const value = process.env[env]
    if (value !== undefined && value !== '') {
      options[key] = value
      typed[key] = `${env}=${shown(key, value)}`
    }
  }
  for (const { name, key } of serveFlags) {
    const value = values[name]
    if (key === undefined || value === undefined) continue
    options[key] = value
    typed[key] = value === true ? `--${name}` : `--${name} ${shown(key, String(value))}`
  }

  const started = performance.now()
  let sandbox: Awaited<ReturnType<typeof startSandbox>>
  try {
    sandbox = await startSandbox(options as SandboxOptions)
  } catch (error) {
    if (error instanceof ConfigError && error.problems.length > 0) {
      const lines = error.problems.map((p) =>
        p.message === dataAndDatabase
          ? `${typed.data} and ${typed.database}: state lives in a data file or in a database; give one of them`
          : `${typed[p.option] ?? p.option}: ${p.message}`,
      )
      fail(`${lines.join('\n')}\nRun partner-sandbox --help for the options.`, 2)
    }
    if (
      error instanceof DataFileError ||
      error instanceof ScenarioError ||
      error instanceof ConfigError ||
      error instanceof DatabaseError
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
      config: sandbox.services.config,
      scenario: sandbox.services.scenarios.default.name,
      credentials: sandbox.defaultCredentials(),
    }),
  )

  // Once serving: loading a large data file keeps V8's own growth (fewer collections).
  applyHeapPolicy()

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    sandbox.services.logger.info(`${signal}: stopping`)
    // close() also writes out the log lines still queued (log-destination.ts), this one too.
    await sandbox.close()
    process.exit(0)
  }
  process.on('SIGINT', () => void stop('SIGINT'))
  process.on('SIGTERM', () => void stop('SIGTERM'))
  watchParent(() => void stop('parent process exited'))
}

main().catch((error) => fail((error as Error).stack ?? String(error)))
