import { expect, test } from '../fixtures.js'
import { confirmIdentity, enterEmailedCode, signUp } from './steps.js'

test('declines KYC for the magic SSN 000000001: no card, onboarding.failed', async ({
  page,
  app,
  partner,
  newUser,
}) => {
  const user = newUser()
  user.ssn = '000000001'
  await signUp(page, app.url, user)
  await enterEmailedCode(page, partner, user.email)
  const after = (await partner.webhooks.latest())?.id

  await page.getByTestId('start-onboarding').click()
  await confirmIdentity(page)
  // The flow ends right after identity; the app completes it as failed.
  await expect(page.getByTestId('onboarding-result')).toHaveAttribute('data-outcome', 'declined')
  await expect(page.getByTestId('card-status')).toHaveText('none')
  const failed = await partner.webhooks.waitFor('onboarding.failed', { after })
  expect(failed.type).toBe('onboarding.failed')
  expect(await partner.requests.count({ path: '/api/v1/partner/cards/simulate-fund' })).toBe(0)
})
