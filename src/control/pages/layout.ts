import { html } from 'hono/html'
import type { HtmlEscapedString } from 'hono/utils/html'

type Content = HtmlEscapedString | Promise<HtmlEscapedString>

/** The page around the sections: a header, a status line for failed actions, the script. */
export const layout = (
  title: string,
  token: string | undefined,
  body: Content,
) => html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${title}</title>
    <link rel="stylesheet" href="/_sandbox/assets/dashboard.css" />
  </head>
  <body data-token="${token ?? ''}">
    <header>
      <h1>partner-sandbox</h1>
      <a href="/docs">API reference</a>
      <a href="/openapi.json">openapi.json</a>
    </header>
    <p id="status" data-testid="status" role="status"></p>
    <main>${body}</main>
    <script src="/_sandbox/assets/dashboard.js"></script>
  </body>
</html>`

/** Shown instead of the dashboard when an admin token is set and none (or a wrong one) came. */
export const loginPage = (wrong: boolean) => html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>partner-sandbox · admin token</title>
    <link rel="stylesheet" href="/_sandbox/assets/dashboard.css" />
  </head>
  <body>
    <form class="login" method="get" action="/_sandbox" data-testid="login">
      <h1>partner-sandbox dashboard</h1>
      <label for="token">This sandbox needs its admin token (--admin-token / SANDBOX_ADMIN_TOKEN).</label>
      ${wrong ? html`<p id="status" data-testid="login-error">That token is not the admin token.</p>` : ''}
      <input id="token" name="token" type="password" autocomplete="off" required />
      <button type="submit">Open the dashboard</button>
    </form>
  </body>
</html>`
