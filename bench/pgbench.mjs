// pgbench beside the sandbox's writes (issue 38): PostgreSQL's own benchmark client, from the
// server's bin folder, on a database of its own on the bench's throwaway server, so the
// sandbox's committed write transactions can be read as a fraction of what that server commits
// for a client that does nothing else. Loopback only, like every other target.
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** pgbench's database on the bench's server: never the one the sandboxes use. */
export const PGBENCH_DATABASE = 'pgbench_bench'

/** The connection flags of the server at `url` (postgres://postgres@127.0.0.1:PORT/...). */
function connection(url) {
  const parsed = new URL(url)
  if (parsed.hostname !== '127.0.0.1') throw new Error(`refusing to run pgbench against ${url}`)
  return ['-h', parsed.hostname, '-p', parsed.port, '-U', decodeURIComponent(parsed.username)]
}

/** The reason pgbench cannot run beside `server`, or undefined when it can. */
export const pgbenchMissing = (server) =>
  server.bin && existsSync(join(server.bin, 'pgbench'))
    ? undefined
    : `SKIP (no pgbench beside initdb in ${server.bin ?? 'the PostgreSQL bin folder'})`

/** One statement through the server's psql; answers its unaligned output. */
export async function psql(server, database, sql) {
  const { stdout } = await run(
    join(server.bin, 'psql'),
    [
      ...connection(server.url),
      '-d',
      database,
      '-X',
      '-A',
      '-t',
      '-v',
      'ON_ERROR_STOP=1',
      '-c',
      sql,
    ],
    { encoding: 'utf8' },
  )
  return stdout.trim()
}

/** `CREATE DATABASE pgbench_bench`, then `pgbench -i -s 1` into it (its four tables, 100k rows). */
export async function initPgbench(server) {
  await psql(server, 'postgres', `CREATE DATABASE ${PGBENCH_DATABASE}`)
  await run(
    join(server.bin, 'pgbench'),
    [...connection(server.url), '-i', '-s', '1', '-q', PGBENCH_DATABASE],
    { encoding: 'utf8' },
  )
}

/**
 * `pgbench -b simple-update -c clients -j threads -T seconds -n` (no vacuum: the tables are
 * fresh from -i). Answers { tps, transactions, failed, output }; tps is the figure without
 * connection set-up when pgbench prints both (PostgreSQL 13 and older print two lines).
 */
export async function runPgbench(server, { clients, threads, seconds }) {
  const { stdout } = await run(
    join(server.bin, 'pgbench'),
    [
      ...connection(server.url),
      '-b',
      'simple-update',
      '-c',
      String(clients),
      '-j',
      String(threads),
      '-T',
      String(seconds),
      '-n',
      PGBENCH_DATABASE,
    ],
    { encoding: 'utf8' },
  )
  return parsePgbench(stdout)
}

/** The figures of pgbench's report; throws when it has no `tps = ` line. */
export function parsePgbench(output) {
  const lines = [...output.matchAll(/^tps = ([\d.]+)(?: \(([^)]*)\))?/gm)]
  const line = lines.find((m) => !/including/.test(m[2] ?? '')) ?? lines[0]
  if (!line) throw new Error(`pgbench printed no "tps = " line:\n${output}`)
  const count = (label) => Number(new RegExp(`^${label}: (\\d+)`, 'm').exec(output)?.[1] ?? 0)
  return {
    tps: Number(line[1]),
    transactions: count('number of transactions actually processed'),
    failed: count('number of failed transactions'),
    output,
  }
}
