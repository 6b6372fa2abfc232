import { test as base } from '@playwright/test'
import { createControlClient, type SandboxPartnerHandle } from 'partner-sandbox'
import { type PartnerApp, startPartnerApp } from './app/server.js'

interface WorkerFixtures {
  /** This worker's own sandbox partner: its data, clock and webhooks are its alone. */
  partner: SandboxPartnerHandle
  /** This worker's instance of the partner app, holding that partner's org secret. */
  app: PartnerApp
}

let users = 0

export interface Applicant extends Record<string, string> {
  email: string
  phone_number: string
  first_name: string
  last_name: string
  password: string
  ssn: string
  date_of_birth: string
}

export const test = base.extend<{ newUser: () => Applicant }, WorkerFixtures>({
  app: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads fixture needs from this pattern
    async ({}, use) => {
      const app = await startPartnerApp(process.env.SANDBOX_URL as string)
      await use(app)
      await app.close()
    },
    { scope: 'worker' },
  ],
  partner: [
    async ({ app }, use, workerInfo) => {
      const control = createControlClient(process.env.SANDBOX_URL as string, {
        adminToken: process.env.SANDBOX_ADMIN_TOKEN,
      })
      const partner = await control.createPartner({
        name: `e2e worker ${workerInfo.workerIndex}`,
        allowed_origins: [app.url],
        webhook_url: `${app.url}/webhooks`,
      })
      app.configure({
        apiKey: partner.apiKey,
        apiSecret: partner.apiSecret,
        webhookSecret: partner.webhookSecret as string,
      })
      await use(partner)
      await partner.delete().catch(() => {})
    },
    { scope: 'worker', auto: true },
  ],
  /** Sign-up details of a fresh applicant; override the SSN or last name for a decision. */
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads fixture needs from this pattern
  newUser: async ({}, use, testInfo) => {
    await use(() => {
      users++
      return {
        email: `e2e-w${testInfo.workerIndex}-${users}-${Date.now()}@example.test`,
        phone_number: '+14155550123',
        first_name: 'Jamie',
        last_name: 'Doe',
        password: 'E2e-Passw0rd!',
        ssn: '123-45-6789',
        date_of_birth: '1990-04-12',
      }
    })
  },
})

export { expect } from '@playwright/test'
