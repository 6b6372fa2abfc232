import { expect, test } from '../fixtures.js'
import { answerUnderwritingAndAccept, confirmIdentity, enterEmailedCode, signUp } from './steps.js'

test('signs up, onboards in the iframe, funds the card; the signed webhooks reach the app', async ({
  page,
  app,
  partner,
  newUser,
}) => {
  const user = newUser()
  await signUp(page, app.url, user)
  await enterEmailedCode(page, partner, user.email)
  await expect(page.getByTestId('home')).toBeVisible()
  await expect(page.getByTestId('card-status')).toHaveText('none')

  // Only events after this one count: earlier tests of this worker made their own.
  const after = (await partner.webhooks.latest())?.id
  await page.getByTestId('start-onboarding').click()
  await confirmIdentity(page)
  await answerUnderwritingAndAccept(page)

  // The hosted page's postMessage reached the app, which completed the onboarding.
  await expect(page.getByTestId('onboarding-result')).toHaveAttribute('data-outcome', 'approved')
  await expect(page.getByTestId('card-status')).toHaveText('active')
  await expect(page.getByTestId('kyc-status')).toHaveText('approved')

  await page.getByTestId('fund').click()
  await expect(page.getByTestId('balance')).toHaveText('25')
  expect(
    await partner.requests.count({
      method: 'POST',
      path: '/api/v1/partner/cards/simulate-fund',
      status: 200,
    }),
  ).toBe(1)

  // Waits (long-poll, no loop) until the app's endpoint answered 2xx to card.created.
  const { event } = await partner.webhooks.waitForDelivery('card.created', { after })
  const cardId = String(event.data.object.id)
  await page.getByTestId('refresh-webhooks').click()
  await expect(page.getByTestId('webhooks')).toContainText(
    `card.created ${cardId} (signature verified)`,
  )
  const funded = await partner.webhooks.waitForDelivery('card.funded', { after })
  expect(funded.delivery?.status).toBe('succeeded')
})
