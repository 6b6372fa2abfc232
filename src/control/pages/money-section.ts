import { html } from 'hono/html'
import type { PartnerView } from './partner-view.js'
import { action, table, usd } from './table.js'

/** Transactions, deposits and disputes of the partner's users, newest first. */
export function moneySection(view: PartnerView) {
  return html`<section data-testid="money-section">
    <h2>Transactions</h2>
    ${table(
      'transactions',
      ['Id', 'User', 'Type', 'Status', 'Amount', 'Description', 'Created'],
      view.transactions.map((t) => ({
        id: t.id,
        cells: [
          t.id,
          t.email,
          t.type,
          t.status,
          `${t.direction === 'debit' ? '-' : ''}${usd(t.amount)}`,
          t.description,
          t.created_at,
        ],
      })),
      'No transactions.',
    )}
    <h3>Deposits</h3>
    ${table(
      'deposits',
      ['Id', 'Status', 'Amount', 'Bank account', 'Settles at'],
      view.deposits.map((d) => ({
        id: d.id,
        cells: [d.id, d.status, usd(d.amount), d.external_bank_account_id, d.settles_at],
      })),
      'No deposits.',
    )}
    <h3>Disputes</h3>
    ${table(
      'disputes',
      ['Id', 'Transaction', 'Status', 'Amount', 'Reason', 'Resolve'],
      view.disputes.map((d) => ({
        id: d.id,
        cells: [
          d.id,
          d.transaction_id,
          d.status,
          usd(d.amount),
          d.reason,
          d.status === 'under_review'
            ? html`${action('Won', `dispute-won-${d.id}`, 'POST', `/_sandbox/disputes/${d.id}/resolve`, { outcome: 'won' })}
              ${action('Lost', `dispute-lost-${d.id}`, 'POST', `/_sandbox/disputes/${d.id}/resolve`, { outcome: 'lost' })}`
            : '',
        ],
      })),
      'No disputes.',
    )}
  </section>`
}
