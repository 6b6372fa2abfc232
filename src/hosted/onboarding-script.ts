/**
 * The hosted onboarding page's script (plain browser JS, inlined with a CSP nonce). It
 * reads its configuration from `data-config` on <main>, posts each step with the access
 * token, and tells the host app how the flow ended: React Native WebView, iOS WKWebView
 * (`webkit.messageHandlers.partnerSandbox`), a parent window (iframe) or an opener (popup)
 * on one of the partner's allowed origins, and a redirect when a redirect_uri was given.
 * The flow's end is not the onboarding's: the partner completes it (or auto_complete does),
 * so the page says the result went to the app and polls its own status until then.
 */
export const onboardingScript = String.raw`
(function () {
  var main = document.querySelector('main');
  var config = JSON.parse(main.getAttribute('data-config'));
  var steps = ['identity_verification', 'underwriting', 'agreement', 'result'];

  function show(step) {
    steps.forEach(function (name) {
      var section = document.querySelector('[data-step="' + name + '"]');
      if (section) section.hidden = name !== step;
    });
    var index = steps.indexOf(step);
    document.querySelectorAll('[data-progress]').forEach(function (dot, i) {
      dot.classList.toggle('done', i < index);
      dot.classList.toggle('current', i === index);
    });
    main.setAttribute('data-current-step', step);
  }

  function setError(message) {
    var box = document.querySelector('[data-testid="error"]');
    box.textContent = message || '';
    box.hidden = !message;
  }

  function busy(on) {
    document.querySelectorAll('button').forEach(function (b) { b.disabled = on; });
    main.setAttribute('aria-busy', on ? 'true' : 'false');
  }

  function post(step, body) {
    setError('');
    busy(true);
    return fetch(config.stepsUrl + '/' + step, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer ' + config.accessToken },
      body: JSON.stringify(body)
    }).then(function (res) {
      return res.json().then(function (json) {
        busy(false);
        if (!res.ok) {
          setError((json.error && json.error.message) || 'Something went wrong. Please try again.');
          return null;
        }
        return json;
      });
    }, function () {
      busy(false);
      setError('The connection failed. Please try again.');
      return null;
    });
  }

  function redirectUrl(message) {
    var url = new URL(config.redirectUri);
    url.searchParams.set('onboarding_id', message.onboardingId);
    url.searchParams.set('result', message.result);
    url.searchParams.set('outcome', message.outcome);
    if (message.reason) url.searchParams.set('reason', message.reason);
    // What the completion call needs, so a plain tab can complete without a postMessage.
    url.searchParams.set('agreement_accepted', String(message.agreementAccepted));
    url.searchParams.set('data', JSON.stringify(message.data));
    return url.toString();
  }

  // Exact allowed origins, plus the framing (or opening) page's own origin when an any-port
  // entry such as http://localhost:* allows it: postMessage needs an exact target origin.
  function targetOrigins() {
    var found = config.allowedOrigins.slice();
    var seen = [];
    try { if (location.ancestorOrigins && location.ancestorOrigins.length) seen.push(location.ancestorOrigins[0]); } catch (e) {}
    try { if (document.referrer) seen.push(new URL(document.referrer).origin); } catch (e) {}
    seen.forEach(function (origin) {
      var url;
      try { url = new URL(origin); } catch (e) { return; }
      var pattern = url.protocol + '//' + url.hostname + ':*';
      if (config.originPatterns.indexOf(pattern) >= 0 && found.indexOf(url.origin) < 0) found.push(url.origin);
    });
    return found;
  }

  function signal(message) {
    var text = JSON.stringify(message);
    try { if (window.ReactNativeWebView) window.ReactNativeWebView.postMessage(text); } catch (e) {}
    // Android WebView: addJavascriptInterface(bridge, 'PartnerSandboxAndroid').
    try { if (window.PartnerSandboxAndroid) window.PartnerSandboxAndroid.postMessage(text); } catch (e) {}
    try {
      if (window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.partnerSandbox) {
        window.webkit.messageHandlers.partnerSandbox.postMessage(message);
      }
    } catch (e) {}
    // An iframe's parent, or the window that opened this one as a popup: only the partner's
    // allowed origins may read the result (postMessage drops it for any other origin).
    [window.parent !== window ? window.parent : null, window.opener].forEach(function (host) {
      if (!host) return;
      targetOrigins().forEach(function (origin) {
        try { host.postMessage(message, origin); } catch (e) {}
      });
    });
    window.__onboardingResult = message;
  }

  var app = config.partnerName;
  var reasonText = function (reason) { return reason ? ' (' + reason.replace(/_/g, ' ') + ')' : ''; };

  // What the page says, from the onboarding's real state: until the partner completes it,
  // only that the answers were sent (a decline is the flow's own, so it is said at once).
  function render(message, state) {
    var result = document.querySelector('[data-testid="result"]');
    var title, detail, note, name;
    if (state.status === 'completed') {
      name = 'completed';
      title = 'You are approved';
      detail = (state.card ? 'Your card ending ' + state.card.last4 + ' is issued.' : 'Your card is issued.') +
        ' You can return to ' + app + '.';
      note = '';
    } else if (state.status === 'failed') {
      name = 'failed';
      title = 'We could not approve you';
      detail = 'Your application was not approved' + reasonText(state.failure_reason) + '.';
      note = 'You can return to ' + app + '.';
    } else if (state.status === 'manual_review') {
      name = 'manual_review';
      title = 'Your application is in review';
      detail = 'We will let you know the outcome shortly.';
      note = 'You can return to ' + app + '; it shows the outcome when the review ends.';
    } else if (state.status === 'canceled') {
      name = 'stopped';
      title = 'This application was replaced';
      detail = 'A newer application was started. Continue in ' + app + '.';
      note = '';
    } else if (message.outcome === 'declined') {
      name = 'waiting';
      title = 'We could not approve you';
      detail = 'Your application was not approved' + reasonText(message.reason) + '.';
      note = 'The result was sent to ' + app + '.';
    } else {
      name = 'waiting';
      title = 'Application sent';
      detail = 'Your answers were sent to ' + app + '. Your card is issued once ' + app + ' confirms your application.';
      note = 'Waiting for ' + app + ' to confirm…';
    }
    result.setAttribute('data-outcome', message.outcome);
    result.setAttribute('data-state', name);
    document.querySelector('[data-testid="result-title"]').textContent = title;
    document.querySelector('[data-testid="result-detail"]').textContent = detail;
    document.querySelector('[data-testid="result-state"]').textContent = note;
    return name;
  }

  // Polls GET statusUrl (this onboarding only, with its access token) until its state is final.
  function watch(message, state) {
    var name = render(message, state);
    if (name === 'completed' || name === 'failed' || name === 'stopped') return;
    setTimeout(function () {
      fetch(config.statusUrl, { headers: { authorization: 'Bearer ' + config.accessToken } })
        .then(function (res) {
          if (res.ok) return res.json().then(function (next) { watch(message, next); });
          if (res.status === 401 || res.status === 403) {
            document.querySelector('[data-testid="result-state"]').textContent =
              'This page can no longer check the status of your application: ' + app + ' shows it.';
            document.querySelector('[data-testid="result"]').setAttribute('data-state', 'unknown');
            return;
          }
          watch(message, state);
        }, function () { watch(message, state); });
    }, 1500);
  }

  function finish(message) {
    var next = document.querySelector('[data-testid="result-continue"]');
    next.hidden = !config.redirectUri;
    show('result');
    signal(message);
    if (config.redirectUri) {
      next.addEventListener('click', function () { location.assign(redirectUrl(message)); });
    }
    watch(message, config.state);
  }

  function advance(json) {
    if (!json) return;
    if (json.finished) finish(json.result);
    else show(json.next_step);
  }

  document.querySelector('[data-testid="identity-submit"]').addEventListener('click', function () {
    if (!document.querySelector('[data-testid="identity-confirm"]').checked) {
      setError('Please confirm that these details are yours.');
      return;
    }
    post('identity_verification', { confirmed: true }).then(advance);
  });

  document.querySelector('[data-testid="underwriting-submit"]').addEventListener('click', function () {
    var body = {};
    var missing = false;
    ['employment_status', 'annual_income', 'source_of_funds'].forEach(function (field) {
      var value = document.querySelector('[name="' + field + '"]').value;
      if (!value) missing = true;
      body[field] = value;
    });
    if (missing) {
      setError('Please answer every question.');
      return;
    }
    post('underwriting', body).then(advance);
  });

  document.querySelector('[data-testid="agreement-submit"]').addEventListener('click', function () {
    if (!document.querySelector('[data-testid="agreement-accept"]').checked) {
      setError('Please accept the card agreement to continue, or decline it.');
      return;
    }
    post('agreement', { accepted: true }).then(advance);
  });

  document.querySelector('[data-testid="agreement-decline"]').addEventListener('click', function () {
    post('agreement', { accepted: false }).then(advance);
  });

  if (config.finished) finish(config.finished);
  else show(config.currentStep);
})();
`
