import type { OpenAPIHono } from '@hono/zod-openapi'
import { withAccess } from '../http/access.js'
import type { AppEnv } from '../http/app-env.js'
import type { StateReader } from '../state/seam.js'
import { DEFAULT_PARTNER } from '../store/default-credentials.js'
import { docsAsset, docsAssetTypes } from './assets.js'
import { docsInitScript } from './init-script.js'
import { docsPage } from './page.js'

/**
 * The API reference: Swagger UI rendering /openapi.json, every file served by this sandbox.
 * The CSP is the proof nothing else is fetched: only 'self' for scripts, styles and requests.
 */
export function mountDocs(app: OpenAPIHono<AppEnv>, deps: { state: StateReader }): void {
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    // Swagger UI sets style attributes from script.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "font-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ')
  app.get(
    '/docs',
    withAccess('public', async (c) => {
      // The default partner's credentials, if it still exists with its fixture secret.
      const known =
        (await deps.state.lookupOne('partners_by_api_key', DEFAULT_PARTNER.api_key)) !== undefined
      c.header('Content-Security-Policy', csp)
      c.header('Cache-Control', 'no-store')
      return c.html(
        docsPage({
          specUrl: '/openapi.json',
          ...(known ? { key: DEFAULT_PARTNER.api_key, secret: DEFAULT_PARTNER.api_secret } : {}),
        }),
      )
    }),
  )
  app.get(
    '/docs/assets/init.js',
    withAccess('public', (c) => {
      c.header('Content-Type', 'text/javascript; charset=utf-8')
      return c.body(docsInitScript)
    }),
  )
  app.get(
    '/docs/assets/:name',
    withAccess('public', (c) => {
      // Always there (the route's :name); typed loosely through withAccess.
      const name = c.req.param('name') ?? ''
      const bytes = docsAsset(name)
      if (!bytes) return c.notFound()
      c.header('Content-Type', docsAssetTypes[name] as string)
      c.header('Cache-Control', 'public, max-age=86400')
      return c.body(new Uint8Array(bytes))
    }),
  )
}
