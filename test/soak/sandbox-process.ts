import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type CliProcess, spawnCli } from '../cli-process.js'

/** The CLI with a fresh data file on a free port of 127.0.0.1, rate limits off, quiet. */
export interface SoakSandbox extends CliProcess {
  base: string
  dataFile: string
  stop(): Promise<void>
}

export async function startSoakSandbox(
  extraArgs: string[] = [],
  env: Record<string, string> = {},
): Promise<SoakSandbox> {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-soak-'))
  const dataFile = join(dir, 'soak.json')
  const cli = spawnCli(
    [
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--data',
      dataFile,
      '--rate-limit',
      'off',
      '--log-level',
      'warn',
      ...extraArgs,
    ],
    env,
  )
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner: ${cli.output.stderr}`)), 30_000)
    cli.child.stdout?.on('data', () => {
      const match = /^ {2}API {7}(http:\/\/127\.0\.0\.1:\d+)\/api\/v1$/m.exec(cli.output.stdout)
      if (match?.[1]) {
        clearTimeout(timer)
        resolve(match[1])
      }
    })
    cli.exited.then(() => reject(new Error(`the sandbox exited: ${cli.output.stderr}`)))
  })
  return {
    ...cli,
    base,
    dataFile,
    async stop() {
      cli.child.kill('SIGTERM')
      await cli.exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
