import { html } from 'hono/html'

export interface DocsConfig {
  specUrl: string
  /** The default partner's credentials, prefilled for try-it (absent when fixtures lack it). */
  key?: string
  secret?: string
}

/**
 * The /docs shell: Swagger UI's own files from this server, the config as a data attribute. As
 * every whole page the sandbox serves, a plain string: @hono/node-server writes a string answer
 * as it is, where a template's String object becomes a stream, read as it is sent, which the
 * request journal then could not show.
 */
export const docsPage = (config: DocsConfig) =>
  html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Partner Card Service API (sandbox) · reference</title>
    <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
  </head>
  <body>
    <div id="swagger-ui" data-testid="api-reference" data-config="${JSON.stringify(config)}"></div>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/assets/init.js"></script>
  </body>
</html>`.toString()
