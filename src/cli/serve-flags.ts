import type { SandboxConfig } from '../config.js'
import type { Flag } from './flags.js'

/** A flag of the sandbox itself, and the option of startSandbox it sets. */
export type ServeFlag = Flag & { key?: keyof SandboxConfig }

const string = (name: string, key: keyof SandboxConfig, arg: string, help: string, def?: string) =>
  ({ name, key, type: 'string', arg, help, default: def }) satisfies ServeFlag

/**
 * The sandbox's own flags, in the order `--help` lists them. Each is also read from the
 * environment as SANDBOX_ and its name in capitals (config.ts `envNames`; a test holds them
 * to that rule, which the help states instead of a column of variable names).
 */
export const serveFlags: ServeFlag[] = [
  string('port', 'port', 'N', 'port to listen on, 0 for any free one', '4010'),
  string('host', 'host', 'HOST', 'address to bind', '127.0.0.1'),
  string('data', 'data', 'FILE', 'keep state in this JSON file', 'memory only'),
  string(
    'database',
    'database',
    'URL',
    'keep state in PostgreSQL (postgres://…), shared by\nevery sandbox given the same URL; also SANDBOX_DATABASE_URL',
  ),
  string('fixtures', 'fixtures', 'PATH', 'fixtures file or folder to seed from', 'bundled'),
  string('scenario', 'scenario', 'NAME|FILE', 'scenario for the whole sandbox', '"default"'),
  string('seed', 'seed', 'N', 'make generated ids and values reproducible'),
  string('rate-limit', 'rateLimit', 'N|off', 'requests/minute for every partner', "each partner's"),
  string('log-level', 'logLevel', 'LEVEL', 'silent, error, warn, info or debug', 'info'),
  string('log-format', 'logFormat', 'FORMAT', 'pretty (coloured on a TTY) or json lines', 'pretty'),
  string('admin-token', 'adminToken', 'TOKEN', 'require this token on /_sandbox/*'),
  string('public-url', 'publicUrl', 'URL', 'base URL of the links the sandbox returns'),
  string('session-ttl', 'sessionTtl', 'DUR', 'session lifetime: 30m, 24h, or ms', '24h'),
  string('picture-limit', 'pictureLimit', 'BYTES', 'largest profile picture', '2097152'),
  string('webhook-limit', 'webhookLimit', 'N', 'most webhook endpoints of a partner', '16'),
  string('body-limit', 'bodyLimit', 'BYTES', 'largest JSON body, API and control plane', '1048576'),
  string('snapshot-limit', 'snapshotLimit', 'BYTES', 'largest snapshot restore body', '16777216'),
  string('body-timeout', 'bodyTimeout', 'DUR', 'time to send a body after the headers', '30s'),
  string('headers-timeout', 'headersTimeout', 'DUR', 'time to send the headers', '10s'),
  string(
    'default-inquiry-id',
    'defaultInquiryId',
    'ID|off',
    'inquiry_id of a completion without one',
    'inq_sandbox_default',
  ),
  string(
    'default-product-id',
    'defaultProductId',
    'ID|off',
    'product_id of a completion without one',
    'prod_sandbox_card',
  ),
  string(
    'signature-header',
    'signatureHeader',
    'NAME',
    'name of the webhook signature header',
    'X-Service-Signature',
  ),
  string(
    'provider-name',
    'providerName',
    'WORD',
    "provider's word in field names: WORD_consumer_id",
    'provider',
  ),
  {
    name: 'fsync',
    key: 'fsync',
    type: 'boolean',
    help: 'fsync every write: power-loss safe, slower',
    default: 'off',
  },
  {
    name: 'trust-proxy',
    key: 'trustProxy',
    type: 'boolean',
    help: 'believe X-Forwarded-Host/-Proto/-For (from a proxy)',
    default: 'off',
  },
  { name: 'help', type: 'boolean', short: 'h', help: 'show this help (or: help COMMAND)' },
  { name: 'version', type: 'boolean', short: 'v', help: 'print the version' },
]

/** `--rate-limit` → `SANDBOX_RATE_LIMIT`: the rule the help states for every flag. */
export const envNameOf = (flag: string) => `SANDBOX_${flag.toUpperCase().replaceAll('-', '_')}`
