import { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { AppEnv } from '../http/app-env.js'
import { embedErrorPage } from './onboarding-page.js'

/**
 * What every hosted page (onboarding, bank connect) sends besides its HTML: these pages
 * carry a token in their URL, so they are never cached, never leak a referrer, and may be
 * framed only by the partner's allowed origins.
 */

/** Headers of a hosted page whose inline script and style carry `nonce`. */
export function setHostedPageHeaders(c: Context<AppEnv>, nonce: string, origins: string[]): void {
  c.header(
    'Content-Security-Policy',
    [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'`,
      `style-src 'nonce-${nonce}'`,
      "connect-src 'self'",
      "img-src 'self' data:",
      "base-uri 'none'",
      "form-action 'none'",
      `frame-ancestors ${origins.length ? origins.join(' ') : "'none'"}`,
    ].join('; '),
  )
  c.header('Referrer-Policy', 'no-referrer')
  c.header('Cache-Control', 'no-store')
}

/**
 * The error page of a hosted link (unknown, used, expired). Not cached: a browser that kept
 * a 410 would show it again for the same URL after the link was reissued.
 */
export function hostedErrorPage(
  c: Context<AppEnv>,
  title: string,
  message: string,
  status: ContentfulStatusCode,
) {
  c.header(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'",
  )
  c.header('Referrer-Policy', 'no-referrer')
  c.header('Cache-Control', 'no-store')
  return c.html(embedErrorPage(title, message), status)
}

/** An HTML response of a hosted page in the OpenAPI document, with a short example. */
export const htmlResponse = (description: string, example: string) => ({
  description,
  content: { 'text/html': { schema: z.string(), example } },
})

/** The start of an error page, as an OpenAPI example. */
export const errorPageExample = (title: string) =>
  `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main data-testid="embed-error"><h1 data-testid="embed-error-title">${title}</h1>…</main></body></html>`
