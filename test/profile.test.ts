import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  acme,
  bearer,
  type Call,
  loginAs,
  northwind,
  orgHeaders,
  registerAndLogin,
  setup,
  type TestSandbox,
  tempDirForTest,
} from './helpers.js'

const ME = '/api/v1/partner/users/me'
const PICTURE = '/api/v1/partner/users/me/profile-picture'
const NORTHWIND_ID = '0d4f5a8c-3b7e-4f21-8c6d-9e2a1b3c4d5f'

const userFields = [
  'id',
  'partner_id',
  'email',
  'phone_number',
  'first_name',
  'last_name',
  'date_of_birth',
  'address',
  'secondary_address',
  'provider_consumer_id',
  'kyc_status',
  'metadata',
  'is_active',
  'created_at',
  'updated_at',
]

const fields = (res: { json: { error?: { details?: { field: string }[] } } }) =>
  (res.json.error?.details ?? []).map((d) => d.field)

const me = (call: Call, token: string) => call('GET', ME, { headers: bearer(token) })
const patchMe = (call: Call, token: string, body: unknown) =>
  call('PATCH', ME, { headers: bearer(token), body })

// A real 1×1 PNG, a JPEG (SOI + JFIF APP0 + EOI) and a real 1×1 lossless WebP.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
)
const JPEG = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01,
  0x00, 0x01, 0x00, 0x00, 0xff, 0xd9,
])
const WEBP = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64')

/** PNG signature followed by zero bytes, `size` bytes long. */
const pngOfSize = (size: number) => Buffer.concat([PNG.subarray(0, 8), Buffer.alloc(size - 8)])

type Sandbox = TestSandbox['sandbox']

function pictureForm(bytes: Uint8Array, name: string, type: string, field = 'profile_picture') {
  const form = new FormData()
  form.append(field, new File([bytes], name, { type }))
  return form
}

/** PATCH of the profile picture straight through app.request, so FormData sets its own boundary. */
async function upload(
  sandbox: Sandbox,
  token: string | null,
  body: FormData | string,
  headers: Record<string, string> = {},
) {
  const res = await sandbox.app.request(PICTURE, {
    method: 'PATCH',
    body,
    headers: { ...orgHeaders(acme), ...(token ? bearer(token) : {}), ...headers },
  })
  const text = await res.text()
  return { status: res.status, json: text ? JSON.parse(text) : undefined, text }
}

/** GET of the path part of a returned URL, with no credentials at all. */
async function fetchPicture(sandbox: Sandbox, url: string) {
  const res = await sandbox.app.request(new URL(url).pathname)
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    nosniff: res.headers.get('x-content-type-options'),
    bytes: Buffer.from(await res.arrayBuffer()),
  }
}

describe('GET /partner/users/me', () => {
  it('answers the spec user record and never the ssn or the password hash', async () => {
    // A fixed seed keeps the generated ids the same on every run, so the digit check below is stable.
    const { call } = await setup({ seed: 42 })
    const { user, userId, token } = await registerAndLogin(call, {
      email: 'Grace.Hopper@Example.test',
      phone_number: '(415) 555-0142',
      ssn: '731-52-8046',
      first_name: 'Grace',
      last_name: 'Hopper',
      date_of_birth: '1986-12-09',
    })
    const res = await me(call, token)
    expect(res.status).toBe(200)
    for (const field of userFields) expect(res.json).toHaveProperty(field)
    expect(res.json).toMatchObject({
      id: userId,
      partner_id: (await call('GET', '/api/v1/partner/me')).json.partner.id,
      email: 'grace.hopper@example.test',
      phone_number: '+14155550142',
      first_name: 'Grace',
      last_name: 'Hopper',
      date_of_birth: '1986-12-09',
      address: {},
      secondary_address: {},
      metadata: {},
      is_active: true,
      profile_picture_url: null,
    })
    expect(typeof res.json.kyc_status).toBe('string')
    expect(Number.isNaN(Date.parse(res.json.created_at))).toBe(false)
    expect(Number.isNaN(Date.parse(res.json.updated_at))).toBe(false)
    for (const secret of ['ssn', 'ssn_last4', 'password', 'password_hash'])
      expect(res.json).not.toHaveProperty(secret)
    expect(res.text).not.toContain('731528046')
    expect(res.text).not.toContain(user.ssn)
    expect(res.text).not.toContain('8046')
    expect(res.text).not.toMatch(/ssn|scrypt\$|password/i)
  })

  it('needs a Bearer session and the organization credentials', async () => {
    const { call } = await setup()
    const { token } = await registerAndLogin(call)
    expect((await call('GET', ME)).status).toBe(401)
    expect((await call('GET', ME, { creds: null, headers: bearer(token) })).status).toBe(401)
    // A token is bound to the partner it was issued under.
    expect((await call('GET', ME, { creds: northwind, headers: bearer(token) })).status).toBe(401)
  })
})

describe('PATCH /partner/users/me', () => {
  it('updates every editable field, and GET shows them', async () => {
    const { call, sandbox } = await setup()
    const { token } = await registerAndLogin(call)
    const before = (await me(call, token)).json
    await sandbox.clock.advance(60_000)
    const body = {
      first_name: 'Ada',
      last_name: 'Lovelace',
      date_of_birth: '1985-12-10',
      address: {
        line1: '1 Main St',
        line2: 'Apt 2',
        city: 'Springfield',
        state: 'IL',
        zip: '62701',
        country_code: 'US',
      },
      secondary_address: { line1: 'PO Box 9', city: 'Chicago', state: 'IL', zip: '60601' },
      metadata: { crm_id: 'c-123', tier: 2, vip: true },
    }
    const res = await patchMe(call, token, body)
    expect(res.status).toBe(200)
    expect(res.json).toMatchObject(body)
    expect(res.json).toMatchObject({
      id: before.id,
      partner_id: before.partner_id,
      email: before.email,
      phone_number: before.phone_number,
      created_at: before.created_at,
    })
    expect(Date.parse(res.json.updated_at)).toBeGreaterThan(Date.parse(before.updated_at))
    expect(res.json).not.toHaveProperty('ssn')
    expect((await me(call, token)).json).toEqual(res.json)
  })

  it('merges metadata key by key; a key set to null is removed', async () => {
    const { call } = await setup()
    const { token } = await registerAndLogin(call)
    await patchMe(call, token, { metadata: { tier: 'gold', score: 7, vip: true } })
    const res = await patchMe(call, token, {
      metadata: { score: null, tier: 'silver', note: 'hi' },
    })
    expect(res.status).toBe(200)
    expect(res.json.metadata).toEqual({ tier: 'silver', vip: true, note: 'hi' })
    const after = (await me(call, token)).json
    expect(after.metadata).toEqual({ tier: 'silver', vip: true, note: 'hi' })
    // A patch without metadata leaves it alone.
    const other = await patchMe(call, token, { first_name: 'Zed' })
    expect(other.json.metadata).toEqual({ tier: 'silver', vip: true, note: 'hi' })
  })

  it.each([
    ['id', '3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d'],
    ['partner_id', NORTHWIND_ID],
    ['email', 'someone.else@example.test'],
    ['phone_number', '+14155550199'],
  ])('refuses to change %s: 400 naming it, and nothing changes', async (field, value) => {
    const { call } = await setup()
    const { token } = await registerAndLogin(call)
    const before = (await me(call, token)).json
    const res = await patchMe(call, token, { first_name: 'Changed', [field]: value })
    expect(res.status).toBe(400)
    expect(res.json.error.code).toBe('validation_error')
    expect(fields(res)).toEqual([field])
    expect((await me(call, token)).json).toEqual(before)
  })

  it.each([
    'nickname',
    'ssn',
    'password',
    'kyc_status',
    'is_active',
    'provider_consumer_id',
    'created_at',
    'profile_picture_url',
  ])('rejects the non-editable or unknown field %s with a 400 naming it', async (field) => {
    const { call } = await setup()
    const { token } = await registerAndLogin(call)
    const before = (await me(call, token)).json
    const res = await patchMe(call, token, { last_name: 'Changed', [field]: 'x' })
    expect(res.status).toBe(400)
    expect(fields(res)).toEqual([field])
    expect((await me(call, token)).json).toEqual(before)
  })

  it('rejects a date_of_birth under 18 years on the sandbox clock, and accepts exactly 18', async () => {
    // Sandbox time is years ahead of the machine: only the sandbox clock makes 2012 births adults.
    const { call } = await setup({}, { frozenAt: Date.parse('2030-06-15T12:00:00Z') })
    const { token } = await registerAndLogin(call)
    const before = (await me(call, token)).json
    const young = await patchMe(call, token, { date_of_birth: '2012-06-16' })
    expect(young.status).toBe(400)
    expect(fields(young)).toEqual(['date_of_birth'])
    expect((await me(call, token)).json).toEqual(before)
    const adult = await patchMe(call, token, { date_of_birth: '2012-06-15' })
    expect(adult.status).toBe(200)
    expect(adult.json.date_of_birth).toBe('2012-06-15')
  })

  it.each(['2001-02-30', '2001-02-29', '2001-13-01', '1990/04/12', '12-04-1990'])(
    'rejects the invalid date_of_birth %s',
    async (date) => {
      const { call } = await setup()
      const { token } = await registerAndLogin(call)
      const before = (await me(call, token)).json
      const res = await patchMe(call, token, { date_of_birth: date })
      expect(res.status).toBe(400)
      // A malformed string gets two messages (pattern and calendar), both on date_of_birth.
      expect([...new Set(fields(res))]).toEqual(['date_of_birth'])
      expect((await me(call, token)).json).toEqual(before)
    },
  )

  it.each([
    ['address', 'street'],
    ['secondary_address', 'floor'],
  ])('rejects %s with an unknown key, naming it', async (field, key) => {
    const { call } = await setup()
    const { token } = await registerAndLogin(call)
    const before = (await me(call, token)).json
    const res = await patchMe(call, token, { [field]: { line1: '1 Main St', [key]: 'x' } })
    expect(res.status).toBe(400)
    expect(fields(res)).toEqual([`${field}.${key}`])
    expect((await me(call, token)).json).toEqual(before)
  })

  it('needs a Bearer session', async () => {
    const { call } = await setup()
    const { token } = await registerAndLogin(call)
    const res = await call('PATCH', ME, { body: { first_name: 'Mallory' } })
    expect(res.status).toBe(401)
    expect((await me(call, token)).json.first_name).not.toBe('Mallory')
  })
})

describe('PATCH /partner/users/me/profile-picture', () => {
  it.each([
    ['PNG bytes named photo.txt as text/plain', PNG, 'photo.txt', 'text/plain', 'image/png'],
    ['JPEG bytes named avatar.png as image/png', JPEG, 'avatar.png', 'image/png', 'image/jpeg'],
    ['WebP bytes named picture.gif as image/gif', WEBP, 'picture.gif', 'image/gif', 'image/webp'],
  ])(
    'accepts %s and serves it as what it really is',
    async (_name, bytes, file, declared, real) => {
      const { call, sandbox } = await setup()
      const { token } = await registerAndLogin(call)
      const res = await upload(sandbox, token, pictureForm(bytes, file, declared))
      expect(res.status).toBe(200)
      const url = res.json.profile_picture_url
      expect(url).toMatch(/^https?:\/\/[^/]+\/files\/[^/]+$/)

      const served = await fetchPicture(sandbox, url)
      expect(served.status).toBe(200)
      expect(served.type).toBe(real)
      expect(served.nosniff).toBe('nosniff')
      expect(served.bytes.equals(bytes)).toBe(true)

      expect((await me(call, token)).json.profile_picture_url).toBe(url)
    },
  )

  it('a new picture replaces the previous one in the profile', async () => {
    const { call, sandbox } = await setup()
    const { token } = await registerAndLogin(call)
    const first = await upload(sandbox, token, pictureForm(PNG, 'a.png', 'image/png'))
    const second = await upload(sandbox, token, pictureForm(JPEG, 'b.jpg', 'image/jpeg'))
    expect(second.status).toBe(200)
    expect(second.json.profile_picture_url).not.toBe(first.json.profile_picture_url)
    expect((await me(call, token)).json.profile_picture_url).toBe(second.json.profile_picture_url)
    expect((await fetchPicture(sandbox, second.json.profile_picture_url)).bytes.equals(JPEG)).toBe(
      true,
    )
  })

  it('refuses a text file named evil.png with a 415 and keeps the current picture', async () => {
    const { call, sandbox } = await setup()
    const { token } = await registerAndLogin(call)
    const good = await upload(sandbox, token, pictureForm(PNG, 'me.png', 'image/png'))
    expect(good.status).toBe(200)
    const text = Buffer.from('<?php echo "not an image"; ?>\n')
    const res = await upload(sandbox, token, pictureForm(text, 'evil.png', 'image/png'))
    expect(res.status).toBe(415)
    expect(res.json.error.code).toBe('unsupported_media_type')
    expect(fields(res)).toEqual(['profile_picture'])
    expect((await me(call, token)).json.profile_picture_url).toBe(good.json.profile_picture_url)
  })

  it('refuses a picture over the limit with a 413 and accepts one exactly at it', async () => {
    const { call, sandbox } = await setup({ pictureLimit: 1024 })
    const { token } = await registerAndLogin(call)
    const over = await upload(sandbox, token, pictureForm(pngOfSize(1025), 'big.png', 'image/png'))
    expect(over.status).toBe(413)
    expect(over.json.error.code).toBe('payload_too_large')
    expect((await me(call, token)).json.profile_picture_url).toBeNull()
    const huge = await upload(
      sandbox,
      token,
      pictureForm(pngOfSize(200 * 1024), 'huge.png', 'image/png'),
    )
    expect(huge.status).toBe(413)
    const at = await upload(sandbox, token, pictureForm(pngOfSize(1024), 'ok.png', 'image/png'))
    expect(at.status).toBe(200)
    expect((await fetchPicture(sandbox, at.json.profile_picture_url)).bytes.length).toBe(1024)
  })

  it('answers 400 naming profile_picture when the form has no such file', async () => {
    const { call, sandbox } = await setup()
    const { token } = await registerAndLogin(call)
    const otherField = pictureForm(PNG, 'me.png', 'image/png', 'avatar')
    const asText = new FormData()
    asText.append('profile_picture', 'not a file')
    for (const form of [otherField, asText, new FormData()]) {
      const res = await upload(sandbox, token, form)
      expect(res.status).toBe(400)
      expect(fields(res)).toEqual(['profile_picture'])
    }
    expect((await me(call, token)).json.profile_picture_url).toBeNull()
  })

  it('refuses a JSON body with a 415', async () => {
    const { call, sandbox } = await setup()
    const { token } = await registerAndLogin(call)
    const res = await upload(
      sandbox,
      token,
      JSON.stringify({ profile_picture: PNG.toString('base64') }),
      { 'content-type': 'application/json' },
    )
    expect(res.status).toBe(415)
    expect(res.json.error.code).toBe('unsupported_media_type')
    expect((await me(call, token)).json.profile_picture_url).toBeNull()
  })

  it('needs a Bearer session', async () => {
    const { call, sandbox } = await setup()
    const { token } = await registerAndLogin(call)
    const res = await upload(sandbox, null, pictureForm(PNG, 'me.png', 'image/png'))
    expect(res.status).toBe(401)
    expect(res.json.error.code).toBe('unauthorized')
    expect((await me(call, token)).json.profile_picture_url).toBeNull()
  })

  it('a snapshot carries the pictures: restored after a reset, their URLs serve the same bytes', async () => {
    const { call, sandbox } = await setup()
    const { token } = await registerAndLogin(call)
    const partnerId = (await call('GET', '/api/v1/partner/me')).json.partner.id as string
    const first = (await upload(sandbox, token, pictureForm(PNG, 'a.png', 'image/png'))).json
    const second = (await upload(sandbox, token, pictureForm(WEBP, 'b.webp', 'image/webp'))).json
    const urls = [first.profile_picture_url, second.profile_picture_url] as string[]
    const served = async () =>
      Promise.all(urls.map(async (url) => (await fetchPicture(sandbox, url)).status))
    const sameBytes = async () => {
      const [a, b] = await Promise.all(urls.map((url) => fetchPicture(sandbox, url)))
      expect(a?.type).toBe('image/png')
      expect(a?.bytes.equals(PNG)).toBe(true)
      expect(b?.type).toBe('image/webp')
      expect(b?.bytes.equals(WEBP)).toBe(true)
    }

    // One partner's snapshot: a reset of the partner removes its pictures, a restore brings them back.
    const own = await call('GET', `/_sandbox/partners/${partnerId}/snapshot`, { creds: null })
    expect(own.status).toBe(200)
    expect(Object.keys(own.json.collections.file_contents)).toHaveLength(2)
    const reset = await call('POST', `/_sandbox/partners/${partnerId}/reset`, { creds: null })
    expect(reset.status).toBe(200)
    expect(await served()).toEqual([404, 404])
    const back = await call('POST', `/_sandbox/partners/${partnerId}/snapshot`, {
      creds: null,
      body: own.json,
    })
    expect(back.status, back.text).toBe(200)
    await sameBytes()

    // The whole sandbox's snapshot: the same through a reset of everything.
    const all = await call('GET', '/_sandbox/snapshot', { creds: null })
    expect((await call('POST', '/_sandbox/reset', { creds: null })).status).toBe(200)
    expect(await served()).toEqual([404, 404])
    const restored = await call('POST', '/_sandbox/snapshot', { creds: null, body: all.json })
    expect(restored.status, restored.text).toBe(200)
    await sameBytes()
  })

  it('an unknown file id is a 404', async () => {
    const { sandbox } = await setup()
    const res = await sandbox.app.request('/files/file_doesNotExist123')
    expect(res.status).toBe(404)
  })
})

describe('profile pictures with a data file', () => {
  it('still serve the same bytes after the sandbox is closed and reopened', async () => {
    const dir = tempDirForTest('sandbox-pictures-')
    const data = join(dir, 'state.json')

    const first = await setup({ data })
    const { user, token } = await registerAndLogin(first.call)
    const res = await upload(first.sandbox, token, pictureForm(WEBP, 'me.webp', 'image/webp'))
    expect(res.status).toBe(200)
    const url = res.json.profile_picture_url
    await first.sandbox.close()

    // In the data file with its row: no folder beside it (an earlier version's `.files`).
    expect(existsSync(`${data}.files`)).toBe(false)

    const second = await setup({ data })
    const served = await fetchPicture(second.sandbox, url)
    expect(served.status).toBe(200)
    expect(served.type).toBe('image/webp')
    expect(served.bytes.equals(WEBP)).toBe(true)
    const again = await loginAs(second.call, user.email, user.password)
    expect((await me(second.call, again)).json.profile_picture_url).toBe(url)
  })

  it('still serve the same bytes when the restart reads them from a compacted snapshot', async () => {
    const dir = tempDirForTest('sandbox-pictures-')
    const data = join(dir, 'state.json')

    const first = await setup({ data })
    const { token } = await registerAndLogin(first.call)
    const big = pngOfSize(300 * 1024)
    const res = await upload(first.sandbox, token, pictureForm(big, 'big.png', 'image/png'))
    expect(res.status).toBe(200)
    await first.sandbox.store.compact()
    await first.sandbox.close()

    const second = await setup({ data })
    const served = await fetchPicture(second.sandbox, res.json.profile_picture_url)
    expect(served.status).toBe(200)
    expect(served.type).toBe('image/png')
    expect(served.bytes.equals(big)).toBe(true)
  })
})
