#!/usr/bin/env node
import { banner } from '../src/banner.js'
import { serveCommand, usageOf } from '../src/cli/command-specs.js'
import { parseOrFail, runCommand, unknownCommand } from '../src/cli/commands.js'
import { applyHeapPolicy } from '../src/cli/heap-policy.js'
import { serveFlags } from '../src/cli/serve-flags.js'
import { envNames } from '../src/config.js'
import { ConfigError, DataFileError, ScenarioError, startSandbox } from '../src/index.js'
import { packageVersion } from '../src/package-root.js'
import { watchParent } from '../src/parent-watch.js'
import type { SandboxOptions } from '../src/sandbox-options.js'

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

  const options: Record<string, unknown> = {}
  // Where each option came from, as the person typed it, so an error can name it.
  const typed: Record<string, string> = {}
  for (const [env, key] of Object.entries(envNames)) {
    if (process.env[env] !== undefined && process.env[env] !== '') {
      options[key] = process.env[env]
      typed[key] = `${env}=${process.env[env]}`
    }
  }
  for (const { name, key } of serveFlags) {
    if (key === undefined || values[name] === undefined) continue
    options[key] = values[name]
    typed[key] = values[name] === true ? `--${name}` : `--${name} ${values[name]}`
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
