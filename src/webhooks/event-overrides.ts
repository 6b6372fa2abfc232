import type { z } from '@hono/zod-openapi'
import type { EventType } from '../domain/events.js'
import { ApiError, type ErrorDetail } from '../errors.js'
import { humanMessage } from '../http/issue-messages.js'
import { eventObjectSchemas } from './event-objects.js'

/**
 * Chosen data in triggered events: `{ "data.object.amount": 12.34 }`, a value per dotted path
 * of the event envelope. Only `data.object.…` can be set (the envelope's id, type and created
 * are the sandbox's). Each path and value is checked against the event type's object schema
 * before anything is made, and the whole object again once the overrides are applied, so a bad
 * override is a 400 naming the path and changes no state.
 */

export type EventOverrides = Record<string, unknown>

const PREFIX = 'data.object.'
const UNSAFE = new Set(['__proto__', 'constructor', 'prototype'])

/** Problems of the paths and values alone (no object needed): run before anything is made. */
export function checkOverrides(type: EventType, overrides: EventOverrides): ErrorDetail[] {
  const details: ErrorDetail[] = []
  for (const [path, value] of Object.entries(overrides)) {
    const problem = (message: string) => details.push({ field: path, message, location: 'body' })
    if (!path.startsWith(PREFIX) || path.length === PREFIX.length) {
      problem(`only fields of the event's object can be set: write data.object.<field>`)
      continue
    }
    const segments = path.slice(PREFIX.length).split('.')
    if (segments.some((s) => s === '')) {
      problem('has an empty segment')
      continue
    }
    // Never a path into an object's prototype.
    if (segments.some((s) => UNSAFE.has(s))) {
      problem('names a field no event object has')
      continue
    }
    const found = schemaAt(eventObjectSchemas[type], segments)
    if ('missing' in found) {
      problem(`is not a field of this object${found.known}`)
      continue
    }
    const parsed = found.schema.safeParse(value)
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        details.push({
          field: [path, ...issue.path].join('.'),
          message: humanMessage(issue, value, true),
          location: 'body',
        })
    }
  }
  return details
}

/** The object with the overrides set (a copy; intermediate objects are made as needed). */
export function applyOverrides(object: Record<string, unknown>, overrides: EventOverrides) {
  const next = structuredClone(object)
  for (const [path, value] of Object.entries(overrides)) {
    const segments = path.slice(PREFIX.length).split('.')
    let at: Record<string, unknown> = next
    for (const segment of segments.slice(0, -1)) {
      const child = at[segment]
      if (child === null || typeof child !== 'object') at[segment] = {}
      at = at[segment] as Record<string, unknown>
    }
    at[segments[segments.length - 1] as string] = value
  }
  return next
}

/** Checks the object the overrides produced; throws the 400 when it does not fit its type. */
export function requireValidObject(type: EventType, object: Record<string, unknown>) {
  const parsed = eventObjectSchemas[type].safeParse(object)
  if (parsed.success) return
  throw overridesRefused(
    parsed.error.issues.map((issue) => ({
      field: [PREFIX.slice(0, -1), ...issue.path].join('.'),
      message: humanMessage(issue, valueAt(object, issue.path), true),
      location: 'body',
    })),
    type,
  )
}

export function overridesRefused(details: ErrorDetail[], type: EventType) {
  const first = details[0] as ErrorDetail
  return new ApiError('validation_error', `${type} overrides: ${first.field} ${first.message}`, {
    details: details.map((d) => ({ ...d, field: `overrides.${d.field}` })),
  })
}

type Found = { schema: z.ZodType } | { missing: string; known: string }

/** The schema of the value at `segments` inside `schema`, through objects, arrays and records. */
function schemaAt(schema: z.ZodType, segments: string[]): Found {
  let current = schema
  for (const [i, segment] of segments.entries()) {
    current = unwrap(current)
    const def = (current as unknown as { def: { type: string } }).def
    const here = segments.slice(0, i + 1).join('.')
    if (def.type === 'object') {
      const shape = (current as unknown as { shape: Record<string, z.ZodType> }).shape
      const next = Object.hasOwn(shape, segment) ? shape[segment] : undefined
      if (!next) return { missing: here, known: ` (its fields: ${Object.keys(shape).join(', ')})` }
      current = next
    } else if (def.type === 'array' && /^\d+$/.test(segment)) {
      current = (current as unknown as { element: z.ZodType }).element
    } else if (def.type === 'record') {
      current = (current as unknown as { valueType: z.ZodType }).valueType
    } else if (def.type === 'unknown' || def.type === 'any') {
      return { schema: current }
    } else {
      return {
        missing: here,
        known: ` (data.object.${segments.slice(0, i).join('.')} is not an object)`,
      }
    }
  }
  return { schema: current }
}

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema as unknown as { def: { type: string }; unwrap?: () => unknown }
  while (['nullable', 'optional', 'default'].includes(current.def.type) && current.unwrap)
    current = current.unwrap() as typeof current
  return current as unknown as z.ZodType
}

function valueAt(object: unknown, path: PropertyKey[]): unknown {
  let at = object
  for (const key of path) at = (at as Record<PropertyKey, unknown> | null)?.[key]
  return at
}
