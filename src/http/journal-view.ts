import type { Context } from 'hono'
import { queryOf } from '../domain/request-match.js'
import { type AppEnv, nodeRequest } from './app-env.js'
import type {
  Capture,
  JournalEntry,
  ShownCapture,
  ShownMessage,
  StoredEntry,
} from './journal-entry.js'
import { redactHeaders, redactValue } from './redact.js'

/** Request bodies declared larger than this are not kept (the JSON limit is 1 MiB). */
const KEEP_REQUEST_BYTES = 64 * 1024
/** A body shown by the journal is cut at this many characters of JSON or text. */
export const SHOWN_BODY_CHARS = 16 * 1024

export type JournalView = Omit<JournalEntry, 'at' | 'capture' | 'query' | 'rules'> & {
  at: string
  query: Record<string, string>
  rules: NonNullable<JournalEntry['rules']>
  request: ShownMessage | null
  response: ShownMessage | null
}

/**
 * What the journal keeps of an answered request. The control plane is not captured: its
 * answers contain earlier journal entries and snapshots.
 */
export function capture(c: Context<AppEnv>): Capture | undefined {
  if (c.req.path.startsWith('/_sandbox')) return undefined
  const incoming = nodeRequest(c)
  const served = incoming !== undefined
  const length = Number(c.req.header('content-length') ?? 0)
  return {
    requestHeaders: incoming?.rawHeaders ?? c.req.raw.headers,
    requestBody:
      length > KEEP_REQUEST_BYTES
        ? 'too_large'
        : (c.req.bodyCache as Record<string, Promise<unknown>>),
    // @hono/node-server's responses keep their body string and can be read again later; a
    // plain Response (app.request) is read by the caller, so the journal reads it first.
    response: c.res,
    served,
  }
}

const shownBody = (value: unknown) => {
  if (value === undefined || value === null) return { body: null, truncated: false }
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  if (text.length <= SHOWN_BODY_CHARS) return { body: value, truncated: false }
  return { body: text.slice(0, SHOWN_BODY_CHARS), truncated: true }
}

/** Routes read JSON bodies as text (to tell malformed JSON apart): show them parsed. */
const parsedIfJson = (text: unknown) => {
  if (typeof text !== 'string') return text
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

async function requestBody(cache: Capture['requestBody'], type: string): Promise<unknown> {
  if (cache === 'too_large') return '(not kept: larger than 64 KiB)'
  if (cache.json) return redactValue(await cache.json.catch(() => null))
  if (cache.text) return redactValue(parsedIfJson(await cache.text.catch(() => null)))
  // Bodies read as bytes (to check their encoding first) are shown when they are JSON or text.
  if (cache.arrayBuffer && /json|text|urlencoded/.test(type)) {
    const bytes = (await cache.arrayBuffer.catch(() => null)) as ArrayBuffer | null
    return bytes && redactValue(parsedIfJson(new TextDecoder().decode(bytes)))
  }
  if (cache.formData || cache.arrayBuffer || cache.blob) return '(binary or multipart: not kept)'
  return null
}

/** The answers whose bodies the journal shows. */
const SHOWN_TYPES = /json|text|html/

/** A response as the journal shows it; `text`, its body when it was read already. */
async function responseView(res: Response, text?: string): Promise<JournalView['response']> {
  const headers = redactHeaders(res.headers)
  const type = res.headers.get('content-type') ?? ''
  if (!SHOWN_TYPES.test(type)) return { headers, body: null, truncated: false }
  if (text === undefined) {
    try {
      text = await res.text()
    } catch {
      return { headers, body: '(streamed: not kept)', truncated: false }
    }
  }
  return { headers, ...bodyView(text, type) }
}

/**
 * For a journal written before the answer goes out (a database's), and for an answer given in
 * process (app.request, whose caller reads it): the body of an answer the journal shows is read
 * now, and the client is sent a response of the text read, with the same status and headers;
 * the capture keeps the text, and is shown from it when the journal needs it (showCapture). It
 * is so read once and never copied: a copy tees its body (the server then streams the original
 * instead of writing its text), and Node 20's Response.clone() kept a copy left unread alive
 * after both responses were dropped (test/in-process-memory.test.ts). A body that cannot be
 * read is left as it is: the view says it was not kept.
 */
export async function readAnswerFirst(c: Context<AppEnv>, kept: Capture): Promise<void> {
  const res = c.res
  if (!SHOWN_TYPES.test(res.headers.get('content-type') ?? '')) return
  let text: string
  try {
    text = await res.text()
  } catch {
    return
  }
  // Unset first: hono's setter would otherwise copy the old response's headers onto a
  // response made from the new one's body stream.
  c.res = undefined
  c.res = new Response(text, {
    status: res.status,
    statusText: res.statusText,
    headers: res.headers,
  })
  kept.response = c.res
  kept.text = text
}

/** A response's text as the journal shows it: parsed when JSON, redacted, cut. */
function bodyView(text: string, type: string): Omit<ShownMessage, 'headers'> {
  let body: unknown = text
  if (type.includes('json')) {
    try {
      body = JSON.parse(text)
    } catch {}
  }
  return shownBody(redactValue(body))
}

/** Node's raw list as Headers: repeats joined as a request's Headers joins them. */
function headersOf(raw: Capture['requestHeaders']): Headers {
  if (raw instanceof Headers) return raw
  const headers = new Headers()
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string)
  return headers
}

/** A capture as the journal shows it: headers and bodies redacted and cut, plain JSON. */
export async function showCapture(kept: Capture): Promise<ShownCapture> {
  const headers = redactHeaders(headersOf(kept.requestHeaders))
  const request = {
    headers,
    ...shownBody(await requestBody(kept.requestBody, headers['content-type'] ?? '')),
  }
  // A response body can be read once: the first view is kept with the capture it shows.
  kept.shown ??= responseView(kept.response, kept.text)
  return { request, response: await kept.shown }
}

/** The entry as the control plane shows it: ISO time, headers and bodies redacted. */
export function viewOf(entry: StoredEntry, shown: ShownCapture | undefined): JournalView {
  // The entry still names its capture (emptied when the journal took it out).
  const { at, query, capture: _, ...rest } = entry as JournalEntry
  return {
    ...rest,
    at: new Date(at).toISOString(),
    query: redactValue(queryOf(query ?? '')) as Record<string, string>,
    rules: entry.rules ?? [],
    request: shown?.request ?? null,
    response: shown?.response ?? null,
  }
}
