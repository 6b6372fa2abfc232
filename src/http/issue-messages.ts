import type { z } from 'zod'

/**
 * zod's own English messages ("Invalid input: expected string, received undefined") are written
 * for developers of the schema, not for the person calling the API. A message a schema sets on
 * purpose ("must be the 6-digit code") is kept; zod's defaults are rewritten here, once, into the
 * "<field> is required" / "<field> must be ..." form every hand-written message already uses.
 */
const zodDefault = /^(Invalid|Too small|Too big|Unrecognized key)/

type Issue = z.core.$ZodIssue

export function humanMessage(issue: Issue, value: unknown, present: boolean): string {
  if (!zodDefault.test(issue.message)) return issue.message
  switch (issue.code) {
    case 'invalid_type':
      if (!present || value === undefined) return 'is required'
      return `must be ${typeName(issue.expected)} (got ${describe(value)})`
    case 'too_small':
      return tooSmall(issue)
    case 'too_big':
      return tooBig(issue)
    case 'invalid_format':
      return format(issue)
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`
    case 'not_multiple_of':
      return issue.divisor === 0.01
        ? 'must be a number with at most 2 decimals'
        : `must be a multiple of ${issue.divisor}`
    case 'invalid_union':
      return union(issue, value, present)
    case 'unrecognized_keys':
      return `has ${issue.keys.length === 1 ? 'a field' : 'fields'} it does not take: ${issue.keys.join(', ')}`
    case 'invalid_key':
      return 'has a key that is not allowed'
    case 'invalid_element':
      return 'has a value that is not allowed'
    default:
      return 'is not valid'
  }
}

/**
 * A value none of a union's forms took: what each form accepts, so the reader can pick one
 * (`must be one of 429, 500, 502, 503, 504 (got 422)`, `must be "off" or a number`).
 */
function union(issue: Extract<Issue, { code: 'invalid_union' }>, value: unknown, present: boolean) {
  if (!present || value === undefined) return 'is required'
  const forms: string[] = []
  let literalsOnly = true
  let clauses = false
  for (const alternative of issue.errors) {
    const [only] = alternative
    if (alternative.length === 1 && only && only.path.length === 0) {
      if (only.code === 'invalid_value') {
        forms.push(...only.values.map((v) => JSON.stringify(v)))
        continue
      }
      if (only.code === 'invalid_type') {
        // In a list of alternatives, "true or false" would read as two of them run together.
        forms.push(...(only.expected === 'boolean' ? ['true', 'false'] : [typeName(only.expected)]))
        literalsOnly = false
        continue
      }
      // A bare custom check with zod's own wording says nothing about what it wants.
      if (only.code === 'custom' && zodDefault.test(only.message)) continue
    }
    literalsOnly = false
    clauses = true
    const parts = alternative.map((inner) => {
      const at = valueAt(value, inner.path)
      const message = humanMessage(inner, at.value, at.present)
      return inner.path.length ? `${inner.path.join('.')} ${message}` : message
    })
    const kind = describeKind(value)
    forms.push(
      alternative.every((i) => i.path.length > 0)
        ? `${kind} whose ${parts.join(' and ')}`
        : `${kind} that ${parts.join(' and ')}`,
    )
  }
  const unique = [...new Set(forms)]
  if (unique.length === 0) return 'is not valid'
  const got = ` (got ${describe(value)})`
  if (literalsOnly && unique.length > 1) return `must be one of ${unique.join(', ')}${got}`
  // Forms with clauses of their own ("… and …") are kept apart by "; or".
  if (clauses) return `must be ${unique.join('; or ')}${got}`
  return `must be ${orList(unique)}${got}`
}

/** `a, b or c` */
function orList(items: string[]): string {
  if (items.length < 2) return items.join('')
  return `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`
}

/** The kind of a value, as a noun: `an array`, `a string`. */
function describeKind(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeName(typeof value)
}

const names: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  date: 'a date',
  bigint: 'a whole number',
  null: 'null',
  tuple: 'an array',
  record: 'an object',
}

function typeName(expected: string): string {
  return names[expected] ?? `a ${expected}`
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'number' && !Number.isFinite(value)) return 'not a number'
  if (typeof value === 'string') return value.length > 40 ? 'a string' : JSON.stringify(value)
  if (typeof value === 'object') return 'an object'
  return String(value)
}

function unit(origin: string, n: number | bigint): string {
  if (origin === 'string') return `${n} character${n === 1 ? '' : 's'}`
  if (origin === 'array' || origin === 'set') return `${n} item${n === 1 ? '' : 's'}`
  if (origin === 'file') return `${n} bytes`
  return String(n)
}

function tooSmall(issue: Extract<Issue, { code: 'too_small' }>): string {
  const { origin, minimum, inclusive } = issue
  if (origin === 'string' && minimum === 1) return 'must not be empty'
  if (origin === 'array' && minimum === 1) return 'must have at least 1 item'
  if (issue.exact) return `must be exactly ${unit(origin, minimum)}`
  if (origin === 'number' || origin === 'bigint' || origin === 'date')
    return inclusive ? `must be at least ${minimum}` : `must be greater than ${minimum}`
  return `must have at least ${unit(origin, minimum)}`
}

function tooBig(issue: Extract<Issue, { code: 'too_big' }>): string {
  const { origin, maximum, inclusive } = issue
  if (issue.exact) return `must be exactly ${unit(origin, maximum)}`
  if (origin === 'number' || origin === 'bigint' || origin === 'date')
    return inclusive ? `must be at most ${maximum}` : `must be less than ${maximum}`
  return `must have at most ${unit(origin, maximum)}`
}

const formats: Record<string, string> = {
  email: 'must be a valid email address',
  url: 'must be a valid URL',
  uuid: 'must be a UUID',
  guid: 'must be a UUID',
  datetime: 'must be an ISO 8601 date-time such as 2026-01-31T12:00:00Z',
  date: 'must be a date written YYYY-MM-DD',
  time: 'must be a time written HH:MM:SS',
  ipv4: 'must be an IPv4 address',
  ipv6: 'must be an IPv6 address',
}

function format(issue: Extract<Issue, { code: 'invalid_format' }>): string {
  if (issue.format === 'starts_with' && 'prefix' in issue)
    return `must start with "${issue.prefix}"`
  if (issue.format === 'ends_with' && 'suffix' in issue) return `must end with "${issue.suffix}"`
  if (issue.format === 'includes' && 'includes' in issue) return `must contain "${issue.includes}"`
  if (issue.format === 'regex' && issue.pattern) return `must match the pattern ${issue.pattern}`
  return formats[issue.format] ?? `must be a valid ${issue.format}`
}

/** The value at a path of the input, and whether the key was there at all. */
export function valueAt(input: unknown, path: PropertyKey[]): { value: unknown; present: boolean } {
  let current: unknown = input
  for (const key of path) {
    if (current === null || typeof current !== 'object' || !(key in current))
      return { value: undefined, present: false }
    current = (current as Record<PropertyKey, unknown>)[key]
  }
  return { value: current, present: true }
}
