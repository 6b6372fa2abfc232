/**
 * Browser JS shared by the hosted pages' scripts: where a result may be posted. The exact
 * allowed origins, plus the framing (or opening) page's own origin when an any-port entry
 * (`http://localhost:*`) allows it, since postMessage needs an exact target origin. Reads
 * `config.allowedOrigins` and `config.originPatterns` of the page's script.
 */
export const targetOriginsScript = `
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
`
