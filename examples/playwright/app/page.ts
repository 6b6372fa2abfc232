/**
 * The app's one page: sign-up, the emailed code, then the card: hosted onboarding in an
 * iframe (its postMessage completes it through the backend), funding, status, and the
 * webhooks the backend received. Plain DOM, no build step.
 */
export function pageHtml(sandboxOrigin: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Acme wallet</title>
<style>
  body { font: 15px/1.4 system-ui, sans-serif; margin: 0 auto; max-width: 640px; padding: 16px; }
  [hidden] { display: none !important; }
  form, section { display: grid; gap: 8px; margin: 12px 0; }
  iframe { width: 100%; height: 640px; border: 1px solid #ddd; }
  .error { color: #b91c1c; }
</style>
</head>
<body>
<h1>Acme wallet</h1>
<form id="signup" data-testid="signup-form">
  <input name="email" type="email" placeholder="Email" required>
  <input name="phone_number" placeholder="Phone" required>
  <input name="first_name" placeholder="First name" required>
  <input name="last_name" placeholder="Last name" required>
  <input name="password" type="password" placeholder="Password" required>
  <input name="ssn" placeholder="SSN" required>
  <input name="date_of_birth" type="date" required>
  <button data-testid="signup-submit">Sign up</button>
  <p class="error" data-testid="signup-error"></p>
</form>
<form id="otp" data-testid="otp-form" hidden>
  <label>Code we emailed you <input name="code" data-testid="otp-code" inputmode="numeric"></label>
  <button data-testid="otp-submit">Verify</button>
  <button type="button" data-testid="otp-resend">Send a new code</button>
  <p class="error" data-testid="otp-error"></p>
</form>
<section id="home" data-testid="home" hidden>
  <p>KYC: <b data-testid="kyc-status">-</b> · Card: <b data-testid="card-status">none</b>
     · Balance: <b data-testid="balance">0</b></p>
  <button data-testid="start-onboarding">Get your card</button>
  <div id="embed"></div>
  <p data-testid="onboarding-result"></p>
  <button data-testid="fund" hidden>Add $25</button>
  <button data-testid="refresh-webhooks">Show webhooks</button>
  <ul data-testid="webhooks"></ul>
</section>
<script>
const SANDBOX_ORIGIN = ${JSON.stringify(sandboxOrigin)};
const $ = (id) => document.querySelector('[data-testid="' + id + '"]');
let login = null;
async function call(method, path, body) {
  const res = await fetch(path, { method, headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(json.error || res.statusText);
  return json;
}
async function refreshCard() {
  const status = await call('GET', '/app/card');
  $('kyc-status').textContent = status.kyc_status;
  $('card-status').textContent = status.card ? status.card.status : 'none';
  $('balance').textContent = String(status.balances ? status.balances.available : 0);
  $('fund').hidden = !(status.card && status.card.status === 'active');
  $('start-onboarding').hidden = !!status.card;
}
$('signup-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const body = Object.fromEntries(new FormData(e.target));
  try {
    await call('POST', '/app/signup', body);
    login = { email: body.email, password: body.password };
    $('signup-form').hidden = true;
    $('otp-form').hidden = false;
  } catch (err) { $('signup-error').textContent = err.message; }
});
$('otp-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  try {
    await call('POST', '/app/verify', { code: $('otp-code').value });
    $('otp-form').hidden = true;
    $('home').hidden = false;
    await refreshCard();
  } catch (err) { $('otp-error').textContent = err.message; }
});
$('otp-resend').addEventListener('click', async () => {
  await call('POST', '/app/login', login);
  $('otp-error').textContent = 'A new code is on its way.';
});
$('start-onboarding').addEventListener('click', async () => {
  const { embedUrl } = await call('POST', '/app/onboarding/start');
  const frame = document.createElement('iframe');
  frame.id = 'onboarding';
  frame.title = 'Card application';
  frame.src = embedUrl;
  $('start-onboarding').hidden = true;
  document.getElementById('embed').replaceChildren(frame);
});
window.addEventListener('message', async (event) => {
  if (event.origin !== SANDBOX_ORIGIN) return;
  const m = typeof event.data === 'string' ? JSON.parse(event.data) : event.data;
  if (!m || m.type !== 'partner-sandbox:onboarding') return;
  const result = $('onboarding-result');
  result.dataset.outcome = m.outcome;
  result.textContent = 'Onboarding ' + m.outcome;
  await call('POST', '/app/onboarding/complete',
    { onboardingId: m.onboardingId, result: m.result, data: m.data, agreementAccepted: m.agreementAccepted });
  document.getElementById('embed').replaceChildren();
  await refreshCard();
});
$('fund').addEventListener('click', async () => {
  const { availableBalance } = await call('POST', '/app/fund', { amount: 25 });
  $('balance').textContent = String(availableBalance);
});
$('refresh-webhooks').addEventListener('click', async () => {
  const { data } = await call('GET', '/app/webhooks');
  $('webhooks').replaceChildren(...data.map((w) => {
    const li = document.createElement('li');
    li.dataset.testid = 'webhook-' + w.type;
    li.textContent = w.type + ' ' + (w.object.id || '') + (w.verified ? ' (signature verified)' : '');
    return li;
  }));
});
</script>
</body>
</html>`
}
