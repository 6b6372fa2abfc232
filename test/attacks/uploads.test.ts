import { describe, expect, it } from 'vitest'
import { acme, bearer, orgHeaders, registerAndLogin, setup } from '../helpers.js'

/**
 * A profile picture is recognised by its magic bytes alone, so what follows them is the
 * uploader's: HTML and script behind a PNG signature. It must be served as something that
 * runs nothing in any browser that opens its public URL.
 */

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
const PAYLOAD =
  '<html><body><script>fetch("/_sandbox/reset",{method:"POST"})</script></body></html>'

describe('an uploaded picture carrying a script', () => {
  it('is served with nosniff, a CSP that runs nothing, and inline under a name of ours', async () => {
    const { sandbox, call } = await setup()
    const { token } = await registerAndLogin(call)
    const form = new FormData()
    const bytes = Buffer.concat([PNG_SIGNATURE, Buffer.from(PAYLOAD)])
    form.append('profile_picture', new File([bytes], 'x"; evil.html', { type: 'text/html' }))
    const uploaded = await sandbox.app.request('/api/v1/partner/users/me/profile-picture', {
      method: 'PATCH',
      body: form,
      headers: { ...orgHeaders(acme), ...bearer(token) },
    })
    expect(uploaded.status).toBe(200)
    const url = ((await uploaded.json()) as { profile_picture_url: string }).profile_picture_url
    const id = new URL(url).pathname.split('/').pop()

    const served = await sandbox.app.request(new URL(url).pathname)
    expect(served.status).toBe(200)
    expect(served.headers.get('content-type')).toBe('image/png')
    expect(served.headers.get('x-content-type-options')).toBe('nosniff')
    const csp = served.headers.get('content-security-policy') ?? ''
    const directives = new Map(
      csp.split(';').map((d) => {
        const [name = '', ...values] = d.trim().split(/\s+/)
        return [name, values.join(' ')] as const
      }),
    )
    expect(directives.get('default-src')).toBe("'none'")
    expect(directives.has('sandbox')).toBe(true)
    expect(directives.has('script-src')).toBe(false)
    // The uploader's file name never reaches the header.
    expect(served.headers.get('content-disposition')).toBe(`inline; filename="${id}.png"`)
    expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true)
  })
})
