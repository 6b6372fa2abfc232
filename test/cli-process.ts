import { type ChildProcess, spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { envNames } from '../src/config.js'
import { TEST_CLI } from './cli-build.js'
import { type Call, httpCall } from './helpers.js'

/** Runs the CLI as a process, as tests of the command line and of crashes need it. */

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..')

const running = new Set<ChildProcess>()

/** The environment without any SANDBOX_* / PORT setting of the machine running the tests. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env }
  for (const name of Object.keys(envNames)) delete env[name]
  return { ...env, ...extra }
}

export interface CliProcess {
  child: ChildProcess
  output: { stdout: string; stderr: string }
  /** Resolves when the process is gone and its output read. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/**
 * `node …nodeArgs dist/test-cli/cli.js …args` (the CLI bundled for the run from the sources,
 * test/cli-build.ts), with its output collected.
 */
export function spawnCli(
  args: string[],
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): CliProcess {
  const child = spawn(process.execPath, [...nodeArgs, TEST_CLI, ...args], {
    cwd: repoRoot,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.add(child)
  const output = { stdout: '', stderr: '' }
  child.stdout?.on('data', (chunk) => {
    output.stdout += chunk
  })
  child.stderr?.on('data', (chunk) => {
    output.stderr += chunk
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => {
      running.delete(child)
      resolve({ code, signal })
    }),
  )
  return { child, output, exited }
}

/** Waits (at most 20 s) until the CLI's stdout passes `test`; else fails naming `what`. */
export function until(cli: CliProcess, test: (out: string) => boolean, what: string) {
  if (test(cli.output.stdout)) return Promise.resolve()
  return new Promise<void>((resolve, reject) => {
    const stdout = cli.child.stdout
    // Checked as output arrives (after spawnCli's own listener has added it).
    const check = () => {
      if (!test(cli.output.stdout)) return
      done()
      resolve()
    }
    const timer = setTimeout(() => {
      done()
      reject(new Error(`no ${what}\nstdout: ${cli.output.stdout}\nstderr: ${cli.output.stderr}`))
    }, 20_000)
    const done = () => {
      clearTimeout(timer)
      stdout?.off('data', check)
    }
    stdout?.on('data', check)
  })
}

/** Kills (SIGKILL) every CLI process still running and waits until each is gone. */
export async function stopCliProcesses(): Promise<void> {
  await Promise.all(
    [...running].map((child) => {
      const gone = new Promise((resolve) => child.once('close', resolve))
      child.kill('SIGKILL')
      return gone
    }),
  )
}

/** A CLI process serving, with its API's base URL and a client of it. */
export interface ServingCli extends CliProcess {
  url: string
  call: Call
}

/**
 * Starts `partner-sandbox` with `args` (and `env`) and waits for its banner's API line: the URL
 * it serves on, or an error with what it printed when it exits or prints none within 60 s.
 */
export async function serveCli(
  args: string[],
  env: Record<string, string> = {},
): Promise<ServingCli> {
  const cli = spawnCli(args, env)
  const deadline = Date.now() + 60_000
  for (;;) {
    const match = /^ {2}API\s+(http:\/\/127\.0\.0\.1:\d+)\/api\/v1$/m.exec(cli.output.stdout)
    if (match?.[1]) return { ...cli, url: match[1], call: httpCall(match[1]) }
    if (Date.now() > deadline || cli.child.exitCode !== null)
      throw new Error(`no banner\nstdout: ${cli.output.stdout}\nstderr: ${cli.output.stderr}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
