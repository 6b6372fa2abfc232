import { expect, test } from '../fixtures.js'
import { enterEmailedCode, signUp } from './steps.js'

test.describe('the emailed code expires after 10 minutes of this worker’s time', () => {
  test('refuses the code once the partner clock moved 11 minutes; a new code works', async ({
    page,
    app,
    partner,
    newUser,
  }) => {
    const user = newUser()
    await signUp(page, app.url, user)
    // The inbox shows a code only while it can be used: the user read it before it expired.
    const code = await partner.inbox.latestCode(user.email)
    // Only this worker's partner moves: the other worker's codes and sessions stay valid.
    await partner.clock.advance('11m')
    await expect(partner.inbox.latestCode(user.email)).rejects.toThrow(/expired/)
    await enterEmailedCode(page, partner, user.email, code)
    await expect(page.getByTestId('otp-error')).toContainText(/expired/i)
    await expect(page.getByTestId('home')).toBeHidden()

    await page.getByTestId('otp-resend').click()
    await expect(page.getByTestId('otp-error')).toHaveText('A new code is on its way.')
    await enterEmailedCode(page, partner, user.email)
    await expect(page.getByTestId('home')).toBeVisible()
  })
})
