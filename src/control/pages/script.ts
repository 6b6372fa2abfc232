/**
 * The dashboard's only script: buttons call the JSON control routes (with the admin token
 * the page was opened with) and reload; the request journal refreshes every two seconds.
 * Rows are built with textContent, never innerHTML, so a logged path cannot inject markup.
 */
export const dashboardScript = `(function () {
  var token = document.body.getAttribute('data-token');
  var status = document.getElementById('status');
  function headers(json) {
    var h = {};
    if (token) h['Authorization'] = 'Bearer ' + token;
    if (json) h['Content-Type'] = 'application/json';
    return h;
  }
  document.addEventListener('click', function (e) {
    var button = e.target.closest('button[data-action]');
    if (!button) return;
    var parts = button.getAttribute('data-action').split(' ');
    var body = button.getAttribute('data-body');
    button.disabled = true;
    fetch(parts[1], { method: parts[0], headers: headers(!!body), body: body || undefined })
      .then(function (res) {
        if (res.ok) return location.reload();
        return res.json().then(function (j) {
          status.textContent = (j.error && j.error.message) || 'Failed: ' + res.status;
          button.disabled = false;
        });
      })
      .catch(function (err) { status.textContent = String(err); button.disabled = false; });
  });
  // What the rules a request met did, as the journal's Rules column and the request view say it.
  window.partnerSandboxRulesText = function (rules) {
    return (rules || []).map(function (r) {
      var what = r.effect === 'respond' ? 'answered ' + (r.status || '')
        : r.effect === 'latency' ? 'latency ' + (r.latency_ms || 0) + ' ms'
        : r.effect === 'decide' ? 'decided ' + Object.keys(r.decide || {}).map(function (k) { return k + '=' + r.decide[k]; }).join(', ')
        : 'dropped connection';
      return what.trim() + ' (' + (r.scenario || r.id) + ')';
    }).join('; ');
  };
  var journal = document.querySelector('[data-testid="journal"]');
  var rows = document.querySelector('[data-testid="journal-rows"]');
  function refresh() {
    var url = '/_sandbox/requests?limit=20&partner_id=' + journal.getAttribute('data-partner-id');
    fetch(url, { headers: headers(false) })
      .then(function (res) { return res.ok ? res.json() : { data: [] }; })
      .then(function (page) {
        var fresh = document.createDocumentFragment();
        page.data.forEach(function (r) {
          var tr = document.createElement('tr');
          tr.setAttribute('data-testid', 'journal-row');
          tr.setAttribute('data-id', r.id);
          tr.tabIndex = 0;
          var met = window.partnerSandboxRulesText(r.rules);
          [r.at, r.method, r.path, r.status, r.duration_ms, met].forEach(
            function (v) {
              var td = document.createElement('td');
              td.textContent = v === null || v === undefined ? '' : String(v);
              tr.appendChild(td);
            },
          );
          fresh.appendChild(tr);
        });
        rows.replaceChildren(fresh);
        journal.setAttribute('data-refreshed', String(Date.now()));
      })
      .catch(function () {});
  }
  if (journal) {
    refresh();
    setInterval(refresh, 2000);
  }
})();
`
