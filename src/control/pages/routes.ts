import { Hono } from 'hono'
import { html } from 'hono/html'
import type { Clock } from '../../clock.js'
import type { SandboxConfig } from '../../config.js'
import { digest } from '../../domain/secret-hash.js'
import { withAccess } from '../../http/access.js'
import type { AppEnv } from '../../http/app-env.js'
import { DEFAULT_PARTNER } from '../../store/default-credentials.js'
import { isAdminToken, presentedAdminToken } from '../admin-guard.js'
import { clockSection } from './clock-section.js'
import { inboxSection } from './inbox-section.js'
import { journalSection } from './journal-section.js'
import { layout, loginPage } from './layout.js'
import { moneySection } from './money-section.js'
import { type PartnerViewParts, partnerView } from './partner-view.js'
import { partnersSection } from './partners-section.js'
import { peopleSection } from './people-section.js'
import { requestDetailScript } from './request-detail-script.js'
import { dashboardScript } from './script.js'
import { dashboardCss } from './styles.js'
import { webhookLabSection } from './webhook-lab-section.js'
import { webhooksSection } from './webhooks-section.js'

const csp = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

/**
 * The dashboard at GET /_sandbox. With an admin token set, the page takes it as the usual
 * header or as `?token=` (a person can type a URL, not a header) and otherwise answers a login
 * form; its script then sends the token as a header on every control call.
 */
export function dashboardRoutes(
  s: PartnerViewParts & { config: Pick<SandboxConfig, 'adminToken'>; clock: Clock },
) {
  const app = new Hono<AppEnv>()
  const expected = s.config.adminToken ? digest(s.config.adminToken) : undefined
  app.get('/', async (c) => {
    c.header('Content-Security-Policy', csp)
    c.header('Cache-Control', 'no-store')
    c.header('Referrer-Policy', 'no-referrer')
    const given = c.req.query('token') ?? presentedAdminToken(c)
    if (expected && !isAdminToken(given, expected))
      return c.html(loginPage(given !== undefined), 401)
    const token = expected ? given : undefined
    const place = { token, after: c.req.query('partners_after') }
    const partner =
      (await s.state.get('partners', c.req.query('partner') ?? DEFAULT_PARTNER.id)) ??
      (await s.state.range('partners_in_order', 'all', { limit: 1 }))[0]
    const title = 'partner-sandbox dashboard'
    if (!partner) return c.html(layout(title, token, await partnersSection(s, undefined, place)))
    const view = await partnerView(s, partner)
    return c.html(
      layout(
        title,
        token,
        html`${await partnersSection(s, partner, place)} ${clockSection(s.clock, view)}
        ${peopleSection(view)} ${moneySection(view)} ${webhooksSection(view)}
        ${await webhookLabSection(s.state, view)}
        ${inboxSection(view)} ${journalSection(partner.id)}`,
      ),
    )
  })
  app.get('/assets/dashboard.js', (c) => {
    c.header('Content-Type', 'text/javascript; charset=utf-8')
    return c.body(dashboardScript + requestDetailScript)
  })
  app.get('/assets/dashboard.css', (c) => {
    c.header('Content-Type', 'text/css; charset=utf-8')
    return c.body(dashboardCss)
  })
  // The page checks the token itself (it also takes ?token= and answers a login form); its
  // script and stylesheet are public files.
  return withAccess('public', app)
}
