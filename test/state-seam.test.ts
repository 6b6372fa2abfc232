import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { MemoryState } from '../src/state/memory-state.js'
import { defineIndexes } from '../src/store/indexes.js'
import { type DeliveryRow, emptyCollections, type UserRow } from '../src/store/records.js'
import type { TransactionRow } from '../src/store/records-money.js'
import { Store } from '../src/store/store.js'
import { ruleRow } from './rule-row.js'

// The state seam's memory engine: transactions that serialize writers, commit all of their
// writes or none, and survive a restart when committed (and only then).

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'partner-sandbox-seam-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

async function open(file?: string) {
  const store = await Store.open({ file, seed: emptyCollections, ephemeral: ['files'] })
  defineIndexes(store)
  return new MemoryState(store)
}

const user = (n: number, partner = 'p1') =>
  ({ id: `u-${n}`, partner_id: partner, email: `user${n}@example.com` }) as unknown as UserRow
const txn = (n: number, userId: string, at: string) =>
  ({ id: `t-${n}`, partner_id: 'p1', user_id: userId, created_at: at }) as unknown as TransactionRow
const delivery = (id: string, next: string | null, partner = 'p1') =>
  ({
    id,
    partner_id: partner,
    webhook_id: 'wh_1',
    status: next ? 'pending' : 'succeeded',
    next_attempt_at: next,
    completed_at: next ? null : '2031-01-01T00:00:00.000Z',
    created_at: '2031-01-01T00:00:00.000Z',
  }) as unknown as DeliveryRow

describe('state seam, memory engine', () => {
  it('takeDue answers the due rows of a key in order, at most the limit, and a scope its own', async () => {
    const state = await open()
    await state.transaction(async (tx) => {
      const times = ['00:00:03', '00:00:01', '00:09:00', '00:00:02']
      for (const [n, t] of times.entries())
        tx.put('webhook_deliveries', delivery(`dlv_${n}`, `2031-01-01T${t}.000Z`))
      tx.put('webhook_deliveries', delivery('dlv_done', null))
    })
    const upTo = '2031-01-01T00:00:05.000Z'
    const take = (limit: number, partner?: string) =>
      state.transaction(
        async (tx) =>
          (await tx.takeDue('deliveries_due_by_endpoint', 'p1|wh_1', upTo, limit)).map((r) => r.id),
        partner ? { partner } : undefined,
      )
    expect(await take(10)).toEqual(['dlv_1', 'dlv_3', 'dlv_0'])
    expect(await take(2)).toEqual(['dlv_1', 'dlv_3'])
    expect(await take(0)).toEqual([])
    expect(await take(10, 'p2')).toEqual([])
    await expect(
      state.transaction((tx) => tx.takeDue('deliveries_by_partner', 'p1', upTo, 1)),
    ).rejects.toThrow('takeDue needs an ordered index')
  })

  it('keeps a tenant row with its partner: one without a partner, or moved to another, is refused', async () => {
    const state = await open()
    await state.transaction(async (tx) => tx.put('users', user(1, 'p1')))
    await expect(state.transaction(async (tx) => tx.put('users', user(1, 'p2')))).rejects.toThrow(
      'a users row stays with its partner (u-1 would move)',
    )
    await expect(
      state.transaction(async (tx) => {
        tx.put('users', user(2))
        tx.put('cards', { id: 'c-1' } as never)
      }),
    ).rejects.toThrow('a cards row must belong to a partner (its partner_id)')
    expect(await state.all('users')).toEqual([user(1, 'p1')])
    // The sandbox's own collections have rows of no partner.
    await state.transaction(async (tx) => tx.put('meta', { id: 'sandbox' } as never))
    expect(await state.get('meta', 'sandbox')).toEqual({ id: 'sandbox' })
  })

  it('useRule takes each use of a counted rule once, and writes a first use when there is no row', async () => {
    const state = await open()
    await state.transaction(async (tx) => tx.put('rules', ruleRow('rul_a', null, 2)))
    const taken = await Promise.all(
      Array.from({ length: 5 }, () => state.useRule(ruleRow('rul_a', null, 2))),
    )
    expect(taken.filter(Boolean)).toHaveLength(2)
    expect((await state.get('rules', 'rul_a'))?.used).toBe(2)
    // A scenario rule's first use: its row is written with one use.
    expect(await state.useRule(ruleRow('rul_s', null, 1))).toBe(true)
    expect(await state.useRule(ruleRow('rul_s', null, 1))).toBe(false)
    expect((await state.get('rules', 'rul_s'))?.used).toBe(1)
  })

  it('lookupMany reads the rows under several keys at once', async () => {
    const state = await open()
    await state.transaction(async (tx) => {
      tx.put('rules', ruleRow('rul_global', null))
      tx.put('rules', ruleRow('rul_mine', 'p1'))
      tx.put('rules', ruleRow('rul_theirs', 'p2'))
    })
    const rows = await state.lookupMany('rules_by_partner', ['p1', '*'])
    expect(rows.map((r) => r.id).sort()).toEqual(['rul_global', 'rul_mine'])
  })

  it('serializes writers: 200 read-modify-writes with awaits between are all counted', async () => {
    const state = await open()
    await state.transaction(async (tx) => tx.put('users', { ...user(1), count: 0 } as never))
    await Promise.all(
      Array.from({ length: 200 }, () =>
        state.transaction(async (tx) => {
          const row = (await tx.get('users', 'u-1')) as unknown as { count: number }
          await tx.lookup('users_by_partner', 'p1')
          tx.put('users', { ...row, count: row.count + 1 } as never)
        }),
      ),
    )
    const row = (await state.get('users', 'u-1')) as unknown as { count: number }
    expect(row.count).toBe(200)
  })

  it('rolls every write of a transaction that throws back, indexes included', async () => {
    const state = await open()
    await state.transaction(async (tx) => tx.put('users', user(1)))
    await expect(
      state.transaction(async (tx) => {
        tx.put('users', user(2))
        tx.put('users', { ...user(1), email: 'changed@example.com' })
        tx.remove('users', 'u-1')
        expect(await tx.get('users', 'u-2')).toBeDefined()
        throw new Error('no')
      }),
    ).rejects.toThrow('no')
    expect(await state.get('users', 'u-2')).toBeUndefined()
    expect((await state.get('users', 'u-1'))?.email).toBe('user1@example.com')
    expect((await state.lookup('users_by_partner', 'p1')).map((u) => u.id)).toEqual(['u-1'])
    expect(await state.lookupOne('users_by_email', 'changed@example.com')).toBeUndefined()
  })

  it('a page of an index shows the newest commit first', async () => {
    const state = await open()
    await state.transaction(async (tx) => tx.put('transactions', txn(1, 'u-1', '2026-01-01')))
    await state.transaction(async (tx) => tx.range('transactions_by_user', 'u-1', { limit: 5 }))
    await state.transaction(async (tx) => tx.put('transactions', txn(2, 'u-1', '2026-01-02')))
    const page = await state.range('transactions_by_user', 'u-1', { reverse: true, limit: 1 })
    expect(page.map((t) => t.id)).toEqual(['t-2'])
  })

  it('afterCommit runs after a commit, never after a rollback', async () => {
    const state = await open()
    const ran: string[] = []
    await state.transaction(async (tx) => {
      tx.put('users', user(1))
      tx.afterCommit(() => ran.push('first'))
    })
    await state
      .transaction(async (tx) => {
        tx.put('users', user(2))
        tx.afterCommit(() => ran.push('second'))
        throw new Error('no')
      })
      .catch(() => {})
    expect(ran).toEqual(['first'])
  })

  it('keeps committed transactions through a restart, not rolled-back ones, nor ephemeral rows', async () => {
    const file = join(dir, 'state.json')
    const state = await open(file)
    await state.transaction(async (tx) => {
      tx.put('users', user(1))
      tx.put('users', user(2))
      tx.put('files', { id: 'f-1', partner_id: 'p1' } as never)
    })
    await state
      .transaction(async (tx) => {
        tx.put('users', user(3))
        tx.remove('users', 'u-1')
        throw new Error('no')
      })
      .catch(() => {})
    // A crash: no close, the journal as written.
    expect(readFileSync(`${file}.journal`, 'utf8')).not.toContain('f-1')
    const again = await open(file)
    expect((await again.all('users')).map((u) => u.id).sort()).toEqual(['u-1', 'u-2'])
    expect(await again.all('files')).toEqual([])
    expect((await again.export()).collections.files).toEqual({})
    await again.close()
  })

  it('a replace adds its rows to a merged collection, and a data file read again agrees', async () => {
    const file = join(dir, 'merged.json')
    const openMerged = async () => {
      const store = await Store.open({
        file,
        seed: emptyCollections,
        mergeOnReplace: ['scenarios'],
      })
      defineIndexes(store)
      return new MemoryState(store)
    }
    const scenario = (name: string, description: string) =>
      ({
        id: name,
        document: { name, description },
        loaded_at: '2031-01-01T00:00:00.000Z',
      }) as const
    const state = await openMerged()
    await state.transaction(async (tx) => {
      tx.put('scenarios', scenario('kept', 'Loaded before.'))
      tx.put('scenarios', scenario('both', 'The old one.'))
    })
    await state.replaceAll({
      ...emptyCollections(),
      users: { 'u-1': user(1) },
      scenarios: { both: scenario('both', 'The new one.'), new: scenario('new', 'Restored.') },
    })
    const described = async (s: MemoryState) =>
      (await s.all('scenarios')).map((row) => [row.id, row.document.description]).sort()
    const expected = [
      ['both', 'The new one.'],
      ['kept', 'Loaded before.'],
      ['new', 'Restored.'],
    ]
    expect(await described(state)).toEqual(expected)
    expect((await state.all('users')).map((u) => u.id)).toEqual(['u-1'])
    // Read again from the journal (no close: as after a crash), the replace merges alike.
    expect(await described(await openMerged())).toEqual(expected)
  })

  it('a restored state brings no ephemeral rows back, whatever the upload holds', async () => {
    const state = await open()
    await state.transaction(async (tx) =>
      tx.put('files', { id: 'f-live', partner_id: 'p1' } as never),
    )
    const doc = await state.export()
    await state.replaceAll({
      ...doc.collections,
      users: { 'u-1': user(1) },
      files: { 'f-uploaded': { id: 'f-uploaded' } } as never,
    })
    expect((await state.all('users')).map((u) => u.id)).toEqual(['u-1'])
    expect(await state.all('files')).toEqual([])
  })
})

describe('state seam: ephemeral writes outside a transaction', () => {
  const slot = (slot: number, n: number, partner = 'p1') =>
    ({
      id: `jrn_${slot}`,
      seq: String(n).padStart(3, '0'),
      partner_id: partner,
      entry: { id: `req_${n}`, partner_id: partner },
    }) as never

  it('putEphemerals applies every row at once, or none when one is durable', async () => {
    const store = await Store.open({
      seed: emptyCollections,
      ephemeral: ['request_journal', 'request_captures'],
    })
    defineIndexes(store)
    const state = new MemoryState(store)
    await state.putEphemerals([
      { collection: 'request_journal', row: slot(0, 1) },
      { collection: 'request_captures', row: { id: 'jrn_0', seq: '001', capture: null } as never },
    ])
    expect((await state.get('request_journal', 'jrn_0'))?.entry.id).toBe('req_1')
    expect((await state.get('request_captures', 'jrn_0'))?.seq).toBe('001')
    await expect(
      state.putEphemerals([
        { collection: 'request_journal', row: slot(1, 2) },
        { collection: 'users', row: { id: 'u-1' } as never },
      ]),
    ).rejects.toThrow('users is not ephemeral')
    expect(await state.get('request_journal', 'jrn_1')).toBeUndefined()
  })

  it('putEphemerals applies at once, even while a transaction holds the writers', async () => {
    const file = join(dir, 'state.json')
    const store = await Store.open({ file, seed: emptyCollections, ephemeral: ['request_journal'] })
    defineIndexes(store)
    const state = new MemoryState(store)
    // Even while a transaction holds the writers' queue, the write is there at once.
    let release = () => {}
    const held = state.transaction(() => new Promise<void>((resolve) => (release = resolve)))
    await state.putEphemerals([{ collection: 'request_journal', row: slot(0, 1) }])
    await state.putEphemerals([{ collection: 'request_journal', row: slot(1, 2, 'p2') }])
    // A ring of two: the third request writes over the first's slot, and is the newest.
    await state.putEphemerals([{ collection: 'request_journal', row: slot(0, 3) }])
    const ids = async (partner: string) =>
      (await state.range('journal_by_partner', partner, { reverse: true })).map((r) => r.entry.id)
    expect(await ids('p1')).toEqual(['req_3'])
    expect(await ids('p2')).toEqual(['req_2'])
    await state.putEphemerals([{ collection: 'request_journal', row: slot(1, 4) }])
    expect(await ids('p1')).toEqual(['req_4', 'req_3'])
    expect((await state.all('request_journal')).map((r) => r.entry.id).sort()).toEqual([
      'req_3',
      'req_4',
    ])
    expect(await state.count('journal_by_partner', 'p2')).toBe(0)
    release()
    await held
    await expect(
      state.putEphemerals([{ collection: 'users', row: { id: 'u-1' } as never }]),
    ).rejects.toThrow('users is not ephemeral')
    expect(await state.get('users', 'u-1')).toBeUndefined()
    // Never on disk.
    await state.close()
    const again = await open(file)
    expect(await again.all('request_journal')).toEqual([])
  })

  it('a reset keeps the ephemeral collections named to be kept, and empties the others', async () => {
    const store = await Store.open({
      seed: emptyCollections,
      ephemeral: ['request_journal', 'files'],
      keepOnReplace: ['request_journal'],
    })
    defineIndexes(store)
    const state = new MemoryState(store)
    await state.putEphemerals([{ collection: 'request_journal', row: slot(0, 1) }])
    await state.transaction(async (tx) => tx.put('files', { id: 'f-1', partner_id: 'p1' } as never))
    await state.reset()
    expect((await state.all('request_journal')).map((r) => r.id)).toEqual(['jrn_0'])
    expect(await state.all('files')).toEqual([])
  })

  it('numbers journal entries without a gap, whatever only touched memory in between', async () => {
    const file = join(dir, 'numbered.json')
    const state = await open(file)
    await state.transaction(async (tx) => tx.put('users', user(1)))
    // Only an ephemeral row: nothing to journal, so no number taken.
    await state.transaction(async (tx) => tx.put('files', { id: 'f-1', partner_id: 'p1' } as never))
    await state
      .transaction(async (tx) => {
        tx.put('users', user(2))
        throw new Error('no')
      })
      .catch(() => {})
    await state.transaction(async (tx) => tx.put('users', user(3)))
    const numbers = readFileSync(`${file}.journal`, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { s: number }).s)
    expect(numbers).toEqual(numbers.map((_, i) => (numbers[0] as number) + i))
    expect(numbers.length).toBeGreaterThanOrEqual(3)
    await state.close()
  })
})
