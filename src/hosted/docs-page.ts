import { html } from 'hono/html'
import type { HtmlEscapedString } from 'hono/utils/html'

/**
 * A reference page rendered on the server from the OpenAPI document: no script, no CDN,
 * so it works offline and in a locked-down CI container.
 */

type Json = Record<string, unknown>
interface Operation {
  summary?: string
  description?: string
  tags?: string[]
  security?: Record<string, string[]>[]
  parameters?: {
    name: string
    in: string
    required?: boolean
    schema?: Json
    description?: string
  }[]
  requestBody?: { content?: Record<string, { schema?: Json }> }
  responses?: Record<string, { description?: string }>
}

const methods = ['get', 'post', 'put', 'patch', 'delete'] as const

function schemaText(schema: Json | undefined, components: Json): string {
  if (!schema) return ''
  const seen = new Set<string>()
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline)
    if (!node || typeof node !== 'object') return node
    const ref = (node as Json).$ref
    if (typeof ref === 'string') {
      const name = ref.split('/').pop() as string
      if (seen.has(name)) return { $ref: name }
      seen.add(name)
      const target = inline((components.schemas as Json | undefined)?.[name])
      seen.delete(name)
      return target
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v)]))
  }
  return JSON.stringify(inline(schema), null, 2)
}

function auth(op: Operation): string {
  const schemes = (op.security ?? []).flatMap((s) => Object.keys(s))
  if (schemes.length === 0) return 'public'
  const names: Record<string, string> = {
    PartnerKey: 'X-Partner-Key',
    PartnerSecret: 'X-Partner-Secret',
    Session: 'Bearer session',
    SandboxAdmin: 'admin token (when set)',
  }
  return schemes.map((s) => names[s] ?? s).join(' + ')
}

export function docsPage(doc: Json): HtmlEscapedString | Promise<HtmlEscapedString> {
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Operation>>
  const components = (doc.components ?? {}) as Json
  const info = doc.info as { title: string; version: string; description?: string }
  const byTag = new Map<string, { method: string; path: string; op: Operation }[]>()
  for (const [path, item] of Object.entries(paths)) {
    for (const method of methods) {
      const op = item[method]
      if (!op) continue
      const tag = op.tags?.[0] ?? 'Other'
      if (!byTag.has(tag)) byTag.set(tag, [])
      byTag.get(tag)?.push({ method, path, op })
    }
  }
  const id = (method: string, path: string) => `${method}-${path}`.replace(/[^a-zA-Z0-9]+/g, '-')
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${info.title} — reference</title>
<style>
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0; color: #1b1f24; }
  header { background: #0f172a; color: #fff; padding: 16px 24px; }
  header a { color: #93c5fd; }
  main { display: grid; grid-template-columns: 260px 1fr; }
  nav { border-right: 1px solid #e5e7eb; padding: 16px; position: sticky; top: 0; height: 100vh; overflow: auto; font-size: 13px; }
  nav a { display: block; color: #334155; text-decoration: none; padding: 2px 0; }
  section.op { border-bottom: 1px solid #e5e7eb; padding: 16px 24px; }
  .m { display: inline-block; min-width: 56px; font: 600 12px monospace; text-transform: uppercase; padding: 2px 6px; border-radius: 4px; color: #fff; background: #475569; }
  .m.get { background: #2563eb; } .m.post { background: #16a34a; } .m.patch { background: #d97706; } .m.delete { background: #dc2626; }
  code, pre { font-family: ui-monospace, monospace; font-size: 13px; }
  pre { background: #f8fafc; border: 1px solid #e5e7eb; padding: 8px; overflow: auto; max-height: 360px; }
  .auth { color: #64748b; font-size: 13px; }
  @media (max-width: 700px) { main { grid-template-columns: 1fr; } nav { position: static; height: auto; } }
</style>
</head>
<body>
<header data-testid="docs-header">
  <strong>${info.title}</strong> v${info.version} ·
  <a href="/openapi.json" data-testid="openapi-link">openapi.json</a>
  <div>${info.description ?? ''}</div>
</header>
<main>
<nav data-testid="docs-nav">
${[...byTag.entries()].map(
  ([tag, ops]) =>
    html`<h4>${tag}</h4>${ops.map(
      ({ method, path }) =>
        html`<a href="#${id(method, path)}">${method.toUpperCase()} ${path}</a>`,
    )}`,
)}
</nav>
<div>
${[...byTag.entries()].map(([tag, ops]) =>
  ops.map(
    ({
      method,
      path,
      op,
    }) => html`<section class="op" id="${id(method, path)}" data-testid="operation">
  <h3><span class="m ${method}">${method}</span> <code>${path}</code></h3>
  <div>${op.summary ?? ''} <span class="auth">· ${tag} · auth: ${auth(op)}</span></div>
  ${op.description ? html`<p>${op.description}</p>` : ''}
  ${
    op.parameters?.length
      ? html`<h4>Parameters</h4><ul>${op.parameters.map(
          (p) =>
            html`<li><code>${p.name}</code> (${p.in}${p.required ? ', required' : ''}) ${p.description ?? ''}</li>`,
        )}</ul>`
      : ''
  }
  ${
    op.requestBody?.content
      ? Object.entries(op.requestBody.content).map(
          ([type, media]) =>
            html`<h4>Request body <code>${type}</code></h4><pre>${schemaText(media.schema, components)}</pre>`,
        )
      : ''
  }
  <h4>Responses</h4>
  <ul>${Object.entries(op.responses ?? {}).map(
    ([status, r]) => html`<li><code>${status}</code> ${r.description ?? ''}</li>`,
  )}</ul>
</section>`,
  ),
)}
</div>
</main>

</body>
</html>`
}
