import { html } from 'hono/html'
import type { HtmlEscapedString } from 'hono/utils/html'

type Cell =
  | string
  | number
  | boolean
  | null
  | undefined
  | HtmlEscapedString
  | Promise<HtmlEscapedString>

/**
 * A table with a data-testid per row (`<name>-row`) and per cell (`<name>-<column>`), so a
 * browser test reads the same values a person sees. Values are escaped by hono/html.
 */
export function table(
  name: string,
  columns: string[],
  rows: { id: string; cells: Cell[] }[],
  empty: string,
) {
  if (rows.length === 0) return html`<p class="empty" data-testid="${name}-empty">${empty}</p>`
  return html`<table data-testid="${name}">
    <thead>
      <tr>
        ${columns.map((c) => html`<th>${c}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        (r) => html`<tr data-testid="${name}-row" data-id="${r.id}">
          ${r.cells.map(
            (cell, i) =>
              html`<td data-testid="${name}-${slug(columns[i] as string)}">${show(cell)}</td>`,
          )}
        </tr>`,
      )}
    </tbody>
  </table>`
}

const slug = (column: string) => column.toLowerCase().replace(/[^a-z0-9]+/g, '-')

function show(cell: Cell) {
  if (cell === null || cell === undefined || cell === '') return '—'
  if (typeof cell === 'boolean') return cell ? 'yes' : 'no'
  return cell
}

/** Money as the API writes it (decimal USD), with two decimals for reading. */
export const usd = (amount: number) => `$${amount.toFixed(2)}`

/** A button the page script turns into a control-plane call (then reloads the page). */
export const action = (
  label: string,
  testid: string,
  method: string,
  path: string,
  body?: unknown,
) =>
  html`<button type="button" data-testid="${testid}" data-action="${method} ${path}" data-body="${
    body === undefined ? '' : JSON.stringify(body)
  }">${label}</button>`
