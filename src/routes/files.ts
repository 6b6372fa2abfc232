import { Hono } from 'hono'
import type { Deps } from '../deps.js'
import { ApiError } from '../errors.js'
import { withAccess } from '../http/access.js'
import type { AppEnv } from '../http/app-env.js'

/**
 * Only a picture's magic bytes are checked at upload, so markup or script may follow them:
 * served with a CSP that runs nothing (and a sandbox), inline under a name of ours.
 */
const FILE_CSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox"
const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
}

/**
 * Uploaded files, public like a CDN URL: the id is unguessable and the content type is the
 * one recognised at upload.
 */
export function fileRoutes(deps: Deps) {
  const app = new Hono<AppEnv>()
  app.get('/:id', (c) => {
    const id = c.req.param('id')
    const row = deps.store.get('files', id)
    const bytes = row && deps.files.read(id)
    if (!row || !bytes) throw new ApiError('not_found', `No file ${id}.`)
    return c.body(new Uint8Array(bytes), 200, {
      'Content-Type': row.content_type,
      'Content-Length': String(bytes.length),
      'Cache-Control': 'public, max-age=31536000, immutable',
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': FILE_CSP,
      'Content-Disposition': `inline; filename="${id}.${EXTENSIONS[row.content_type] ?? 'bin'}"`,
    })
  })
  return withAccess('public', app)
}
