/**
 * The part of MSW 2's API that the docs' MSW recipe calls (msw is not a dependency here), with
 * its real signatures: `http.all(path, resolver)` where the resolver gets `{ request }` and may
 * answer a Response or a promise of one, and `setupServer(...handlers)`. test/package.test.ts
 * compiles the recipe against it, so what it checks is the sandbox side: `sandbox.fetch`.
 */
declare module 'msw' {
  export type HttpResponseResolver = (info: {
    request: Request
    params: Record<string, string | readonly string[] | undefined>
    cookies: Record<string, string>
  }) => Response | undefined | Promise<Response | undefined>
  export interface RequestHandler {
    readonly info: { method: string; path: string | RegExp }
  }
  export const http: {
    all(path: string | RegExp, resolver: HttpResponseResolver): RequestHandler
    get(path: string | RegExp, resolver: HttpResponseResolver): RequestHandler
    post(path: string | RegExp, resolver: HttpResponseResolver): RequestHandler
  }
}

declare module 'msw/node' {
  import type { RequestHandler } from 'msw'
  export function setupServer(...handlers: RequestHandler[]): {
    listen(options?: { onUnhandledRequest?: 'bypass' | 'warn' | 'error' }): void
    close(): void
    resetHandlers(...handlers: RequestHandler[]): void
  }
}
