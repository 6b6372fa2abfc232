import type { Transport } from './http.js'
import type { ControlList, SandboxOk, SandboxRule, SandboxRuleRequest } from './types.js'

/**
 * The rules of one scope (`/_sandbox` for every partner's requests, `/_sandbox/partners/{id}`
 * for one partner's): match, effect and count, as docs/rules.md says.
 */
export function rulesArea(req: Transport['request'], base: string) {
  return {
    /**
     * Adds a rule: `{ match: { method: 'POST', path: '/api/v1/partner/cards/simulate-purchase' },
     * decide: { purchase_decline: 'insufficient_funds' }, once: true }` declines the next
     * purchase, and the one after is approved again.
     */
    add: async (rule: SandboxRuleRequest) =>
      (await req<{ rule: SandboxRule }>('POST', `${base}/rules`, { body: rule })).rule,
    /** The rules with requests left, in the order they are tried. */
    list: async () =>
      (await req<ControlList<SandboxRule>>('GET', `${base}/rules`, { query: { limit: 500 } })).data,
    remove: (ruleId: string) =>
      req<SandboxOk>('DELETE', `${base}/rules/${encodeURIComponent(ruleId)}`),
    /** Every rule of the scope (a partner's: its scenario's rules start counting again). */
    clear: () => req<SandboxOk>('DELETE', `${base}/rules`),
  }
}
