import { ApiError, validationError } from '../errors.js'
import type { Random } from '../random.js'
import type { StateTx } from '../state/seam.js'
import type { UserRow } from '../store/records.js'
import {
  type CheckResult,
  type CodesContext,
  checkCode,
  endCodes,
  issueResetToken,
} from './codes.js'
import { hashSecret, PASSWORD_COST, verifySecret } from './secret-hash.js'
import { revokeSessions } from './sessions.js'
import { findUserByEmail } from './users.js'

/** Spent on an unknown email, so it takes as long as a wrong password (no user enumeration). */
let dummyHash: Promise<string> | undefined

/** Runs scrypt: call it before a transaction, never inside one. */
export async function passwordMatches(
  random: Random,
  user: UserRow | undefined,
  password: string,
): Promise<boolean> {
  if (!user) {
    dummyHash ??= hashSecret('not-a-real-password', random, PASSWORD_COST)
    await verifySecret(password, await dummyHash)
    return false
  }
  return verifySecret(password, user.password_hash)
}

export function maskEmail(email: string): string {
  const [local = '', domain = ''] = email.split('@')
  return `${local.slice(0, 1)}${'*'.repeat(Math.max(1, local.length - 1))}@${domain}`
}

/** Step 1 of login refused: the same answer for an unknown email and a wrong password. */
export function assertCanLogIn(user: UserRow | undefined, passwordOk: boolean): UserRow {
  if (!passwordOk || !user) throw new ApiError('unauthorized', 'Invalid email or password.')
  if (!user.is_active) throw new ApiError('forbidden', 'This user is deactivated.')
  return user
}

const codeFailure: Record<string, string> = {
  missing: 'Invalid or expired code. Request a new one with POST /partner/auth/login.',
  burnt:
    'Too many wrong attempts: this code no longer works. Request a new one with POST /partner/auth/login.',
}

/** Step 2 of login refused (thrown once the attempt it counted is committed). */
export function loginCodeError(result: CheckResult): ApiError {
  const message =
    result.ok === false && result.reason === 'wrong'
      ? `Invalid code. ${result.attemptsLeft} attempt(s) left before it stops working.`
      : codeFailure[result.ok ? 'missing' : result.reason]
  return new ApiError('unauthorized', message)
}

/** A password-reset code refused (thrown once the attempt it counted is committed). */
export function resetCodeError(result: CheckResult): ApiError {
  const message =
    result.ok === false && result.reason === 'wrong'
      ? `is not correct; ${result.attemptsLeft} attempt(s) left`
      : result.ok === false && result.reason === 'burnt'
        ? 'was tried too many times and no longer works; request a new one'
        : 'is invalid or expired; request a new one'
  return validationError('code', message)
}

/** The rules of a password change that need no state; scrypt runs here, before a transaction. */
export async function checkPasswordChange(user: UserRow, current: string, next: string) {
  if (!(await verifySecret(current, user.password_hash)))
    throw validationError('current_password', 'is not correct')
  if (current === next)
    throw validationError('new_password', 'must differ from the current password')
}

/**
 * Stores the new password (hashed before the transaction) and ends every other session of
 * the user and every code sent under the old password. Returns how many sessions ended.
 */
export async function storeChangedPassword(
  ctx: Pick<CodesContext, 'clocks'>,
  tx: StateTx,
  user: UserRow,
  sessionId: string,
  password_hash: string,
): Promise<number> {
  const fresh = (await tx.get('users', user.id)) ?? user
  // Checked again after the awaits: a parallel change or reset may have replaced the password
  // that current_password was verified against (and ended this session).
  if (fresh.password_hash !== user.password_hash)
    throw validationError('current_password', 'is not correct')
  tx.put('users', {
    ...fresh,
    password_hash,
    updated_at: ctx.clocks.forPartner(user.partner_id).iso(),
  })
  const revoked = await revokeSessions(ctx, tx, user.id, 'password_changed', sessionId)
  // Codes sent under the old password stop working with it.
  await endCodes(ctx, tx, user.id)
  return revoked
}

/** A reset code checked: a reset token when it matched, else the failure to answer. */
export async function exchangeResetCode(
  ctx: Pick<CodesContext, 'clocks' | 'random'>,
  tx: StateTx,
  partnerId: string,
  email: string,
  code: string,
) {
  const user = await findUserByEmail(tx, partnerId, email)
  const result = await checkCode(ctx, tx, user, 'password_reset', code)
  if (!result.ok || !user) return { result, token: undefined }
  return { result, token: await issueResetToken(ctx, tx, user) }
}

/** A reset token refused (thrown once the attempt it counted is committed). */
export const resetTokenError = () =>
  validationError('reset_token', 'is invalid, expired or already used; verify a reset code again')

/**
 * Sets the new password (hashed before the transaction) with a reset token and ends every
 * session of the user: how many ended, or undefined when the token does not work (its
 * attempt is counted: commit, then answer `resetTokenError`).
 */
export async function resetWithToken(
  ctx: Pick<CodesContext, 'clocks' | 'random'>,
  tx: StateTx,
  partnerId: string,
  email: string,
  resetToken: string,
  password_hash: string,
): Promise<number | undefined> {
  const user = await findUserByEmail(tx, partnerId, email)
  const result = await checkCode(ctx, tx, user, 'reset_token', resetToken)
  if (!result.ok || !user) return undefined
  const fresh = (await tx.get('users', user.id)) ?? user
  tx.put('users', {
    ...fresh,
    password_hash,
    updated_at: ctx.clocks.forPartner(partnerId).iso(),
  })
  const revoked = await revokeSessions(ctx, tx, user.id, 'password_reset')
  await endCodes(ctx, tx, user.id, result.row.id)
  return revoked
}
