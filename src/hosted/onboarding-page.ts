import { html, raw } from 'hono/html'
import { underwritingChoices } from '../domain/onboarding-flow.js'
import type { OnboardingRow } from '../store/records.js'
import type { FlowStatus } from './flow-views.js'
import { onboardingScript } from './onboarding-script.js'

/** The hosted onboarding page (hono/html escapes every value; no asset from a CDN). */

const styles = `
  :root { color-scheme: light; --ink: #0f172a; --muted: #64748b; --line: #e2e8f0; --brand: #2563eb; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, sans-serif; color: var(--ink); background: #f8fafc; }
  main { max-width: 480px; margin: 0 auto; padding: 16px; }
  header { display: flex; align-items: center; justify-content: space-between; margin-bottom: 12px; }
  header strong { font-size: 18px; }
  .progress { display: flex; gap: 6px; }
  .progress span { width: 28px; height: 6px; border-radius: 3px; background: var(--line); }
  .progress span.done { background: #93c5fd; }
  .progress span.current { background: var(--brand); }
  section { background: #fff; border: 1px solid var(--line); border-radius: 12px; padding: 16px; }
  h1 { font-size: 20px; margin: 0 0 8px; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: 4px 12px; margin: 12px 0; }
  dt { color: var(--muted); }
  dd { margin: 0; }
  label { display: block; margin: 12px 0 4px; font-weight: 600; }
  label.check { display: flex; gap: 8px; align-items: flex-start; font-weight: 400; }
  select { width: 100%; padding: 10px; font-size: 16px; border: 1px solid var(--line); border-radius: 8px; background: #fff; }
  .agreement { max-height: 180px; overflow: auto; border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; font-size: 14px; color: #334155; }
  button { cursor: pointer; width: 100%; margin-top: 16px; padding: 14px; font-size: 16px; font-weight: 600; border: 0; border-radius: 10px; background: var(--brand); color: #fff; }
  button.secondary { background: #fff; color: var(--ink); border: 1px solid var(--line); margin-top: 8px; }
  button:disabled { opacity: .6; }
  button, select, input { font: inherit; }
  input[type="checkbox"] { width: 22px; height: 22px; flex: none; margin: 1px 0 0; }
  [data-testid="error"] { margin-top: 12px; padding: 10px; border-radius: 8px; background: #fef2f2; color: #b91c1c; }
  [data-outcome="approved"] h1 { color: #15803d; }
  [data-outcome="declined"] h1 { color: #b91c1c; }
  [data-outcome="manual_review"] h1 { color: #b45309; }
  [data-state="waiting"] h1, [data-state="manual_review"] h1 { color: var(--ink); }
  [data-state="sent"] h1 { color: #b91c1c; }
  [data-state="completed"] h1 { color: #15803d; }
  [data-state="failed"] h1 { color: #b91c1c; }
  [data-testid="result-state"]:empty { display: none; }
  [data-testid="result-state"] { display: flex; gap: 8px; align-items: center; color: var(--muted); font-size: 14px; }
  [data-state="waiting"] [data-testid="result-state"]::before { content: ''; width: 10px; height: 10px; flex: none; border-radius: 50%; background: var(--brand); animation: pulse 1.2s ease-in-out infinite; }
  @keyframes pulse { 50% { opacity: .25; } }
  footer { margin-top: 12px; color: var(--muted); font-size: 12px; text-align: center; }
`

const labels: Record<string, string> = {
  employed: 'Employed',
  self_employed: 'Self-employed',
  student: 'Student',
  retired: 'Retired',
  unemployed: 'Not employed',
  under_25k: 'Under $25,000',
  '25k_50k': '$25,000 – $50,000',
  '50k_100k': '$50,000 – $100,000',
  '100k_250k': '$100,000 – $250,000',
  over_250k: 'Over $250,000',
  salary: 'Salary',
  savings: 'Savings',
  business: 'Business income',
  investments: 'Investments',
  other: 'Other',
}

const questions = [
  ['employment_status', 'Employment status', 'employment-status'],
  ['annual_income', 'Annual income', 'annual-income'],
  ['source_of_funds', 'Main source of funds', 'source-of-funds'],
] as const

export interface PageConfig {
  accessToken: string
  stepsUrl: string
  /** Polled after the flow ends, until the onboarding is completed (the page's own status). */
  statusUrl: string
  /** Exact origins that may receive the result by postMessage. */
  allowedOrigins: string[]
  /** Any-port entries (`http://localhost:*`): the framing page's origin is checked against them. */
  originPatterns: string[]
  redirectUri: string | null
  currentStep: string
  finished: unknown
  state: FlowStatus
  partnerName: string
}

export function onboardingPage(
  row: OnboardingRow,
  partnerName: string,
  config: PageConfig,
  nonce: string,
) {
  const a = row.applicant
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<title>${partnerName} · Card application</title>
<style nonce="${nonce}">${raw(styles)}</style>
</head>
<body>
<main data-config="${JSON.stringify(config)}" data-onboarding-id="${row.id}" data-testid="onboarding">
  <header>
    <strong data-testid="partner-name">${partnerName}</strong>
    <div class="progress" aria-label="progress">
      <span data-progress></span><span data-progress></span><span data-progress></span><span data-progress></span>
    </div>
  </header>

  <section data-step="identity_verification" data-testid="step-identity" hidden>
    <h1>Verify your identity</h1>
    <p>Check that these details are yours.</p>
    <dl>
      <dt>Name</dt><dd data-testid="identity-name">${a.first_name} ${a.last_name}</dd>
      <dt>Date of birth</dt><dd data-testid="identity-dob">${a.date_of_birth}</dd>
      <dt>Address</dt><dd data-testid="identity-address">${a.address_line1}${a.address_line2 ? `, ${a.address_line2}` : ''}, ${a.address_city}, ${a.address_state} ${a.address_zip}, ${a.country_code}</dd>
      <dt>SSN</dt><dd data-testid="identity-ssn">•••-••-${a.ssn_last4}</dd>
    </dl>
    <label class="check"><input type="checkbox" data-testid="identity-confirm"> These details are mine and correct.</label>
    <button type="button" data-testid="identity-submit">Verify identity</button>
  </section>

  <section data-step="underwriting" data-testid="step-underwriting" hidden>
    <h1>A few questions</h1>
    ${questions.map(
      ([name, label, testid]) => html`<label for="${name}">${label}</label>
    <select id="${name}" name="${name}" data-testid="${testid}">
      <option value="">Choose…</option>
      ${underwritingChoices[name].map((value) => html`<option value="${value}">${labels[value] ?? value}</option>`)}
    </select>`,
    )}
    <button type="button" data-testid="underwriting-submit">Continue</button>
  </section>

  <section data-step="agreement" data-testid="step-agreement" hidden>
    <h1>Cardholder agreement</h1>
    <div class="agreement" data-testid="agreement-text" tabindex="0">
      <p>This sandbox agreement stands in for the card issuer's cardholder agreement. By accepting
      it you agree to the terms of use of the ${partnerName} card, the fee schedule, the
      electronic communications disclosure and the privacy notice.</p>
      <p>No real card, account or money is involved: this is a test environment.</p>
    </div>
    <label class="check"><input type="checkbox" data-testid="agreement-accept"> I have read and accept the cardholder agreement.</label>
    <button type="button" data-testid="agreement-submit">Accept and finish</button>
    <button type="button" class="secondary" data-testid="agreement-decline">Decline</button>
  </section>

  <section data-step="result" data-testid="result" hidden>
    <h1 data-testid="result-title"></h1>
    <p data-testid="result-detail"></p>
    <p data-testid="result-state" role="status"></p>
    <button type="button" data-testid="result-continue" hidden>Continue</button>
  </section>

  <div data-testid="error" role="alert" hidden></div>
  <footer>partner-sandbox · test environment</footer>
</main>
<script nonce="${nonce}">${raw(onboardingScript)}</script>
</body>
</html>`.toString()
}

export function embedErrorPage(title: string, message: string) {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<title>${title}</title>
<style>body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#0f172a;background:#f8fafc}main{max-width:480px;margin:0 auto;padding:24px}h1{font-size:20px;color:#b91c1c}</style>
</head>
<body>
<main data-testid="embed-error">
  <h1 data-testid="embed-error-title">${title}</h1>
  <p data-testid="embed-error-message">${message}</p>
</main>
</body>
</html>`.toString()
}
