// The PostgreSQL server of the engine's benchmark: the tests' throwaway server
// (test/postgres-server.ts: Debian's package, initdb and pg_ctl in a temporary folder, a free
// loopback port, as the postgres user under root; fsync, synchronous_commit and
// full_page_writes off), loaded through tsx so there is one copy of that code. Answers
// undefined when PostgreSQL is not installed: the benchmark then prints SKIP, never fails.
import { tsImport } from 'tsx/esm/api'

export const SKIP_NO_POSTGRES = 'SKIP (PostgreSQL not installed: apt-get install -y postgresql)'

/** { url, version, bin, stop() }, or undefined without PostgreSQL. */
export async function startBenchPostgres() {
  const { startPostgres, postgresBin } = await tsImport(
    '../test/postgres-server.ts',
    import.meta.url,
  )
  const server = await startPostgres()
  if (!server) return undefined
  // The bin folder is /usr/lib/postgresql/<major>/bin (or PG_BIN): its major names the server,
  // and its psql and pgbench are the server's own.
  const bin = postgresBin()
  const version = /postgresql\/(\d+)\//.exec(bin ?? '')?.[1] ?? 'unknown'
  return { ...server, version, bin }
}
