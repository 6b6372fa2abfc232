import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * A throwaway PostgreSQL server for the tests: Debian's `postgresql` package (initdb and pg_ctl
 * from /usr/lib/postgresql/<version>/bin, or PG_BIN), a cluster in a temporary folder, on a free
 * loopback port, run as the `postgres` user when the tests run as root (PostgreSQL refuses
 * root). No durability settings: it is thrown away after the run. A watchdog process
 * (test/postgres-watchdog.mjs) stops it if the process that started it dies first.
 */

export interface PostgresServer {
  url: string
  /** `pg_ctl restart -m fast`: every connection is dropped, and the server comes back. */
  restart(): void
  /** The server's temporary folder (its data, socket and log), removed by stop(). */
  dir: string
  stop(): void
}

const WATCHDOG = join(dirname(fileURLToPath(import.meta.url)), 'postgres-watchdog.mjs')

/** The folder with initdb and pg_ctl, or undefined when PostgreSQL is not installed. */
export function postgresBin(): string | undefined {
  const fromEnv = process.env.PG_BIN
  if (fromEnv && existsSync(join(fromEnv, 'initdb'))) return fromEnv
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] ? join(root, versions[0], 'bin') : undefined
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

/** `settings`: more server settings (`-c name=value`), for a server of a test's own. */
export async function startPostgres(settings: string[] = []): Promise<PostgresServer | undefined> {
  const bin = postgresBin()
  if (!bin) return undefined
  const asRoot = process.getuid?.() === 0
  const dir = mkdtempSync(join(tmpdir(), 'partner-sandbox-pg-'))
  chmodSync(dir, 0o700)
  if (asRoot) {
    const ids = execFileSync('id', ['-u', 'postgres']).toString().trim()
    const gid = execFileSync('id', ['-g', 'postgres']).toString().trim()
    chownSync(dir, Number(ids), Number(gid))
  }
  const commandOf = (tool: string, args: string[]) =>
    asRoot
      ? ['runuser', '-u', 'postgres', '--', join(bin, tool), ...args]
      : [join(bin, tool), ...args]
  const run = (tool: string, args: string[]) => {
    const [command, ...argv] = commandOf(tool, args) as [string, ...string[]]
    const done = spawnSync(command, argv, { encoding: 'utf8' })
    if (done.status !== 0) {
      throw new Error(`${tool} failed (${done.status}): ${done.stderr || done.stdout}`)
    }
  }
  const data = join(dir, 'data')
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'])
  const port = await freePort()
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=1000',
    '-c max_pred_locks_per_transaction=256',
    // More server settings, for a look inside a run (docs/development.md): e.g.
    // PG_EXTRA_SETTINGS='-c shared_preload_libraries=pg_stat_statements'.
    process.env.PG_EXTRA_SETTINGS ?? '',
    ...settings,
  ].join(' ')
  run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start'])
  const stopCommand = commandOf('pg_ctl', ['-D', data, '-m', 'immediate', 'stop'])
  const watchdog = spawn(
    process.execPath,
    [WATCHDOG, String(process.pid), dir, JSON.stringify(stopCommand)],
    { detached: true, stdio: 'ignore' },
  )
  // It never keeps this process alive: it outlives it on purpose.
  watchdog.unref()
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restart() {
      run('pg_ctl', [
        '-D',
        data,
        '-o',
        options,
        '-l',
        join(dir, 'log'),
        '-m',
        'fast',
        '-w',
        'restart',
      ])
    },
    dir,
    stop() {
      watchdog.kill('SIGKILL')
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop'])
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}
