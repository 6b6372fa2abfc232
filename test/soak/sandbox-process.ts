import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type CliProcess, spawnCli } from '../cli-process.js'
import { connectInspector, inspectorUrl } from './inspector-gc.js'

/** The CLI with a fresh data file on a free port of 127.0.0.1, rate limits off, quiet. */
export interface SoakSandbox extends CliProcess {
  base: string
  dataFile: string
  /** A full collection in the sandbox (through its inspector), so RSS is read after one. */
  collectGarbage(): Promise<void>
  stop(): Promise<void>
}

/**
 * Node flags of the soak's sandbox (test-only; the CLI's own defaults are untouched). Each
 * takes out an RSS step whose timing is set by the machine's load, not by the rows stored;
 * stored rows live in the old generation and native memory, which none of them touches:
 * - its inspector on a free port of 127.0.0.1, used only to ask for a full, memory-reducing
 *   collection before each RSS sample (no domain is enabled, so the CLI runs as for a user);
 * - the young generation fixed at 16 MB semi-spaces, the most V8 (Node 20, 64-bit) grows it
 *   to by default and what a busy CLI reaches anyway. Left to grow, it steps by tens of MB
 *   when a scavenge finds many requests in flight. What a bigger young generation changes
 *   in the old one (less garbage promoted) the collection before each sample takes out;
 * - no memory reducer: it shrinks the heap at a moment it picks from the allocation rate (a
 *   27 MB drop at any window of a run, when the CLI still ran from the sources with tsx's
 *   loader thread; it now runs from the bundle, test/cli-build.ts). In the CLI's own heap the
 *   reducer only does what the collection before each sample does.
 * Extra flags from SOAK_NODE_ARGS (space-separated).
 */
const NODE_ARGS = [
  '--inspect=127.0.0.1:0',
  '--min-semi-space-size=16',
  '--max-semi-space-size=16',
  '--no-memory-reducer',
  ...(process.env.SOAK_NODE_ARGS ?? '').split(' ').filter(Boolean),
]

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
    NODE_ARGS,
  )
  const { base, inspector } = await new Promise<{ base: string; inspector: string }>(
    (resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no banner or inspector: ${cli.output.stderr}`)),
        30_000,
      )
      const check = () => {
        const base = /^ {2}API {7}(http:\/\/127\.0\.0\.1:\d+)\/api\/v1$/m.exec(cli.output.stdout)
        const inspector = inspectorUrl(cli.output.stderr)
        if (base?.[1] && inspector) {
          clearTimeout(timer)
          resolve({ base: base[1], inspector })
        }
      }
      cli.child.stdout?.on('data', check)
      cli.child.stderr?.on('data', check)
      cli.exited.then(() => reject(new Error(`the sandbox exited: ${cli.output.stderr}`)))
    },
  )
  const session = await connectInspector(inspector)
  return {
    ...cli,
    base,
    dataFile,
    collectGarbage: () => session.collectGarbage(),
    async stop() {
      // Closed first: node waits for an attached debugger before it exits.
      session.close()
      cli.child.kill('SIGTERM')
      await cli.exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
