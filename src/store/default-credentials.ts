/**
 * The fixed test credentials of the bundled fixture partners, printed in the README and the
 * start-up banner. They are sandbox-only (`pk_test_`/`sk_test_`) and only their hashes are
 * in fixtures/default.json; the plain values live here so the banner can show them.
 */
export const DEFAULT_PARTNER = {
  id: '6f1c2b1e-6c8a-4d3e-9a51-2d7f0c9b8e10',
  name: 'Acme Fintech',
  display_name: 'Acme Fintech',
  slug: 'acme-fintech',
  api_key: 'pk_test_acme_sandbox_default_key',
  api_secret: 'sk_test_acme_sandbox_default_secret',
} as const

export const SECOND_PARTNER = {
  id: '0d4f5a8c-3b7e-4f21-8c6d-9e2a1b3c4d5f',
  name: 'Northwind Cards',
  display_name: 'Northwind Cards',
  slug: 'northwind-cards',
  api_key: 'pk_test_northwind_sandbox_key',
  api_secret: 'sk_test_northwind_sandbox_secret',
} as const

/** Password of every fixture user. */
export const FIXTURE_PASSWORD = 'Sandbox-Passw0rd!'
