import { html } from 'hono/html'

/**
 * The request journal of the selected partner; the page script refreshes the rows every two
 * seconds from GET /_sandbox/requests (the JSON route the test suites use).
 */
export const journalSection = (partnerId: string) => html`<section data-testid="journal-section">
  <h2>Requests <span class="muted">(live)</span></h2>
  <table data-testid="journal" data-partner-id="${partnerId}">
    <thead>
      <tr>
        <th>Time</th>
        <th>Method</th>
        <th>Path</th>
        <th>Status</th>
        <th>ms</th>
        <th>Fault</th>
      </tr>
    </thead>
    <tbody data-testid="journal-rows"></tbody>
  </table>
</section>`
