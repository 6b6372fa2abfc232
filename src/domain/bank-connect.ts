import { ApiError } from '../errors.js'
import type { StateReader, StateTx } from '../state/seam.js'
import type { UserRow } from '../store/records.js'
import type { BankAccountRow, ConnectTokenRow } from '../store/records-money.js'
import type { MoneyKernel } from './money-kernel.js'
import { newestFirst } from './pagination.js'
import { requireActivePartner } from './partner-status.js'
import { existingSigningKey, hashWithKey, sameHash } from './signing-key.js'

/**
 * External bank accounts: an Org + User call makes a short-lived, single-use connect token
 * and URL; the public hosted page lets the user pick a bank and an account (made with a
 * faker seeded by the session, so the same link always offers the same accounts); the
 * public enrollment call turns the choice into a connected account.
 */

/** What bank connect works with besides the transaction it writes in. */
export interface BankConnectKernel extends Pick<MoneyKernel, 'clocks' | 'random' | 'events'> {
  /** The base URL of the links the sandbox hands out. */
  baseUrl(): string
}

export const CONNECT_TTL_MS = 15 * 60_000

export const institutions = [
  { id: 'ins_sandbox_first', name: 'Sandbox First Bank' },
  { id: 'ins_harbor_cu', name: 'Harbor Credit Union' },
  { id: 'ins_northline', name: 'Northline National' },
  { id: 'ins_evergreen', name: 'Evergreen Savings' },
] as const

export interface OfferedAccount {
  id: string
  institution_id: string
  name: string
  type: 'checking' | 'savings'
  mask: string
  routing_number: string
}

/**
 * The accounts the page offers for a session: the same every time for the same session, each
 * named after `holder` (the first name of the user who connects: "Dana's Everyday Checking"),
 * as a bank lists a person's own accounts.
 */
export async function offeredAccounts(
  session: ConnectTokenRow,
  holder: string | undefined,
): Promise<OfferedAccount[]> {
  // Loaded on first use only: faker is large and most runs never open this page.
  const { Faker, base, en } = await import('@faker-js/faker')
  const faker = new Faker({ locale: [en, base] })
  faker.seed([...session.id].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) >>> 0, 7))
  return institutions.flatMap((ins) =>
    (['checking', 'savings'] as const).map((type, i) => ({
      id: `acct_${ins.id.slice(4)}_${i}`,
      institution_id: ins.id,
      name: `${holder ? `${holder}'s ` : ''}${type === 'checking' ? faker.helpers.arrayElement(['Everyday', 'Premier', 'Basic']) : faker.helpers.arrayElement(['High Yield', 'Goal', 'Reserve'])} ${type === 'checking' ? 'Checking' : 'Savings'}`,
      type,
      mask: faker.finance.accountNumber(4),
      routing_number: faker.finance.routingNumber(),
    })),
  )
}

/**
 * A new connect session of `user`: its row (the token kept as an HMAC under the sandbox's
 * signing `key`), token and URL.
 */
export function newConnectSession(ctx: BankConnectKernel, user: UserRow, key: Buffer) {
  const now = ctx.clocks.forPartner(user.partner_id).now()
  const id = ctx.random.id('bct')
  const token = ctx.random.token(40, 'bctok_')
  const row: ConnectTokenRow = {
    id,
    partner_id: user.partner_id,
    user_id: user.id,
    token_hash: hashWithKey(key, `connect:${id}`, token),
    expires_at: new Date(now + CONNECT_TTL_MS).toISOString(),
    used_at: null,
    bank_account_id: null,
    created_at: new Date(now).toISOString(),
  }
  const url = new URL('/api/v1/external-bank-account-connect/connect', ctx.baseUrl())
  url.searchParams.set('token', `${id}.${token}`)
  return {
    row,
    session: {
      connect_token: `${id}.${token}`,
      connect_url: url.toString(),
      expires_at: row.expires_at,
    },
  }
}

/**
 * Why a connect token cannot be used. The public enrollment answers 401 for each (the token
 * is its credential); the hosted page tells them apart: 400 missing, 404 unknown, 410 gone.
 */
export class ConnectLinkError extends ApiError {
  constructor(
    readonly reason: 'missing' | 'unknown' | 'used' | 'expired',
    message: string,
  ) {
    super('unauthorized', message)
  }
}

/** The session a connect token opens; a ConnectLinkError with a clear message otherwise. */
export async function openConnectSession(
  ctx: BankConnectKernel,
  reader: StateReader,
  token: string | undefined,
): Promise<ConnectTokenRow> {
  if (!token) {
    throw new ConnectLinkError(
      'missing',
      'This bank connect link has no token. Open the connect_url exactly as the app received it.',
    )
  }
  const [id, secret] = token.split('.')
  const row = id ? await reader.get('connect_tokens', id) : undefined
  const unknown = () =>
    new ConnectLinkError(
      'unknown',
      'This bank connect link is not valid. Ask the app for a new one.',
    )
  // No signing key yet: no token was ever issued.
  const key = await existingSigningKey(reader)
  if (!row || !secret || !key) throw unknown()
  if (!sameHash(row.token_hash, hashWithKey(key, `connect:${row.id}`, secret))) throw unknown()
  // A paused partner's link is a 403.
  await requireActivePartner(reader, row.partner_id)
  if (row.used_at) {
    throw new ConnectLinkError(
      'used',
      'This bank connect link was already used. Ask the app for a new one.',
    )
  }
  if (Date.parse(row.expires_at) <= ctx.clocks.nowOf(row.partner_id)) {
    throw new ConnectLinkError(
      'expired',
      'This bank connect link has expired. Ask the app for a new one.',
    )
  }
  return row
}

export function publicBankAccount(b: BankAccountRow) {
  return {
    id: b.id,
    institution_id: b.institution_id,
    institution_name: b.institution_name,
    account_name: b.account_name,
    account_type: b.account_type,
    account_mask: b.account_mask,
    status: b.status,
    created_at: b.created_at,
    updated_at: b.updated_at,
  }
}

/** The account the user chose, if the page offered it for `session`; a 400 otherwise. */
export async function chosenAccount(
  session: ConnectTokenRow,
  holder: string | undefined,
  institutionId: string,
  accountId: string,
): Promise<OfferedAccount> {
  const offered = (await offeredAccounts(session, holder)).find(
    (a) => a.id === accountId && a.institution_id === institutionId,
  )
  if (!offered) {
    throw new ApiError(
      'validation_error',
      'account_id: not one of the accounts this bank offered.',
      {
        details: [
          {
            field: 'account_id',
            message: 'is not one of the accounts offered for this institution',
            location: 'body',
          },
        ],
      },
    )
  }
  return offered
}

/**
 * Public enrollment: the chosen account (see chosenAccount) becomes connected and the token
 * is used up. The token is checked again in `tx`: a parallel enrollment with it must lose.
 */
export async function enroll(
  ctx: BankConnectKernel,
  tx: StateTx,
  token: string,
  offered: OfferedAccount,
) {
  const current = await openConnectSession(ctx, tx, token)
  const now = ctx.clocks.forPartner(current.partner_id).iso()
  const account: BankAccountRow = {
    id: ctx.random.id('bank'),
    partner_id: current.partner_id,
    user_id: current.user_id,
    institution_id: offered.institution_id,
    institution_name:
      institutions.find((i) => i.id === offered.institution_id)?.name ?? offered.institution_id,
    account_name: offered.name,
    account_type: offered.type,
    account_mask: offered.mask,
    routing_number: offered.routing_number,
    status: 'active',
    created_at: now,
    updated_at: now,
  }
  tx.put('bank_accounts', account)
  tx.put('connect_tokens', { ...current, used_at: now, bank_account_id: account.id })
  await ctx.events.record(tx, current.partner_id, 'external_bank_account.created', {
    object: 'external_bank_account',
    user_id: current.user_id,
    ...publicBankAccount(account),
  })
  return account
}

/** The user's connected accounts (not the removed ones), newest first. */
export async function connectedAccounts(reader: StateReader, userId: string) {
  return newestFirst(
    (await reader.lookup('bank_accounts_by_user', userId)).filter((b) => b.status === 'active'),
  )
}

/** Removes a connected account of `user` (kept as `removed` for the deposits that used it). */
export async function removeBankAccount(
  ctx: Pick<MoneyKernel, 'clocks'>,
  tx: StateTx,
  user: UserRow,
  id: string,
) {
  const row = await tx.get('bank_accounts', id)
  if (!row || row.user_id !== user.id || row.status !== 'active') {
    throw new ApiError('not_found', `No connected bank account ${id} for this user.`)
  }
  const next = {
    ...row,
    status: 'removed' as const,
    updated_at: ctx.clocks.forPartner(row.partner_id).iso(),
  }
  tx.put('bank_accounts', next)
  return next
}
