import type { Hono } from 'hono'
import { withAccess } from '../http/access.js'
import type { AppEnv } from '../http/app-env.js'

/**
 * The sandbox's icon, served by the sandbox itself (no CDN): hosted pages and /docs link it,
 * and browsers that ask for /favicon.ico on their own get it too, so no page shows a 404 in
 * the console. A card on a blue square; SVG, so one small file fits every size.
 */
export const faviconSvg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#2563eb"/><rect x="10" y="18" width="44" height="30" rx="5" fill="#fff"/><rect x="10" y="24" width="44" height="6" fill="#0f172a"/><rect x="16" y="38" width="14" height="4" rx="2" fill="#94a3b8"/></svg>`

/** The `<link>` every HTML page of the sandbox carries. */
export const faviconLink = '<link rel="icon" href="/favicon.svg" type="image/svg+xml">'

export function mountFavicon(app: Hono<AppEnv>): void {
  for (const path of ['/favicon.svg', '/favicon.ico']) {
    app.get(
      path,
      withAccess('public', (c) => {
        c.header('Content-Type', 'image/svg+xml')
        c.header('Cache-Control', 'public, max-age=86400')
        return c.body(faviconSvg)
      }),
    )
  }
}
