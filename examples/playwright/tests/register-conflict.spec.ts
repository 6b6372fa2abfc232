import { expect, test } from '../fixtures.js'

const REGISTER = '/api/v1/partner/auth/register'

/**
 * A negative path the real service rarely gives on demand: register answers 409. A rule makes
 * it answer so for this one email (checked against the API's contract: a body
 * the 409 schema refuses would be refused here), and verification proves what the app sent,
 * and that it did not go on to log in.
 */
test('shows the card service’s message when register answers 409', async ({
  page,
  app,
  partner,
  newUser,
}) => {
  const user = newUser()
  const rule = await partner.rules.add({
    match: { method: 'POST', path: REGISTER, body: { email: user.email } },
    respond: {
      status: 409,
      body: {
        success: false,
        error: { code: 'conflict', message: 'An account with this email already exists.' },
        requestId: 'req_example_conflict',
      },
    },
    once: true,
  })

  await page.goto(app.url)
  const form = page.getByTestId('signup-form')
  for (const [name, value] of Object.entries(user))
    await form.locator(`[name="${name}"]`).fill(value)
  await page.getByTestId('signup-submit').click()

  await expect(page.getByTestId('signup-error')).toHaveText(
    'An account with this email already exists.',
  )
  await expect(page.getByTestId('otp-form')).toBeHidden()

  // The app sent this registration once, and the rule answered it.
  const sent = await partner.requests.verify(
    { method: 'POST', path: REGISTER, body: { email: user.email, first_name: user.first_name } },
    { times: 1 },
  )
  expect(sent.near_misses, 'what differed in the closest requests').toEqual([])
  expect(sent.matched).toBe(true)
  const [answered] = await partner.requests.find({ path: REGISTER, body: { email: user.email } })
  expect(answered?.rules).toEqual([
    { id: rule.id, effect: 'respond', status: 409, off_contract: false },
  ])
  // After a refused sign-up the app must not try to log in.
  const login = await partner.requests.verify(
    { path: '/api/v1/partner/auth/login', body: { email: user.email } },
    { times: 0 },
  )
  expect(login.matched).toBe(true)
  // once — the rule is gone, so the next attempt reaches the real service.
  expect(await partner.rules.list()).toEqual([])
})
