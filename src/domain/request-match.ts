/**
 * How a request is compared with criteria, for rules and for the journal's
 * filters and verification: the same rules everywhere, and each miss said in words
 * ("body.email: expected "a@example.test", got "b@example.test"") so a failing assertion
 * says why.
 *
 * - method: equal;
 * - path: equal as sent, or a template whose `{name}` segments match any one segment (and,
 *   for the journal, `*` any run of characters);
 * - query and headers: each named one present with that value (header names in any case);
 * - body: a JSON subset: every field given is in the body with an equal value (objects
 *   compared field by field, arrays item by item and of the same length), others ignored.
 */
export interface RequestCriteria {
  method?: string
  path?: string
  query?: Record<string, string>
  headers?: Record<string, string>
  body?: unknown
}

/** What is known of a request: query values and lower-cased header names. */
export interface RequestFacts {
  method: string
  path: string
  query: Record<string, string>
  headers: Record<string, string>
  body: unknown
}

const patterns = new Map<string, RegExp>()

/** Whether `path` fits `pattern` (exact, `{name}` segments, `*` runs). */
export function pathMatches(pattern: string, path: string): boolean {
  if (!pattern.includes('{') && !pattern.includes('*')) return pattern === path
  let regex = patterns.get(pattern)
  if (!regex) {
    const source = pattern
      .split(/(\{[^}/]+\}|\*)/)
      .map((part) =>
        part === '*'
          ? '.*'
          : /^\{[^}/]+\}$/.test(part)
            ? '[^/]+'
            : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('')
    regex = new RegExp(`^${source}$`)
    // Patterns come from control-plane input: keep the cache bounded.
    if (patterns.size > 500) patterns.clear()
    patterns.set(pattern, regex)
  }
  return regex.test(path)
}

const items = (n: number) => (n === 1 ? '1 item' : `${n} items`)

const show = (value: unknown) => (value === undefined ? 'nothing' : JSON.stringify(value))

/** Where `actual` departs from the JSON subset `expected`, one line per field. */
export function subsetDifferences(expected: unknown, actual: unknown, at: string): string[] {
  if (expected !== null && typeof expected === 'object') {
    if (Array.isArray(expected)) {
      if (!Array.isArray(actual)) return [`${at}: expected an array, got ${show(actual)}`]
      if (actual.length !== expected.length)
        return [`${at}: expected ${items(expected.length)}, got ${actual.length}`]
      return expected.flatMap((item, i) => subsetDifferences(item, actual[i], `${at}.${i}`))
    }
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual))
      return [`${at}: expected an object, got ${show(actual)}`]
    const object = actual as Record<string, unknown>
    return Object.entries(expected).flatMap(([key, value]) =>
      subsetDifferences(
        value,
        Object.hasOwn(object, key) ? object[key] : undefined,
        `${at}.${key}`,
      ),
    )
  }
  return Object.is(expected, actual)
    ? []
    : [`${at}: expected ${show(expected)}, got ${show(actual)}`]
}

/** Every way the request misses the criteria, and how many single checks the criteria make. */
export function compareRequest(
  criteria: RequestCriteria,
  facts: RequestFacts,
): { differences: string[]; checks: number } {
  const differences: string[] = []
  let checks = 0
  if (criteria.method !== undefined) {
    checks++
    if (criteria.method.toUpperCase() !== facts.method)
      differences.push(`method: expected ${criteria.method.toUpperCase()}, got ${facts.method}`)
  }
  if (criteria.path !== undefined) {
    checks++
    if (!pathMatches(criteria.path, facts.path))
      differences.push(`path: expected ${criteria.path}, got ${facts.path}`)
  }
  for (const [name, value] of Object.entries(criteria.query ?? {})) {
    checks++
    const got = Object.hasOwn(facts.query, name) ? facts.query[name] : undefined
    if (got !== value) differences.push(`query.${name}: expected ${show(value)}, got ${show(got)}`)
  }
  for (const [name, value] of Object.entries(criteria.headers ?? {})) {
    checks++
    const key = name.toLowerCase()
    const got = Object.hasOwn(facts.headers, key) ? facts.headers[key] : undefined
    if (got !== value) differences.push(`headers.${key}: expected ${show(value)}, got ${show(got)}`)
  }
  if (criteria.body !== undefined) {
    checks += leafCount(criteria.body)
    differences.push(...subsetDifferences(criteria.body, facts.body, 'body'))
  }
  return { differences, checks }
}

function leafCount(value: unknown): number {
  if (value === null || typeof value !== 'object') return 1
  const children = Object.values(value)
  return children.length === 0 ? 1 : children.reduce<number>((n, v) => n + leafCount(v), 0)
}

/** The request's query string as name → first value. */
export function queryOf(search: string): Record<string, string> {
  // No prototype: a parameter named __proto__ is a parameter like any other.
  const out = Object.create(null) as Record<string, string>
  if (!search) return out
  for (const [name, value] of new URLSearchParams(search))
    if (!Object.hasOwn(out, name)) out[name] = value
  return out
}
