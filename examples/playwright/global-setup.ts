import { startSandbox } from 'partner-sandbox'

/**
 * One sandbox for the whole run, started through the programmatic API on a free port; the
 * workers reach it through SANDBOX_URL (environment set here is passed on to them).
 */
export default async function globalSetup() {
  const sandbox = await startSandbox({ port: 0, logLevel: 'warn', adminToken: 'e2e-admin' })
  process.env.SANDBOX_URL = sandbox.url
  process.env.SANDBOX_ADMIN_TOKEN = 'e2e-admin'
  return async () => {
    await sandbox.close()
  }
}
