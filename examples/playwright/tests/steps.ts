import type { Page } from '@playwright/test'
import type { SandboxPartnerHandle } from 'partner-sandbox'
import { expect } from '../fixtures.js'

/** Signs up through the app's page and stops at the code form (the code is emailed). */
export async function signUp(page: Page, appUrl: string, user: Record<string, string>) {
  await page.goto(appUrl)
  const form = page.getByTestId('signup-form')
  for (const [name, value] of Object.entries(user))
    await form.locator(`[name="${name}"]`).fill(value)
  await page.getByTestId('signup-submit').click()
  await expect(page.getByTestId('otp-form')).toBeVisible()
}

/**
 * Types the code the sandbox "emailed" (read through the control client while it can be used),
 * or `code` when the test read it earlier.
 */
export async function enterEmailedCode(
  page: Page,
  partner: SandboxPartnerHandle,
  email: string,
  code?: string,
) {
  await page.getByTestId('otp-code').fill(code ?? (await partner.inbox.latestCode(email)))
  await page.getByTestId('otp-submit').click()
}

/** The hosted onboarding's identity step, inside the app's iframe. */
export async function confirmIdentity(page: Page) {
  const frame = page.frameLocator('#onboarding')
  await frame.getByTestId('identity-confirm').check()
  await frame.getByTestId('identity-submit').click()
}

/** Underwriting and the agreement, after identity passed. */
export async function answerUnderwritingAndAccept(page: Page) {
  const frame = page.frameLocator('#onboarding')
  await frame.getByTestId('employment-status').selectOption('employed')
  await frame.getByTestId('annual-income').selectOption('50k_100k')
  await frame.getByTestId('source-of-funds').selectOption('salary')
  await frame.getByTestId('underwriting-submit').click()
  await frame.getByTestId('agreement-accept').check()
  await frame.getByTestId('agreement-submit').click()
}
