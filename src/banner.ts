import type { SandboxConfig } from './config.js'
import { SPEC_PROVIDER_WORD, SPEC_SIGNATURE_HEADER } from './domain/production-names.js'
import { describeDatabase } from './state/database-url.js'

/** What the start-up banner shows, gathered by the CLI from the running sandbox. */
export interface BannerFacts {
  version: string
  readyMs: number
  url: string
  config: SandboxConfig
  scenario: string
  credentials?: { apiKey: string; apiSecret: string }
}

/** 127.0.0.0/8, ::1 and localhost: only this machine can connect. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase()
  return h === 'localhost' || h === '::1' || /^127(?:\.\d{1,3}){3}$/.test(h)
}

/**
 * Bound beyond loopback (a container, a shared CI host) with no admin token, whoever reaches
 * the port drives the control plane. Said plainly, with the fix, since it is the default in
 * the Docker image.
 */
export function openControlPlaneWarning(config: SandboxConfig, url: string): string | undefined {
  if (config.adminToken || isLoopback(config.host)) return undefined
  return [
    `  WARNING   The control plane (/_sandbox) is open to whoever reaches port ${new URL(url).port} on ${config.host}:`,
    '            they can read the inbox (OTP codes), export and restore snapshots, create partners',
    '            and reset state. Guard it with --admin-token TOKEN (or SANDBOX_ADMIN_TOKEN);',
    '            /_sandbox/health stays open for health checks.',
  ].join('\n')
}

/** Where the state lives: PostgreSQL (its password masked), a data file, or memory. */
function storage(config: SandboxConfig): string {
  if (config.database) return `PostgreSQL ${describeDatabase(config.database)}`
  return config.data ?? 'memory (use --data FILE to keep state)'
}

/**
 * The names deliveries and answers carry. The spec's are placeholders for production's, which
 * a partner's code should be tested with: said until they are set.
 */
function names(config: SandboxConfig): string {
  const field = `${config.providerName}_consumer_id`
  const set = `  Names     ${config.signatureHeader}, ${field}`
  if (
    config.signatureHeader !== SPEC_SIGNATURE_HEADER ||
    config.providerName !== SPEC_PROVIDER_WORD
  )
    return set
  return `${set}   (the spec's placeholders: set production's with --signature-header, --provider-name)`
}

/** The start-up banner: where things are, the default credentials, and any exposure warning. */
export function banner(facts: BannerFacts): string {
  const { url, config, credentials } = facts
  const lines = [
    `partner-sandbox ${facts.version} ready in ${Math.round(facts.readyMs)} ms`,
    `  API       ${url}/api/v1`,
    `  Docs      ${url}/docs   (OpenAPI: ${url}/openapi.json)`,
    `  Control   ${url}/_sandbox${config.adminToken ? '   (admin token required)' : ''}`,
    `  Storage   ${storage(config)}`,
    `  Scenario  ${facts.scenario}`,
    names(config),
  ]
  if (credentials) {
    const { apiKey, apiSecret } = credentials
    lines.push(`  X-Partner-Key     ${apiKey}`, `  X-Partner-Secret  ${apiSecret}`)
    lines.push(
      `  Try: curl -H 'X-Partner-Key: ${apiKey}' -H 'X-Partner-Secret: ${apiSecret}' ${url}/api/v1/partner/me`,
    )
  }
  const warning = openControlPlaneWarning(config, url)
  if (warning) lines.push(warning)
  return `${lines.join('\n')}\n`
}
