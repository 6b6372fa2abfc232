import type { Deps } from '../deps.js'
import { decideOtpCode } from '../scenarios/otp.js'
import { openCodeKey } from '../store/indexes.js'
import type { CodePurpose, UserRow, VerificationCodeRow } from '../store/records.js'
import type { Writer } from '../store/store.js'
import { codeHash, sameHash } from './signing-key.js'

/**
 * One-time codes (DESIGN.md): 6 digits, valid 10 minutes, single use, 5 wrong tries burn
 * it; a newer code of the same purpose replaces the older one. Which code is sent is the
 * scenario's decision. Password-reset tokens use the same rows (purpose `reset_token`).
 */

export const CODE_TTL_MS = 10 * 60_000
export const RESET_TOKEN_TTL_MS = 15 * 60_000
export const MAX_ATTEMPTS = 5

/**
 * The user's codes of `purpose` still usable, oldest first. Read from the index of codes not
 * yet ended (store/indexes.ts): a login costs the same after 5,000 earlier codes as after
 * none. What it holds beyond the live code are codes that expired unused, each of which a
 * newer code would have replaced within its 10 minutes; retention removes them a day later.
 */
function liveCodes(deps: Deps, userId: string, purpose: CodePurpose): VerificationCodeRow[] {
  return deps.store
    .lookup('verification_codes', 'open_codes_by_user', openCodeKey(userId, purpose))
    .filter((c) => Date.parse(c.expires_at) > deps.clocks.nowOf(c.partner_id))
}

/** Stores a new secret value (only its HMAC), ending any live one of the same purpose. */
function storeCode(deps: Deps, user: UserRow, purpose: CodePurpose, value: string, ttl: number) {
  const now = deps.clocks.forPartner(user.partner_id).now()
  const id = deps.random.id('otp')
  const row: VerificationCodeRow = {
    id,
    partner_id: user.partner_id,
    user_id: user.id,
    purpose,
    code_hash: codeHash(deps, id, value),
    expires_at: new Date(now + ttl).toISOString(),
    attempts: 0,
    ended_at: null,
    ended_reason: null,
    created_at: new Date(now).toISOString(),
  }
  deps.store.batch((w) => {
    for (const old of liveCodes(deps, user.id, purpose)) {
      w.put('verification_codes', { ...old, ended_at: row.created_at, ended_reason: 'replaced' })
    }
    w.put('verification_codes', row)
  })
  return row
}

/** Ends every live code and reset token of a user (after a password change or reset). */
export function endCodes(deps: Deps, userId: string, writer: Writer, except?: string): void {
  for (const purpose of ['login', 'password_reset', 'reset_token'] as const) {
    for (const code of liveCodes(deps, userId, purpose)) {
      if (code.id === except) continue
      const now = deps.clocks.forPartner(code.partner_id).iso()
      writer.put('verification_codes', { ...code, ended_at: now, ended_reason: 'replaced' })
    }
  }
}

/** Issues a login or reset code and "sends" it to the user's email (the sandbox inbox). */
export function sendCode(deps: Deps, user: UserRow, purpose: 'login' | 'password_reset') {
  const partner = deps.store.get('partners', user.partner_id)
  const scenario = partner ? deps.scenarios.forPartner(partner) : deps.scenarios.default
  const code = decideOtpCode(scenario, user.email, deps.random)
  const row = storeCode(deps, user, purpose, code, CODE_TTL_MS)
  const what = purpose === 'login' ? 'login code' : 'password reset code'
  deps.inbox.add({
    id: deps.random.id('msg'),
    partner_id: user.partner_id,
    user_id: user.id,
    to: user.email,
    channel: 'email',
    kind: purpose === 'login' ? 'login_code' : 'password_reset_code',
    subject: `Your ${partner?.display_name ?? 'card'} ${what}`,
    body: `Your ${what} is ${code}. It expires in 10 minutes and works once.`,
    code,
    created_at: row.created_at,
    expires_at: row.expires_at,
  })
  return row
}

export function issueResetToken(deps: Deps, user: UserRow) {
  const token = deps.random.token(32, 'rst_')
  const row = storeCode(deps, user, 'reset_token', token, RESET_TOKEN_TTL_MS)
  return { token, expiresAt: Date.parse(row.expires_at) }
}

export type CheckResult =
  | { ok: true; row: VerificationCodeRow }
  | { ok: false; reason: 'missing' | 'wrong' | 'burnt'; attemptsLeft?: number }

/**
 * Checks a value against the user's live code of that purpose. A match uses it up; a miss
 * counts an attempt, and the fifth miss burns the code. `writer` lets the caller commit the
 * use in the same batch as what it unlocks (the session, the new password).
 */
export function checkCode(
  deps: Deps,
  user: UserRow | undefined,
  purpose: CodePurpose,
  value: string,
  writer?: Writer,
): CheckResult {
  const row = user ? liveCodes(deps, user.id, purpose).at(-1) : undefined
  if (!row) return { ok: false, reason: 'missing' }
  const now = deps.clocks.forPartner(row.partner_id).iso()
  if (sameHash(row.code_hash, codeHash(deps, row.id, value))) {
    const used = { ...row, ended_at: now, ended_reason: 'used' as const }
    if (writer) writer.put('verification_codes', used)
    else deps.store.put('verification_codes', used)
    return { ok: true, row: used }
  }
  const attempts = row.attempts + 1
  const burnt = attempts >= MAX_ATTEMPTS
  deps.store.put('verification_codes', {
    ...row,
    attempts,
    ...(burnt ? { ended_at: now, ended_reason: 'too_many_attempts' as const } : {}),
  })
  return burnt
    ? { ok: false, reason: 'burnt' }
    : { ok: false, reason: 'wrong', attemptsLeft: MAX_ATTEMPTS - attempts }
}
