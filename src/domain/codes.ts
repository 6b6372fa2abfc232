import type { Random } from '../random.js'
import { decideOtpCode } from '../scenarios/otp.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import { openCodeKey } from '../state/indexes.js'
import type { StateTx } from '../state/seam.js'
import type { CodePurpose, UserRow, VerificationCodeRow } from '../store/records.js'
import { endMessageCode, type Inbox } from './inbox.js'
import type { PartnerClocks } from './partner-clocks.js'
import { existingSigningKey, hashWithKey, sameHash, signingKey } from './signing-key.js'

/**
 * One-time codes (DESIGN.md): 6 digits, valid 10 minutes, single use, 5 wrong tries burn
 * it; a newer code of the same purpose replaces the older one. Which code is sent is the
 * scenario's decision. Password-reset tokens use the same rows (purpose `reset_token`).
 */

export const CODE_TTL_MS = 10 * 60_000
export const RESET_TOKEN_TTL_MS = 15 * 60_000
export const MAX_ATTEMPTS = 5

/** What the code functions use of the kernel. */
export interface CodesContext {
  random: Random
  clocks: PartnerClocks
  scenarios: ScenarioRegistry
  inbox: Pick<Inbox, 'put'>
}

/**
 * The user's codes of `purpose` still usable, oldest first. Read from the index of codes not
 * yet ended (state/indexes.ts): a login costs the same after 5,000 earlier codes as after
 * none. What it holds beyond the live code are codes that expired unused, each of which a
 * newer code would have replaced within its 10 minutes; retention removes them a day later.
 */
async function liveCodes(
  ctx: Pick<CodesContext, 'clocks'>,
  tx: StateTx,
  userId: string,
  purpose: CodePurpose,
): Promise<VerificationCodeRow[]> {
  return (await tx.lookup('open_codes_by_user', openCodeKey(userId, purpose))).filter(
    (c) => Date.parse(c.expires_at) > ctx.clocks.nowOf(c.partner_id),
  )
}

/**
 * What storing a code of `purpose` for `user` reads: the key its HMAC is made with and the
 * live codes it ends. Read together (one round trip on a database), with any other read the
 * caller names in `also`.
 */
async function readForCode<T>(
  ctx: Pick<CodesContext, 'clocks' | 'random'>,
  tx: StateTx,
  user: UserRow,
  purpose: CodePurpose,
  also: Promise<T>,
) {
  const [key, live, other] = await Promise.all([
    signingKey(ctx, tx),
    liveCodes(ctx, tx, user.id, purpose),
    also,
  ])
  return { key, live, other }
}

/** Stores a new secret value (only its HMAC), ending any live one of the same purpose. */
function storeCode(
  ctx: Pick<CodesContext, 'clocks' | 'random'>,
  tx: StateTx,
  user: UserRow,
  purpose: CodePurpose,
  value: string,
  ttl: number,
  read: { key: Buffer; live: VerificationCodeRow[] },
): VerificationCodeRow {
  const now = ctx.clocks.forPartner(user.partner_id).now()
  const id = ctx.random.id('otp')
  const row: VerificationCodeRow = {
    id,
    partner_id: user.partner_id,
    user_id: user.id,
    purpose,
    code_hash: hashWithKey(read.key, id, value),
    expires_at: new Date(now + ttl).toISOString(),
    attempts: 0,
    ended_at: null,
    ended_reason: null,
    created_at: new Date(now).toISOString(),
  }
  for (const old of read.live) {
    tx.put('verification_codes', { ...old, ended_at: row.created_at, ended_reason: 'replaced' })
  }
  tx.put('verification_codes', row)
  return row
}

/** Ends every live code and reset token of a user (after a password change or reset). */
export async function endCodes(
  ctx: Pick<CodesContext, 'clocks'>,
  tx: StateTx,
  userId: string,
  except?: string,
): Promise<void> {
  for (const purpose of ['login', 'password_reset', 'reset_token'] as const) {
    for (const code of await liveCodes(ctx, tx, userId, purpose)) {
      if (code.id === except) continue
      const now = ctx.clocks.forPartner(code.partner_id).iso()
      tx.put('verification_codes', { ...code, ended_at: now, ended_reason: 'replaced' })
    }
  }
}

/**
 * Issues a login or reset code and "sends" it to the user's email (the sandbox inbox). Once
 * the transaction committed, answer after `inbox.trimmed()`.
 */
export async function sendCode(
  ctx: CodesContext,
  tx: StateTx,
  user: UserRow,
  purpose: 'login' | 'password_reset',
): Promise<VerificationCodeRow> {
  const read = await readForCode(ctx, tx, user, purpose, tx.get('partners', user.partner_id))
  const partner = read.other
  const scenario = partner ? ctx.scenarios.forPartner(partner) : ctx.scenarios.default
  const code = decideOtpCode(scenario, user.email, ctx.random)
  const row = storeCode(ctx, tx, user, purpose, code, CODE_TTL_MS, read)
  const what = purpose === 'login' ? 'login code' : 'password reset code'
  ctx.inbox.put(tx, {
    id: ctx.random.id('msg'),
    partner_id: user.partner_id,
    user_id: user.id,
    to: user.email,
    channel: 'email',
    kind: purpose === 'login' ? 'login_code' : 'password_reset_code',
    subject: `Your ${partner?.display_name ?? 'card'} ${what}`,
    body: `Your ${what} is ${code}. It expires in 10 minutes and works once.`,
    code,
    code_id: row.id,
    created_at: row.created_at,
    expires_at: row.expires_at,
  })
  return row
}

export async function issueResetToken(
  ctx: Pick<CodesContext, 'clocks' | 'random'>,
  tx: StateTx,
  user: UserRow,
) {
  const token = ctx.random.token(32, 'rst_')
  const read = await readForCode(ctx, tx, user, 'reset_token', Promise.resolve())
  const row = storeCode(ctx, tx, user, 'reset_token', token, RESET_TOKEN_TTL_MS, read)
  return { token, expiresAt: Date.parse(row.expires_at) }
}

export type CheckResult =
  | { ok: true; row: VerificationCodeRow }
  | { ok: false; reason: 'missing' | 'wrong' | 'burnt'; attemptsLeft?: number }

/**
 * Checks a value against the user's live code of that purpose. A match uses it up; a miss
 * counts an attempt, and the fifth miss burns the code. Both are written in `tx`, which the
 * caller commits even on a miss (answer the failure after it, never by throwing inside it).
 */
export async function checkCode(
  ctx: Pick<CodesContext, 'clocks' | 'random'>,
  tx: StateTx,
  user: UserRow | undefined,
  purpose: CodePurpose,
  value: string,
): Promise<CheckResult> {
  if (!user) return { ok: false, reason: 'missing' }
  // The key is read with the codes (one round trip on a database), but never made here: a
  // live code was hashed with the key there is, and a check of none changes nothing.
  const [live, key] = await Promise.all([
    liveCodes(ctx, tx, user.id, purpose),
    existingSigningKey(tx),
  ])
  const row = live.at(-1)
  if (!row) return { ok: false, reason: 'missing' }
  const now = ctx.clocks.forPartner(row.partner_id).iso()
  const hash = hashWithKey(key ?? (await signingKey(ctx, tx)), row.id, value)
  if (sameHash(row.code_hash, hash)) {
    const used = { ...row, ended_at: now, ended_reason: 'used' as const }
    tx.put('verification_codes', used)
    // Used up: the inbox no longer shows it (a reset token has no message).
    if (purpose !== 'reset_token') await endMessageCode(tx, row.id, 'used')
    return { ok: true, row: used }
  }
  const attempts = row.attempts + 1
  const burnt = attempts >= MAX_ATTEMPTS
  tx.put('verification_codes', {
    ...row,
    attempts,
    ...(burnt ? { ended_at: now, ended_reason: 'too_many_attempts' as const } : {}),
  })
  return burnt
    ? { ok: false, reason: 'burnt' }
    : { ok: false, reason: 'wrong', attemptsLeft: MAX_ATTEMPTS - attempts }
}
