/**
 * The methods a path answers to, from the app's own route table. A request for a known path with
 * a method it does not take is a 405 with `Allow` (RFC 9110 §15.5.6), not a 404 that would send
 * the caller looking for a typo in the path.
 */
export function allowedMethods(routes: readonly { method: string; path: string }[]) {
  let table: { method: string; pattern: RegExp }[] | undefined
  return (path: string): string[] => {
    // Built on first use: every router is mounted by the time a request misses.
    table ??= routes
      .filter((r) => r.method !== 'ALL')
      .map((r) => ({ method: r.method, pattern: toRegExp(r.path) }))
    const methods = new Set<string>()
    for (const { method, pattern } of table) if (pattern.test(path)) methods.add(method)
    if (methods.has('GET')) methods.add('HEAD')
    return [...methods].sort()
  }
}

/** hono's path syntax (`/users/:id`, `:id{[0-9]+}`, `:id?`, `*`) as an anchored RegExp. */
function toRegExp(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*'
      const param = /^:\w+(\{(.+)\})?(\?)?$/.exec(segment)
      if (param) return `${param[2] ? `(?:${param[2]})` : '[^/]+'}${param[3] ? '?' : ''}`
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    })
    .join('/')
  return new RegExp(`^${source}/?$`)
}
