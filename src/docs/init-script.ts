/**
 * Starts Swagger UI from the page's data-config: the document comes from this sandbox, the
 * default partner's key and secret are filled in so "Try it out" works at once, and the
 * validator badge (a request to validator.swagger.io) is off: nothing leaves the machine.
 * "Try it out" starts off, as Swagger UI's own default: an operation opens to read its
 * schemas, and its first button says what it does ("Try it out"), not "Cancel".
 */
export const docsInitScript = `(function () {
  var root = document.getElementById('swagger-ui');
  var config = JSON.parse(root.getAttribute('data-config'));
  var ui = SwaggerUIBundle({
    url: config.specUrl,
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: false,
    persistAuthorization: false,
    displayOperationId: true,
    defaultModelsExpandDepth: 0,
    docExpansion: 'list',
    filter: true,
    onComplete: function () {
      if (config.key) ui.preauthorizeApiKey('PartnerKey', config.key);
      if (config.secret) ui.preauthorizeApiKey('PartnerSecret', config.secret);
      if (config.adminToken) ui.preauthorizeApiKey('SandboxAdmin', config.adminToken);
      root.setAttribute('data-ready', 'true');
    }
  });
  window.ui = ui;
})();
`
