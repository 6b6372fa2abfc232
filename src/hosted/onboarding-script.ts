/**
 * The hosted onboarding page's script (plain browser JS, inlined with a CSP nonce). It
 * reads its configuration from `data-config` on <main>, posts each step with the access
 * token, shows the outcome, and tells the host app: React Native WebView, iOS WKWebView
 * (`webkit.messageHandlers.partnerSandbox`), a parent window (iframe) or an opener (popup)
 * on one of the partner's allowed origins, and a redirect when a redirect_uri was given.
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
      config.allowedOrigins.forEach(function (origin) {
        try { host.postMessage(message, origin); } catch (e) {}
      });
    });
    window.__onboardingResult = message;
  }

  var titles = {
    approved: ['You are approved', 'Your card is being issued. You can return to the app.'],
    declined: ['We could not approve you', 'Your application was not approved.'],
    manual_review: ['Your application is in review', 'We will let you know the outcome shortly.']
  };

  function finish(message) {
    var result = document.querySelector('[data-testid="result"]');
    result.setAttribute('data-outcome', message.outcome);
    document.querySelector('[data-testid="result-title"]').textContent = titles[message.outcome][0];
    document.querySelector('[data-testid="result-detail"]').textContent =
      titles[message.outcome][1] + (message.reason ? ' (' + message.reason.replace(/_/g, ' ') + ')' : '');
    var next = document.querySelector('[data-testid="result-continue"]');
    next.hidden = !config.redirectUri;
    show('result');
    signal(message);
    if (config.redirectUri) {
      next.addEventListener('click', function () { location.assign(redirectUrl(message)); });
    }
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
