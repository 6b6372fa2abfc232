import type { Context } from 'hono'
import { originAllowed } from '../domain/allowed-origins.js'
import type { AppEnv } from '../http/app-env.js'
import type { Logger } from '../logger.js'
import type { PartnerRow } from '../store/records.js'

/**
 * A refused framing shows in the browser only as a grey frame and a console line, so the
 * sandbox says it where the developer looks: when a hosted page is loaded into a frame
 * (`Sec-Fetch-Dest: iframe`, sent by every current browser) from an origin its CSP
 * frame-ancestors will refuse, the log names that origin and how to allow it. The origin is
 * the framing page's Referer; a page that sends none is named as unknown.
 */
export function warnIfFramingRefused(
  c: Context<AppEnv>,
  { logger }: { logger: Logger },
  page: string,
  partner: PartnerRow | undefined,
  origins: string[],
): void {
  const dest = c.req.header('sec-fetch-dest')
  if (dest !== 'iframe' && dest !== 'frame') return
  const referer = c.req.header('referer')
  const origin = referer && URL.canParse(referer) ? new URL(referer).origin : null
  if (origin && originAllowed(origin, origins)) return
  const who = partner ? `partner ${partner.slug}` : 'this partner'
  const allowed = origins.length ? origins.join(', ') : 'none'
  const fix = origin
    ? `add "${origin}" (or "${new URL(origin).protocol}//${new URL(origin).hostname}:*" for any port)`
    : 'add the framing page’s origin'
  logger.warn(
    `The ${page} was framed by ${origin ?? 'a page that sent no Referer'}, which is not in the allowed_origins of ${who} (${allowed}): the browser refuses to show it. To allow it, ${fix} to allowed_origins with PATCH /api/v1/partner/me.`,
    { partner: partner?.slug, origin: origin ?? undefined },
  )
}
