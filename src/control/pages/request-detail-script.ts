/**
 * The journal's request view: a click (or Enter) on a row of the live list opens that request
 * from GET /_sandbox/requests/{id}: the rules it met, headers and bodies, redacted by the server.
 * Built with textContent only: a logged body cannot inject markup.
 */
export const requestDetailScript = `(function () {
  var rows = document.querySelector('[data-testid="journal-rows"]');
  var panel = document.querySelector('[data-testid="request-detail"]');
  if (!rows || !panel) return;
  var token = document.body.getAttribute('data-token');
  function text(testid, value) {
    panel.querySelector('[data-testid="' + testid + '"]').textContent = value;
  }
  function block(message, part) {
    if (!message) return '(not kept: the journal keeps headers and bodies of the newest API and hosted-page requests only)';
    var value = message[part];
    if (part === 'body' && (value === null || value === undefined)) return '(no body)';
    var shown = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
    return shown + (part === 'body' && message.truncated ? '\\n… (cut at 16 KiB)' : '');
  }
  function open(id) {
    var headers = token ? { Authorization: 'Bearer ' + token } : {};
    fetch('/_sandbox/requests/' + encodeURIComponent(id), { headers: headers })
      .then(function (res) { return res.json().then(function (j) { return { ok: res.ok, j: j }; }); })
      .then(function (r) {
        panel.hidden = false;
        if (!r.ok) {
          text('detail-title', (r.j.error && r.j.error.message) || 'Not found');
          return;
        }
        var e = r.j;
        panel.setAttribute('data-id', e.id);
        text('detail-title', e.method + ' ' + e.path + ' → ' + e.status + ' in ' + e.duration_ms + ' ms');
        text('detail-meta', e.at + ' · ' + e.id + (e.scenario ? ' · scenario ' + e.scenario : '') +
          (e.rules && e.rules.length ? ' · rules: ' + window.partnerSandboxRulesText(e.rules) : ''));
        text('detail-request-headers', block(e.request, 'headers'));
        text('detail-request-body', block(e.request, 'body'));
        text('detail-response-headers', block(e.response, 'headers'));
        text('detail-response-body', block(e.response, 'body'));
        panel.scrollIntoView({ block: 'nearest' });
      })
      .catch(function (err) { text('detail-title', String(err)); panel.hidden = false; });
  }
  rows.addEventListener('click', function (e) {
    var row = e.target.closest('tr[data-id]');
    if (row) open(row.getAttribute('data-id'));
  });
  rows.addEventListener('keydown', function (e) {
    var row = e.target.closest('tr[data-id]');
    if (row && (e.key === 'Enter' || e.key === ' ')) { e.preventDefault(); open(row.getAttribute('data-id')); }
  });
  panel.querySelector('[data-testid="detail-close"]').addEventListener('click', function () {
    panel.hidden = true;
  });
})();
`
