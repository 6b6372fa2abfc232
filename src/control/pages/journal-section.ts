import { html } from 'hono/html'

/**
 * The request journal of the selected partner: its API requests and its hosted pages and
 * public routes (journaled under the partner their token names). The page script refreshes
 * the rows every two seconds from GET /_sandbox/requests (the JSON route the test suites
 * use); a row opens below with its headers and bodies, redacted.
 */
export const journalSection = (partnerId: string) => html`<section data-testid="journal-section">
  <h2>Requests <span class="muted">(live; click one to see its headers and bodies)</span></h2>
  <table data-testid="journal" data-partner-id="${partnerId}">
    <thead>
      <tr>
        <th>Time</th>
        <th>Method</th>
        <th>Path</th>
        <th>Status</th>
        <th>ms</th>
        <th>Rules</th>
      </tr>
    </thead>
    <tbody data-testid="journal-rows"></tbody>
  </table>
  <div class="request-detail" data-testid="request-detail" hidden>
    <div class="detail-head">
      <strong data-testid="detail-title"></strong>
      <button type="button" data-testid="detail-close">Close</button>
    </div>
    <p class="muted" data-testid="detail-meta"></p>
    <div class="detail-grid">
      <div><h3>Request headers</h3><pre data-testid="detail-request-headers"></pre></div>
      <div><h3>Request body</h3><pre data-testid="detail-request-body"></pre></div>
      <div><h3>Response headers</h3><pre data-testid="detail-response-headers"></pre></div>
      <div><h3>Response body</h3><pre data-testid="detail-response-body"></pre></div>
    </div>
  </div>
</section>`
