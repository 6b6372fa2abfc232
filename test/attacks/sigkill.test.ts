import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { type ServingCli, serveCli, stopCliProcesses } from '../cli-process.js'
import { type Call, onboardedUser } from '../helpers.js'

/**
 * The SIGKILL loop: a CLI with a data file under concurrent money writes is killed without
 * warning 10 times, each time at another point. After each restart every acknowledged write
 * is there, and every balance is the sum of its transactions (no half-applied write).
 */

const KILLS = 10
const WORKERS = 6

const dir = mkdtempSync(join(tmpdir(), 'sandbox-sigkill-'))
afterAll(async () => {
  await stopCliProcesses()
  rmSync(dir, { recursive: true, force: true })
})

function start(): Promise<ServingCli> {
  const data = join(dir, 'state.json')
  return serveCli(['--port', '0', '--data', data, '--rate-limit', 'off', '--log-level', 'warn'])
}

interface Txn {
  id: string
  direction: 'credit' | 'debit'
  amount: number
  status: string
}

/** Every transaction of the user, through the paginated list. */
async function allTransactions(call: Call, headers: Record<string, string>): Promise<Txn[]> {
  const rows: Txn[] = []
  let after = ''
  for (;;) {
    const res = await call('GET', `/api/v1/partner/transactions?limit=100${after}`, { headers })
    expect(res.status, res.text).toBe(200)
    const page = res.json.data as { data: Txn[]; has_more: boolean }
    rows.push(...page.data)
    if (!page.has_more) return rows
    after = `&starting_after=${page.data[page.data.length - 1]?.id}`
  }
}

const cents = (n: number) => Math.round(n * 100)

it(`keeps every acknowledged write and consistent balances through ${KILLS} SIGKILLs`, async () => {
  let cli = await start()
  const user = await onboardedUser(cli.call)
  const headers = user.bearer
  const acknowledged = new Set<string>()
  for (let kill = 0; kill < KILLS; kill++) {
    const killAfter = 4 + ((kill * 7) % 23) // another point of the load each time
    let acksThisRound = 0
    let killed: Promise<unknown> | undefined
    let n = kill * 1000
    const worker = async () => {
      while (!killed) {
        const i = n++
        const purchase = i % 3 === 2
        const res = await cli
          .call(
            'POST',
            purchase
              ? '/api/v1/partner/cards/simulate-purchase'
              : '/api/v1/partner/cards/simulate-fund',
            {
              headers,
              body: purchase
                ? { amount: 1 + (i % 4), merchant: { name: `Shop ${i}` } }
                : { amount: 1 + (i % 9) },
            },
          )
          .catch(() => undefined) // the connection dies with the process
        if (!res || res.status >= 300) continue
        const id = (res.json.data.transaction?.id ?? res.json.data.id) as string
        acknowledged.add(id)
        if (++acksThisRound === killAfter && !killed) {
          cli.child.kill('SIGKILL')
          killed = cli.exited
        }
      }
    }
    await Promise.all(Array.from({ length: WORKERS }, worker))
    await killed
    cli = await start()
    const txns = await allTransactions(cli.call, headers)
    const ids = new Set(txns.map((t) => t.id))
    const lost = [...acknowledged].filter((id) => !ids.has(id))
    expect(lost, `after kill ${kill + 1}`).toEqual([])
    const status = await cli.call('GET', '/api/v1/partner/cards/status', { headers })
    const { ledger, available } = status.json.data.balances as { ledger: number; available: number }
    const posted = txns.filter((t) => t.status === 'posted')
    const ledgerCents = posted.reduce(
      (sum, t) => sum + (t.direction === 'credit' ? 1 : -1) * cents(t.amount),
      0,
    )
    const holds = txns
      .filter((t) => t.status === 'pending' && t.direction === 'debit')
      .reduce((sum, t) => sum + cents(t.amount), 0)
    expect(cents(ledger), `ledger after kill ${kill + 1}`).toBe(ledgerCents)
    expect(cents(available), `available after kill ${kill + 1}`).toBe(ledgerCents - holds)
  }
  expect(acknowledged.size).toBeGreaterThan(KILLS * 4)
}, 240_000)
