import { html, raw } from 'hono/html'
import type { OfferedAccount } from '../domain/bank-connect.js'
import { targetOriginsScript } from './target-origins-script.js'

/**
 * The public bank-connect page: pick a bank, pick an account, connect, then back to the
 * partner's app (the result is posted to it; a popup can close itself). No CDN.
 */

const script = String.raw`
(function () {
  var main = document.querySelector('main');
  var config = JSON.parse(main.getAttribute('data-config'));
  var chosen = null;
  function show(name) {
    document.querySelectorAll('[data-view]').forEach(function (v) { v.hidden = v.getAttribute('data-view') !== name; });
  }
  function setError(message) {
    var box = document.querySelector('[data-testid="connect-error"]');
    box.textContent = message || '';
    box.hidden = !message;
  }
${targetOriginsScript}
  document.querySelector('[data-testid="connect-return"]').addEventListener('click', function () {
    window.close();
  });
  document.querySelectorAll('[data-institution]').forEach(function (button) {
    button.addEventListener('click', function () {
      var id = button.getAttribute('data-institution');
      document.querySelectorAll('[data-account]').forEach(function (a) {
        a.hidden = a.getAttribute('data-institution-id') !== id;
      });
      document.querySelector('[data-testid="selected-bank"]').textContent = button.textContent.trim();
      show('accounts');
    });
  });
  document.querySelectorAll('[data-account]').forEach(function (label) {
    label.querySelector('input').addEventListener('change', function () {
      chosen = { institution_id: label.getAttribute('data-institution-id'), account_id: label.getAttribute('data-account') };
    });
  });
  document.querySelector('[data-testid="connect-back"]').addEventListener('click', function () {
    chosen = null;
    document.querySelectorAll('[data-account] input').forEach(function (input) { input.checked = false; });
    setError('');
    show('banks');
  });
  document.querySelector('[data-testid="connect-submit"]').addEventListener('click', function () {
    if (!chosen) { setError('Choose an account to connect.'); return; }
    setError('');
    fetch(config.enrollUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: config.token, institution_id: chosen.institution_id, account_id: chosen.account_id })
    }).then(function (res) {
      return res.json().then(function (json) {
        if (!res.ok) { setError((json.error && json.error.message) || 'The bank could not be connected.'); return; }
        var account = json.data;
        document.querySelector('[data-testid="connect-result-institution"]').textContent = account.institution_name;
        document.querySelector('[data-testid="connect-result-account"]').textContent = account.account_name;
        document.querySelector('[data-testid="connect-result-mask"]').textContent = '•••• ' + account.account_mask;
        // A popup can close itself and hand back to the window that opened it; a tab or a
        // frame cannot, so the page says where to go instead.
        document.querySelector('[data-testid="connect-return"]').hidden = !window.opener;
        show('done');
        var message = { type: 'partner-sandbox:bank-connect', version: 1, result: 'connected', bankAccount: account };
        try { if (window.ReactNativeWebView) window.ReactNativeWebView.postMessage(JSON.stringify(message)); } catch (e) {}
        try { if (window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.partnerSandbox) window.webkit.messageHandlers.partnerSandbox.postMessage(message); } catch (e) {}
        [window.parent !== window ? window.parent : null, window.opener].forEach(function (host) {
          if (!host) return;
          targetOrigins().forEach(function (o) { try { host.postMessage(message, o); } catch (e) {} });
        });
        window.__bankConnectResult = message;
      });
    }, function () { setError('The connection failed. Please try again.'); });
  });
  show('banks');
})();
`

const styles = `
  * { box-sizing: border-box; }
  [hidden] { display: none !important; }
  body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: #0f172a; background: #f8fafc; }
  main { max-width: 480px; margin: 0 auto; padding: 16px; }
  h1 { font-size: 20px; }
  .list { display: grid; gap: 8px; }
  .list button, .list label { display: flex; gap: 10px; align-items: center; width: 100%; padding: 14px; font-size: 16px; text-align: left; background: #fff; border: 1px solid #e2e8f0; border-radius: 10px; }
  .primary { width: 100%; margin-top: 16px; padding: 14px; font-size: 16px; font-weight: 600; border: 0; border-radius: 10px; background: #2563eb; color: #fff; }
  .link { background: none; border: 0; color: #2563eb; padding: 8px 0; font-size: 15px; }
  [data-testid="connect-error"] { margin-top: 12px; padding: 10px; border-radius: 8px; background: #fef2f2; color: #b91c1c; }
  small { color: #64748b; }
  header { display: flex; justify-content: space-between; align-items: baseline; margin-bottom: 4px; }
  header strong { font-size: 18px; }
  dl.account { display: grid; grid-template-columns: auto 1fr; gap: 4px 12px; margin: 12px 0; padding: 12px; background: #fff; border: 1px solid #e2e8f0; border-radius: 10px; }
  dl.account dt { color: #64748b; }
  dl.account dd { margin: 0; font-weight: 600; }
  button, input { font: inherit; }
  input[type="radio"] { width: 20px; height: 20px; flex: none; }
`

export function bankConnectPage(
  institutions: readonly { id: string; name: string }[],
  accounts: OfferedAccount[],
  config: {
    token: string
    enrollUrl: string
    allowedOrigins: string[]
    originPatterns: string[]
    partnerName: string
  },
  nonce: string,
) {
  const partner = config.partnerName
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<title>${partner} · Connect your bank</title>
<style nonce="${nonce}">${raw(styles)}</style>
</head>
<body>
<main data-config="${JSON.stringify(config)}" data-testid="bank-connect">
  <header><strong data-testid="partner-name">${partner}</strong><small>Bank connection</small></header>
  <section data-view="banks" data-testid="connect-banks">
    <h1>Connect your bank</h1>
    <p>${partner} asks to connect a bank account to your card.</p>
    <p><small>Test environment: no real bank is contacted.</small></p>
    <div class="list">
      ${institutions.map((i) => html`<button type="button" data-institution="${i.id}" data-testid="bank-${i.id}">${i.name}</button>`)}
    </div>
  </section>
  <section data-view="accounts" data-testid="connect-accounts" hidden>
    <button type="button" class="link" data-testid="connect-back">← Banks</button>
    <h1 data-testid="selected-bank"></h1>
    <div class="list">
      ${accounts.map(
        (
          a,
        ) => html`<label data-account="${a.id}" data-institution-id="${a.institution_id}" data-testid="account-${a.id}" hidden>
        <input type="radio" name="account" value="${a.id}"> ${a.name} <small>${a.type} ••${a.mask}</small></label>`,
      )}
    </div>
    <button type="button" class="primary" data-testid="connect-submit">Connect account</button>
  </section>
  <section data-view="done" data-testid="connect-result" hidden>
    <h1>Bank connected</h1>
    <dl class="account" data-testid="connect-result-detail">
      <dt>Bank</dt><dd data-testid="connect-result-institution"></dd>
      <dt>Account</dt><dd data-testid="connect-result-account"></dd>
      <dt>Number</dt><dd data-testid="connect-result-mask"></dd>
    </dl>
    <p data-testid="connect-return-hint">${partner} has the account now. You can close this window and return to ${partner}.</p>
    <button type="button" class="primary" data-testid="connect-return" hidden>Return to ${partner}</button>
  </section>
  <div data-testid="connect-error" role="alert" hidden></div>
</main>
<script nonce="${nonce}">${raw(script)}</script>
</body>
</html>`.toString()
}

/** The start of the page, as an OpenAPI example. */
export const bankConnectPageExample =
  '<!doctype html><html lang="en"><head><title>Connect your bank</title></head><body><main data-testid="bank-connect">…</main></body></html>'
