import type { LabCheck } from '../store/records.js'
import { isSuccess } from './sender.js'

/** How old a replayed copy's signed timestamp is: twice Stripe's and Standard Webhooks' 5 min. */
export const REPLAY_AGE_S = 600

/**
 * What the receiver's answer to a lab delivery says: forged and replayed copies must be refused
 * (non-2xx), duplicates and late (out-of-order) events must be acknowledged (2xx). No answer at
 * all (refused connection, timeout) fails every check: production would retry it.
 */
export function labVerdict(
  check: LabCheck,
  status: number | null,
  error: string | null,
): { verdict: 'pass' | 'fail'; why: string } {
  const answer = status === null ? `no answer (${error ?? 'no status'})` : `answered ${status}`
  const ok = isSuccess(status)
  switch (check) {
    case 'forged_signature':
      return status !== null && !ok
        ? { verdict: 'pass', why: `${answer}: a forged signature is refused` }
        : {
            verdict: 'fail',
            why: `${answer}: both signatures (X-Service-Signature and webhook-signature) were forged; verify them and answer non-2xx when they do not match`,
          }
    case 'replay':
      return status !== null && !ok
        ? { verdict: 'pass', why: `${answer}: a timestamp ${REPLAY_AGE_S} s old is refused` }
        : {
            verdict: 'fail',
            why: `${answer}: the signed timestamp was ${REPLAY_AGE_S} s old, past the 300 s tolerance; check it (the Stripe and Standard Webhooks libraries do) and answer non-2xx`,
          }
    case 'duplicate':
      return ok
        ? {
            verdict: 'pass',
            why: `${answer}: a duplicate (same event id, new delivery id) is acknowledged; your app must also not act on it twice`,
          }
        : {
            verdict: 'fail',
            why: `${answer}: a duplicate (same event id) must be acknowledged with 2xx, or it is retried; skip the work, not the answer`,
          }
    case 'out_of_order':
      return ok
        ? {
            verdict: 'pass',
            why: `${answer}: an event that arrives after its successor is acknowledged`,
          }
        : {
            verdict: 'fail',
            why: `${answer}: an event delivered after its successor must be acknowledged with 2xx; read the current state rather than relying on order`,
          }
  }
}
