import { targetOriginsScript } from './target-origins-script.js'

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

${targetOriginsScript}

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
  // [state name, title, detail, note]
  function says(message, state) {
    var back = 'You can return to ' + app + '.';
    var declined = function (reason) { return 'Your application was not approved' + reasonText(reason) + '.'; };
    if (state.status === 'completed') {
      var card = state.card ? 'Your card ending ' + state.card.last4 + ' is issued.' : 'Your card is issued.';
      return ['completed', 'You are approved', card + ' ' + back, ''];
    }
    if (state.status === 'failed') return ['failed', 'We could not approve you', declined(state.failure_reason), back];
    if (state.status === 'manual_review') {
      return ['manual_review', 'Your application is in review', 'We will let you know the outcome shortly.',
        'You can return to ' + app + '; it shows the outcome when the review ends.'];
    }
    if (state.status === 'canceled') {
      return ['stopped', 'This application was replaced', 'A newer application was started. Continue in ' + app + '.', ''];
    }
    if (message.outcome === 'declined') {
      return ['sent', 'We could not approve you', declined(message.reason), 'The result was sent to ' + app + '.'];
    }
    return ['waiting', 'Application sent',
      'Your answers were sent to ' + app + '. Your card is issued once ' + app + ' confirms your application.',
      'Waiting for ' + app + ' to confirm…'];
  }

  function render(message, state) {
    var said = says(message, state);
    var result = document.querySelector('[data-testid="result"]');
    result.setAttribute('data-outcome', message.outcome);
    result.setAttribute('data-state', said[0]);
    ['result-title', 'result-detail', 'result-state'].forEach(function (testid, i) {
      document.querySelector('[data-testid="' + testid + '"]').textContent = said[i + 1];
    });
    return said[0];
  }

  // Polls GET statusUrl (this onboarding only, with its access token) until its state is
  // final: every 1.5 s at first, slowing to every 10 s, so a page left open does not fill
  // the request journal. Stops when the token no longer opens it (expired after an hour).
  var delay = 1500;
  function watch(message, state) {
    var name = render(message, state);
    if (name === 'completed' || name === 'failed' || name === 'stopped') return;
    setTimeout(function () {
      delay = Math.min(10000, Math.round(delay * 1.25));
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
    }, delay);
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
  else if (config.currentStep === 'result') {
    // Completed (or ended) without the hosted flow, e.g. by the API directly: say what it is.
    show('result');
    watch({ outcome: config.state.status === 'failed' ? 'declined' : 'approved', reason: null }, config.state);
  } else show(config.currentStep);
})();
`
