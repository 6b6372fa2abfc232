/**
 * A stop by signal on PostgreSQL is clean: the sweeps, webhook attempts and requests under way
 * end before the database connection closes, so the log has nothing above `info` (it used to
 * show `sweep task failed: Error: write CONNECTION_ENDED` with a stack, now and then).
 */
import { afterEach, expect, it } from 'vitest'
import { spawnCli, stopCliProcesses, until } from './cli-process.js'
import { describePostgres, freshDatabaseUrl } from './postgres.js'

afterEach(() => stopCliProcesses())

const apiUrl = /API\s+(http:\/\/127\.0\.0\.1:\d+)\/api\/v1/

describePostgres('the CLI on PostgreSQL, stopped by SIGTERM', () => {
  it('stops with exit code 0 and logs nothing above info, even amid clock advances', async () => {
    const cli = spawnCli(['--port', '0', '--log-format', 'json', '--database', freshDatabaseUrl()])
    await until(cli, (out) => apiUrl.test(out), 'banner')
    const url = (apiUrl.exec(cli.output.stdout) as RegExpExecArray)[1] as string
    // Each advance sweeps the clock's rules and runs the deliveries due; several at once queue
    // sweeps behind one another, so the stop comes while they use the database.
    const advances = Array.from({ length: 10 }, () =>
      fetch(`${url}/_sandbox/clock/advance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ by: '1m' }),
      }).then(
        (res) => res.status,
        () => 'cut off by the stop',
      ),
    )
    expect(await Promise.race(advances)).toBe(200)
    cli.child.kill('SIGTERM')
    const { code } = await cli.exited
    await Promise.all(advances)

    expect(code, cli.output.stderr).toBe(0)
    const lines = cli.output.stderr.trim().split('\n')
    const entries = lines.map((line) => {
      try {
        return JSON.parse(line) as { level: string; msg?: string; message?: string }
      } catch {
        return { level: `not a log line: ${line}` }
      }
    })
    expect(entries.filter((e) => e.level !== 'info' && e.level !== 'debug')).toEqual([])
    expect(cli.output.stderr).toContain('SIGTERM: stopping')
  }, 60_000)
})
