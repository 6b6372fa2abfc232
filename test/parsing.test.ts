import { describe, expect, it } from 'vitest'
import { type Call, setup } from './helpers.js'

/** The parsing decisions of docs/hardening.md ("Parsing decisions"), on the API and the control plane. */

const PATCH_ME = '/api/v1/partner/me'

async function send(call: Call, body: string | Buffer, contentType = 'application/json') {
  return call('PATCH', PATCH_ME, {
    raw: body as unknown as string,
    headers: { 'content-type': contentType },
  })
}

async function displayName(call: Call) {
  return (await call('GET', PATCH_ME)).json.partner.display_name as string
}

describe('JSON bodies', () => {
  it('a UTF-8 byte order mark is skipped', async () => {
    const { call } = await setup()
    const bytes = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('{"display_name":"Acme BOM"}'),
    ])
    const res = await send(call, bytes)
    expect(res.status, res.text).toBe(200)
    expect(await displayName(call)).toBe('Acme BOM')
  })

  it.each(['utf-8', 'UTF-8', 'utf8', '"utf-8"'])('charset=%s is accepted', async (charset) => {
    const { call } = await setup()
    const res = await send(call, '{"display_name":"Acme"}', `application/json; charset=${charset}`)
    expect(res.status, res.text).toBe(200)
  })

  it.each(['iso-8859-1', 'utf-16', 'windows-1252'])('charset=%s is a 415 naming it', async (cs) => {
    const { call } = await setup()
    const before = await displayName(call)
    const res = await send(call, '{"display_name":"Acme"}', `application/json; charset=${cs}`)
    expect(res.status).toBe(415)
    expect(res.json).toMatchObject({ success: false, error: { code: 'unsupported_media_type' } })
    expect(res.json.error.message).toContain(`charset=${cs}`)
    expect(await displayName(call)).toBe(before)
  })

  it('a duplicate key is a 400 naming it, at any depth, and changes nothing', async () => {
    const { call } = await setup()
    const before = await displayName(call)
    const flat = await send(call, '{"display_name":"A","display_name":"B"}')
    expect(flat.status).toBe(400)
    expect(flat.json.error.code).toBe('validation_error')
    expect(flat.json.error.details).toEqual([
      {
        field: 'display_name',
        message: expect.stringContaining('more than once'),
        location: 'body',
      },
    ])
    const nested = await send(call, '{"config":{"a":1,"b":{"c":1,"c":2}}}')
    expect(nested.status).toBe(400)
    expect(nested.json.error.details[0].field).toBe('config.b.c')
    const escaped = await send(call, '{"display_name":"A","display\\u005fname":"B"}')
    expect(escaped.json.error.details[0].field).toBe('display_name')
    expect(await displayName(call)).toBe(before)
  })

  it('the same key in different objects, and ":" inside strings, are fine', async () => {
    const { call } = await setup()
    const res = await send(call, '{"display_name":"say \\"x\\": 1","config":{"display_name":"y"}}')
    expect(res.status, res.text).toBe(200)
    expect(await displayName(call)).toBe('say "x": 1')
  })

  it('invalid UTF-8 is a 400, never stored with replacement characters', async () => {
    const { call } = await setup()
    const before = await displayName(call)
    for (const bad of [[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xe2, 0x82]]) {
      const bytes = Buffer.concat([
        Buffer.from('{"display_name":"A'),
        Buffer.from(bad),
        Buffer.from('"}'),
      ])
      const res = await send(call, bytes)
      expect(res.status, bad.join(',')).toBe(400)
      expect(res.json.error.message).toContain('UTF-8')
    }
    expect(await displayName(call)).toBe(before)
  })

  it('a lone surrogate in a text field is a 400 naming the field; a pair is fine', async () => {
    const { call } = await setup()
    const before = await displayName(call)
    for (const [body, field] of [
      ['{"display_name":"A\\ud800"}', 'display_name'],
      ['{"display_name":"\\udc00B"}', 'display_name'],
      ['{"config":{"list":["ok","\\uDBFF"]}}', 'config.list.1'],
      ['{"config":{"\\ud800":1}}', 'config.\ud800'],
    ] as const) {
      const res = await send(call, body)
      expect(res.status, body).toBe(400)
      expect(res.json.error.details[0].field).toBe(field)
      expect(res.json.error.message).toContain('surrogate')
    }
    expect(await displayName(call)).toBe(before)
    const pair = await send(call, '{"display_name":"Acme \\ud83d\\ude80"}')
    expect(pair.status).toBe(200)
    expect(await displayName(call)).toBe('Acme \u{1f680}')
  })

  it('the same rules hold on the control plane', async () => {
    const { call } = await setup()
    const dup = await call('POST', '/_sandbox/partners', {
      creds: null,
      raw: '{"name":"a","name":"b"}',
      headers: { 'content-type': 'application/json' },
    })
    expect(dup.status).toBe(400)
    expect(dup.json.error.details[0].field).toBe('name')
    const latin = await call('POST', '/_sandbox/partners', {
      creds: null,
      raw: '{"name":"a"}',
      headers: { 'content-type': 'application/json; charset=latin1' },
    })
    expect(latin.status).toBe(415)
  })
})
