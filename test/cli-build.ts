/**
 * vitest globalSetup: the CLI the tests start (test/cli-process.ts spawnCli), bundled once for
 * the run by the package's own build (scripts/bundle.mjs) into dist/test-cli. A process started
 * from the bundle loads one file, not the sources through tsx: the suite starts the CLI about
 * 60 times, and each start cost about a second of CPU more from the sources. It is also the
 * CLI users run (bin/partner-sandbox.mjs runs the bundle).
 */
import { execFileSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The tests' CLI, relative to the repository's root. */
export const TEST_CLI = join('dist', 'test-cli', 'cli.js')

export default function buildTestCli(): void {
  execFileSync(process.execPath, [join('scripts', 'bundle.mjs'), '--outdir', dirname(TEST_CLI)], {
    cwd: join(dirname(fileURLToPath(import.meta.url)), '..'),
    stdio: ['ignore', 'inherit', 'inherit'],
  })
}
