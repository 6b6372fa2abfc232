import type { Contract } from './contract.js'

/** One exchange as the proxy saw it: the partner's request and the upstream's answer. */
export interface Exchange {
  method: string
  /** Path without the query. */
  path: string
  requestHeaders: Headers
  requestBody: string
  status: number
  responseHeaders: Headers
  responseBody: string
}

/** One way an exchange differs from the sandbox's contract. */
export interface Difference {
  /** The contract's operationId, or `unknown` when no operation has this method and path. */
  operation: string
  method: string
  /** The contract's path template, or the path itself when unknown. */
  path: string
  status: number
  side: 'request' | 'response'
  kind: 'operation' | 'status' | 'field' | 'type' | 'header'
  /** `body.lithic_consumer_id`, `header X-Request-Id`, `status 418`. */
  where: string
  message: string
}

const isJson = (headers: Headers) =>
  /^application\/(?:[\w.+-]*\+)?json/i.test(headers.get('content-type') ?? '')

const parse = (text: string): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

/** Every difference of `exchange` from `contract`, request first, then the answer. */
export function differencesOf(contract: Contract, exchange: Exchange): Difference[] {
  const operation = contract.match(exchange.method, exchange.path)
  const base = {
    operation: operation?.id ?? 'unknown',
    method: exchange.method,
    path: operation?.template ?? exchange.path,
    status: exchange.status,
  }
  if (!operation) {
    return [
      {
        ...base,
        side: 'request',
        kind: 'operation',
        where: `${exchange.method} ${exchange.path}`,
        message: 'no operation of the contract has this method and path',
      },
    ]
  }
  const out: Difference[] = []
  const body = (side: 'request' | 'response', schema: unknown, headers: Headers, text: string) => {
    if (!schema || !isJson(headers) || text === '') return
    const parsed = parse(text)
    if (!parsed.ok) {
      out.push({ ...base, side, kind: 'type', where: 'body', message: 'not valid JSON' })
      return
    }
    for (const p of contract.problems(schema, parsed.value, 'body'))
      out.push({ ...base, side, ...p })
  }
  const requestSchema = operation.spec.requestBody?.content?.['application/json']?.schema
  body('request', requestSchema, exchange.requestHeaders, exchange.requestBody)

  const response = contract.response(operation, exchange.status)
  if (!response) {
    out.push({
      ...base,
      side: 'response',
      kind: 'status',
      where: `status ${exchange.status}`,
      message: `not a status of ${operation.id}: the contract has ${Object.keys(operation.spec.responses ?? {}).join(', ')}`,
    })
    return out
  }
  for (const [name, ref] of Object.entries(response.headers ?? {})) {
    const header = contract.header(ref)
    if (header?.required && !exchange.responseHeaders.has(name)) {
      out.push({
        ...base,
        side: 'response',
        kind: 'header',
        where: `header ${name}`,
        message: 'missing: the contract requires it',
      })
    }
  }
  const media = response.content?.['application/json']
  body('response', media?.schema, exchange.responseHeaders, exchange.responseBody)
  return out
}
