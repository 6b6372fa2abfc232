import type { IndexName } from '../state/indexes.js'
import type { State, StateReader, StateTx } from '../state/seam.js'
import type { InboxMessageRow } from '../store/records.js'
import type { SweepScope } from './sweeper.js'

/**
 * The sandbox inbox: every message the sandbox "sends" (login codes, password-reset codes)
 * lands here for tests and people to read (`GET /_sandbox/inbox`). It is state behind the
 * seam like the rest, in an ephemeral collection on purpose: a code is a secret, so only its
 * HMAC reaches the data file; a reset or restore empties it.
 *
 * A code is shown only while it can be used: once it is used (endMessageCode, in the
 * transaction that uses it) or expires (expireCodes, a sweep rule on its partner's clock), the
 * message stays without it, in the row and in the text. So no engine holds a usable secret at
 * rest beyond its ten minutes (PostgreSQL keeps the inbox in a table).
 */

export type InboxMessage = InboxMessageRow

export interface InboxFilter {
  email?: string
  partner_id?: string
  kind?: InboxMessage['kind']
  limit?: number
}

/** The last messages kept (README "Retention"): the oldest goes as the next one comes. */
export const INBOX_CAPACITY = 5000

/** Rows read at a time while a filter skips some. */
const PAGE = 100

/** Messages whose expired code one sweep run takes out, at most (the next run takes the rest). */
const EXPIRE_BATCH = 500

/** One settled promise: a trim nobody needs to wait for. */
const settled = Promise.resolve()

/**
 * At most `capacity` messages: the oldest over the cap go right after the commit that added
 * the newest, in a transaction of their own, and the request that sent a message is answered
 * once they have gone (`trimmed`). Not in the sending transaction: counting the whole inbox
 * there made every two logins read what the other wrote, which PostgreSQL's serializable
 * isolation answers by failing one of them (each login was run again twice on average under
 * load). Trims run one at a time; the calls made while one runs share a single next one, so
 * under load a count serves many logins. Every read of the inbox filters by e-mail, so reads
 * stay independent of how many messages are held: a read by e-mail walks only that address's
 * messages; a scan of the whole inbox per login made each login cost more as it filled.
 */
export class Inbox {
  /** The trim under way, and whether a message was added since it started. */
  private trimming: { started: boolean; again: boolean; done: Promise<void> } | undefined

  constructor(
    private readonly s: {
      state: State
      capacity?: number
      /** A trim that failed (a database gone): the next message's trim tries again. */
      onError?: (error: unknown) => void
    },
  ) {}

  get capacity(): number {
    return this.s.capacity ?? INBOX_CAPACITY
  }

  /**
   * Adds a message inside the caller's transaction (a code is sent with the row it hashes);
   * once it commits, the oldest over the cap go (await `trimmed` before answering).
   */
  put(tx: StateTx, message: InboxMessage): void {
    tx.put('inbox_messages', message)
    tx.afterCommit(() => void this.trim())
  }

  /** Once the messages committed so far are within the cap (at once when no trim runs). */
  trimmed(): Promise<void> {
    return this.trimming?.done ?? settled
  }

  /** Adds a message in a transaction of its own; resolves once the inbox is within its cap. */
  async add(message: InboxMessage): Promise<void> {
    await this.s.state.transaction(async (tx) => this.put(tx, message))
    await this.trimmed()
  }

  /** Starts a trim, or asks the one under way for another after it. Never rejects. */
  private trim(): Promise<void> {
    const running = this.trimming
    if (running) {
      // Not started yet: it will count this message anyway.
      if (running.started) running.again = true
      return running.done
    }
    const run = { started: false, again: false, done: settled }
    this.trimming = run
    run.done = this.trimUntilCurrent(run)
    return run.done
  }

  private async trimUntilCurrent(run: { started: boolean; again: boolean }): Promise<void> {
    try {
      await settled
      run.started = true
      do {
        run.again = false
        await this.removeOverCap()
      } while (run.again)
    } catch (error) {
      this.s.onError?.(error)
    } finally {
      this.trimming = undefined
    }
  }

  /** Counted first outside a transaction: under the cap nothing more is asked. */
  private async removeOverCap(): Promise<void> {
    const { state } = this.s
    if ((await state.count('inbox_in_order', 'all')) <= this.capacity) return
    await state.transaction(async (tx) => {
      let over = (await tx.count('inbox_in_order', 'all')) - this.capacity
      if (over <= 0) return
      for (const oldest of await tx.range('inbox_in_order', 'all', { limit: over })) {
        tx.remove('inbox_messages', oldest.id)
        if (--over === 0) break
      }
    })
  }

  /**
   * Takes the expired codes out of their messages, each on its partner's clock: a sweep rule
   * (domain/sweeper.ts), run on every clock advance and once a second. Looked for outside a
   * transaction first: with none due (nearly always) it writes nothing. Answers whether more
   * may be due (a backlog over one batch).
   */
  async expireCodes(scope: SweepScope): Promise<boolean> {
    if ((await dueMessages(this.s.state, scope, 1)).length === 0) return false
    return this.s.state.transaction(async (tx) => {
      const due = await dueMessages(tx, scope, EXPIRE_BATCH)
      for (const message of due) tx.put('inbox_messages', withoutCode(message, 'expired'))
      return due.length === EXPIRE_BATCH
    })
  }

  /** Newest first. */
  list(filter: InboxFilter = {}): Promise<InboxMessage[]> {
    return listMessages(this.s.state, filter)
  }

  /** How many messages are held. */
  size(): Promise<number> {
    return this.s.state.count('inbox_in_order', 'all')
  }

  /** Distinct messages the state holds: the rows themselves, not only the ones indexed. */
  async held(): Promise<number> {
    return (await this.s.state.all('inbox_messages')).length
  }

  /** Forgets one partner's messages (its reset, delete or restore). */
  removePartner(partnerId: string): Promise<void> {
    return this.s.state.transaction(async (tx) => removePartnerMessages(tx, partnerId))
  }

  clear(): Promise<void> {
    return this.s.state.transaction(async (tx) => {
      for (const m of await tx.all('inbox_messages')) tx.remove('inbox_messages', m.id)
    })
  }
}

/** Newest first, read from the narrowest index the filter allows, a page at a time. */
export async function listMessages(
  reader: StateReader,
  filter: InboxFilter = {},
): Promise<InboxMessage[]> {
  const limit = filter.limit ?? 50
  // An empty e-mail filters nothing, as `?email=` with nothing after it.
  const email = filter.email?.toLowerCase() || undefined
  const [index, key]: [IndexName, string] =
    email !== undefined
      ? ['inbox_by_email', email]
      : filter.partner_id
        ? ['inbox_by_partner', filter.partner_id]
        : ['inbox_in_order', 'all']
  const keep = (m: InboxMessage) =>
    (!filter.partner_id || m.partner_id === filter.partner_id) &&
    (!filter.kind || m.kind === filter.kind)
  // Without a filter beyond the index's key, a page is exactly what is asked for.
  const exact = !filter.kind && (index !== 'inbox_by_email' || !filter.partner_id)
  const out: InboxMessage[] = []
  let after: string | undefined
  while (out.length < limit) {
    const page = (await reader.range(index, key, {
      reverse: true,
      after,
      limit: exact ? limit - out.length : PAGE,
    })) as InboxMessage[]
    for (const m of page) {
      if (out.length < limit && keep(m)) out.push(m)
    }
    const last = page.at(-1)
    if (!last || page.length < PAGE) break
    after = last.id
  }
  return out
}

/** Removes one partner's messages, inside the caller's transaction. */
export async function removePartnerMessages(tx: StateTx, partnerId: string): Promise<void> {
  for (const m of await tx.lookup('inbox_by_partner', partnerId)) tx.remove('inbox_messages', m.id)
}

/** Why a message no longer shows its code. */
export type CodeEnd = NonNullable<InboxMessage['code_ended']>

/** The message without its code: out of the row, and out of the text that carried it. */
function withoutCode(message: InboxMessage, ended: CodeEnd): InboxMessage {
  const { code } = message
  const body = code ? message.body.replaceAll(code, `[${ended}]`) : message.body
  return { ...message, body, code: null, code_ended: ended }
}

/**
 * Takes the code of verification code `codeId` out of the message that carried it, inside the
 * caller's transaction (the one that used it): gone from the inbox when the use commits.
 */
export async function endMessageCode(tx: StateTx, codeId: string, ended: CodeEnd): Promise<void> {
  const message = await tx.lookupOne('inbox_by_live_code', codeId)
  if (message) tx.put('inbox_messages', withoutCode(message, ended))
}

/**
 * Up to `limit` messages whose code has expired on its partner's clock (of one partner when
 * its clock moved), read from the messages still showing a code, each partner's in the order
 * they expire: a run reads the due ones and one more per partner.
 */
async function dueMessages(
  reader: StateReader,
  scope: SweepScope,
  limit: number,
): Promise<InboxMessage[]> {
  const partners =
    scope.partnerId !== undefined
      ? [scope.partnerId]
      : await reader.keys('inbox_live_codes_by_partner')
  const due: InboxMessage[] = []
  for (const partnerId of partners) {
    const now = scope.nowOf(partnerId)
    const page = await reader.range('inbox_live_codes_by_partner', partnerId, {
      limit: limit - due.length,
    })
    for (const message of page) {
      if (Date.parse(message.expires_at) > now) break
      due.push(message)
    }
    if (due.length >= limit) break
  }
  return due
}
