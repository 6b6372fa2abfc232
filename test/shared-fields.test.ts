/**
 * The fields a stored row and the API both describe are written once (src/schemas/fields.ts).
 * The store is imported first here on purpose: it loads without the OpenAPI extension, and the
 * API schemas must still document the shared fields whichever module loads first.
 */
import { describe, expect, it } from 'vitest'
import { cardRow, collectionSchemas, onboardingRow, userRow } from '../src/store/records.js'
import { transactionRow } from '../src/store/records-money.js'
import { setup } from './helpers.js'

type Schema = { properties: Record<string, { enum?: unknown[]; example?: unknown }> }

describe('fields shared by stored rows and the OpenAPI document', () => {
  it('documents the same statuses and types that a data file may hold', async () => {
    const { call } = await setup()
    const schemas = (await call('GET', '/openapi.json', { creds: null })).json.components
      .schemas as Record<string, Schema>
    const options = (field: { options: readonly unknown[] }) => [...field.options]

    expect(schemas.Card?.properties.status?.enum).toEqual(options(cardRow.shape.status))
    expect(schemas.Transaction?.properties.type?.enum).toEqual(options(transactionRow.shape.type))
    expect(schemas.Transaction?.properties.status?.enum).toEqual(
      options(transactionRow.shape.status),
    )
    expect(schemas.OnboardingProgress?.properties.status?.enum).toEqual(
      options(onboardingRow.shape.status),
    )
    expect(schemas.Delivery?.properties.status?.enum).toEqual(
      options(collectionSchemas.webhook_deliveries.shape.status),
    )
    expect(schemas.Partner?.properties.status?.enum).toEqual(
      options(collectionSchemas.partners.shape.status),
    )
    // Documented on a copy of the shared field, though the store's fields loaded first.
    expect(schemas.User?.properties.kyc_status?.example).toBe('approved')
  })

  it('shows a user as its stored row without the secrets, in the same order', async () => {
    const { call } = await setup()
    const user = (await call('GET', '/openapi.json', { creds: null })).json.components.schemas
      .User as Schema
    const rowKeys = Object.keys(userRow.shape)
    expect(Object.keys(user.properties)).toEqual(
      rowKeys.filter((key) => key !== 'password_hash' && key !== 'ssn_last4'),
    )
    expect(rowKeys).toContain('password_hash')
    expect(rowKeys).toContain('ssn_last4')
  })
})
