/**
 * Operations that take no body (docs/hardening.md, "Parsing decisions"): a body sent to one
 * is read as JSON is read everywhere, so malformed JSON, invalid UTF-8, a key given twice or
 * a foreign charset get the same 400 or 415 as on any other operation, and a body with
 * anything in it is a 400 naming it; none of them changes anything. No body, an empty one or
 * `{}` is fine. The built-in sink, which keeps whatever it is sent, is not one of them.
 */
import { describe, expect, it } from 'vitest'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { acme, type Call, registerAndLogin, setup } from './helpers.js'

const json = 'application/json'

/** Bodies each refused the way every operation refuses them: status, code, field named. */
const refused: [string, string | Buffer, string, number, string, string | undefined][] = [
  ['malformed JSON', '{"a":', json, 400, 'validation_error', undefined],
  [
    'invalid UTF-8',
    Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
    json,
    400,
    'validation_error',
    'body',
  ],
  ['a key given twice', '{"a":1,"a":2}', json, 400, 'validation_error', 'a'],
  ['a field', '{"by":"10m"}', json, 400, 'validation_error', 'by'],
  ['a value that is not an object', '[1]', json, 400, 'validation_error', 'body'],
  ['null', 'null', json, 400, 'validation_error', 'body'],
  [
    'a body that is not JSON',
    'reset please',
    'text/plain',
    415,
    'unsupported_media_type',
    undefined,
  ],
  [
    'a charset other than UTF-8',
    '{}',
    `${json}; charset=iso-8859-1`,
    415,
    'unsupported_media_type',
    undefined,
  ],
]

async function send(
  call: Call,
  method: string,
  path: string,
  body: string | Buffer,
  type: string,
  headers: Record<string, string> = {},
) {
  return call(method, path, {
    creds: path.startsWith('/_sandbox') ? null : undefined,
    raw: body as unknown as string,
    headers: { 'content-type': type, ...headers },
  })
}

function expectRefusal(
  res: Awaited<ReturnType<Call>>,
  status: number,
  code: string,
  field?: string,
) {
  expect(res.status, res.text).toBe(status)
  expect(res.json).toMatchObject({ success: false, error: { code } })
  expect(res.json.requestId).toMatch(/^req_/)
  if (field) expect(res.json.error.details.map((d: { field: string }) => d.field)).toContain(field)
}

describe('a body on an operation that takes none', () => {
  it.each(refused)(
    'POST /_sandbox/reset refuses %s and resets nothing',
    async (_, body, type, status, code, field) => {
      const { call } = await setup()
      const user = await registerAndLogin(call)
      expectRefusal(await send(call, 'POST', '/_sandbox/reset', body, type), status, code, field)
      // The user made before the refused reset is still there.
      expect((await call('GET', '/api/v1/partner/users/me', { headers: user.bearer })).status).toBe(
        200,
      )
    },
  )

  it.each(refused)(
    'POST /_sandbox/clock/unfreeze refuses %s and the clock stays frozen',
    async (_, body, type, status, code, field) => {
      const { call } = await setup()
      await call('POST', '/_sandbox/clock/freeze', { creds: null })
      expectRefusal(
        await send(call, 'POST', '/_sandbox/clock/unfreeze', body, type),
        status,
        code,
        field,
      )
      expect((await call('GET', '/_sandbox/clock', { creds: null })).json.frozen).toBe(true)
    },
  )

  it.each(refused)(
    'POST /partner/auth/logout refuses %s and the session lives on',
    async (_, body, type, status, code, field) => {
      const { call } = await setup()
      const user = await registerAndLogin(call)
      expectRefusal(
        await send(call, 'POST', '/api/v1/partner/auth/logout', body, type, user.bearer),
        status,
        code,
        field,
      )
      expect((await call('GET', '/api/v1/partner/users/me', { headers: user.bearer })).status).toBe(
        200,
      )
    },
  )

  it.each(refused)(
    'POST /partner/me/rotate-api-key refuses %s and the key stays',
    async (_, body, type, status, code, field) => {
      const { call } = await setup()
      expectRefusal(
        await send(call, 'POST', '/api/v1/partner/me/rotate-api-key', body, type),
        status,
        code,
        field,
      )
      const me = await call('GET', '/api/v1/partner/me', { creds: acme })
      expect(me.status).toBe(200)
      expect(me.json.partner.api_key).toBe(DEFAULT_PARTNER.api_key)
    },
  )

  it('words malformed JSON as every operation does', async () => {
    const { call } = await setup()
    const bodyless = await send(call, 'POST', '/_sandbox/reset', '{bad', json)
    const withBody = await send(call, 'POST', '/_sandbox/clock/advance', '{bad', json)
    expect(bodyless.json.error).toEqual(withBody.json.error)
  })

  it('is refused by DELETE too, and the partner control routes', async () => {
    const { call } = await setup()
    const partner = `/_sandbox/partners/${DEFAULT_PARTNER.id}`
    await call('POST', `${partner}/clock/freeze`, { creds: null })
    expectRefusal(
      await send(call, 'POST', `${partner}/clock/unfreeze`, '{"a":1,"a":1}', json),
      400,
      'validation_error',
      'a',
    )
    expect((await call('GET', `${partner}/clock`, { creds: null })).json.frozen).toBe(true)
    expectRefusal(
      await send(call, 'DELETE', '/_sandbox/inbox', '{"all":true}', json),
      400,
      'validation_error',
      'all',
    )
  })

  it('takes no body, an empty one, or {} (with a byte order mark too)', async () => {
    const { call } = await setup()
    await call('POST', '/_sandbox/clock/freeze', { creds: null })
    for (const body of ['', '{}', ' { } ', '\ufeff{}']) {
      await call('POST', '/_sandbox/clock/freeze', { creds: null })
      const res = await send(call, 'POST', '/_sandbox/clock/unfreeze', body, json)
      expect(res.status, JSON.stringify(body)).toBe(200)
      expect(res.json.frozen).toBe(false)
    }
    const bare = await call('POST', '/_sandbox/clock/unfreeze', { creds: null })
    expect(bare.status).toBe(200)
    const logout = await registerAndLogin(call)
    const out = await call('POST', '/api/v1/partner/auth/logout', {
      headers: logout.bearer,
      body: {},
    })
    expect(out.status, out.text).toBeLessThan(300)
  })

  it('leaves the sink, which keeps whatever it is sent, unparsed', async () => {
    const { call } = await setup()
    for (const body of ['{bad', '{"a":1,"a":2}', 'plain words']) {
      const res = await send(call, 'POST', '/_sandbox/sink/raw', body, 'text/plain')
      expect(res.status, res.text).toBe(200)
    }
    const kept = await call('GET', '/_sandbox/sink/raw', { creds: null })
    expect(kept.json.data.map((r: { body: string }) => r.body)).toEqual([
      'plain words',
      '{"a":1,"a":2}',
      '{bad',
    ])
  })
})
