import type { RuleRow } from '../src/rules/rule-schema.js'

/** A kept rule of `partnerId` (null: global), counted `times` (null: until removed). */
export const ruleRow = (
  id: string,
  partnerId: string | null,
  times: number | null = 1,
): RuleRow => ({
  id,
  partner_id: partnerId,
  match: { method: 'GET', path: '/api/v1/partner/me' },
  respond: { status: 503 },
  drop_connection: false,
  decide: null,
  latency_ms: null,
  times,
  used: 0,
  rate: null,
  priority: 0,
  off_contract: false,
  contract_problem: null,
  operation_id: 'getPartner',
  scenario: null,
  seq: 0,
  created_at: '2026-01-01T00:00:00.000Z',
})
