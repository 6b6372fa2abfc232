import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { envNames } from '../src/config.js'
import { setup } from './helpers.js'
import { describePostgres, freshDatabaseUrl } from './postgres.js'

// examples/cluster: no Docker engine runs here, so what can be checked without one is: the
// compose file's services and how they depend on each other, that every variable it gives
// the sandbox is one the sandbox reads, that HAProxy's health check asks a route that
// answers 200, and (when HAProxy is installed) that HAProxy accepts its configuration.

const dir = join(import.meta.dirname, '..', 'examples', 'cluster')
// biome-ignore lint/suspicious/noExplicitAny: a parsed YAML document, each field asserted below
const compose: any = parse(readFileSync(join(dir, 'compose.yaml'), 'utf8'), { merge: true })
const haproxy = readFileSync(join(dir, 'haproxy.cfg'), 'utf8')
const services = compose.services
const healthPath = /http-check send meth GET uri (\S+)/.exec(haproxy)?.[1]

describe('examples/cluster/compose.yaml', () => {
  it('runs PostgreSQL, a migration job, the sandbox and a load balancer', () => {
    expect(Object.keys(services).sort()).toEqual(['loadbalancer', 'migrate', 'postgres', 'sandbox'])
    expect(services.postgres.image).toMatch(/^postgres:\d+/)
    expect(services.postgres.healthcheck.test.join(' ')).toContain('pg_isready')
    expect(services.loadbalancer.image).toMatch(/^haproxy:/)
  })

  it('starts 3 sandbox replicas once the migration has completed', () => {
    expect(services.sandbox.deploy.replicas).toBe(3)
    expect(services.sandbox.depends_on.migrate.condition).toBe('service_completed_successfully')
    expect(services.migrate.depends_on.postgres.condition).toBe('service_healthy')
    expect(services.migrate.command.at(-1)).toBe('migrate')
    expect(services.loadbalancer.depends_on.sandbox.condition).toBe('service_healthy')
    // Both run the same image: the one the repository's Dockerfile builds.
    expect(services.migrate.image).toBe(services.sandbox.image)
    expect(services.sandbox.build.context).toBe('../..')
    expect(existsSync(join(dir, services.sandbox.build.context, 'Dockerfile'))).toBe(true)
  })

  it('gives the sandbox only variables it reads, and the database of the postgres service', () => {
    for (const service of [services.migrate, services.sandbox]) {
      for (const name of Object.keys(service.environment)) expect(envNames).toHaveProperty(name)
      const url = new URL(service.environment.SANDBOX_DATABASE_URL)
      const pg = services.postgres.environment
      expect(url.protocol).toBe('postgres:')
      expect(url.hostname).toBe('postgres')
      expect([url.username, url.password, url.pathname]).toEqual([
        pg.POSTGRES_USER,
        pg.POSTGRES_PASSWORD,
        `/${pg.POSTGRES_DB}`,
      ])
    }
    expect(envNames.SANDBOX_DATABASE_URL).toBe('database')
    expect(services.sandbox.environment.SANDBOX_HOST).toBe('0.0.0.0')
    // A shared sandbox's control plane is guarded: compose refuses to start without a token.
    expect(services.sandbox.environment.SANDBOX_ADMIN_TOKEN).toMatch(/^\$\{SANDBOX_ADMIN_TOKEN:\?/)
  })

  it('publishes the API on 4010 through HAProxy, round robin over every replica', () => {
    expect(services.loadbalancer.ports).toContain('4010:4010')
    expect(services.loadbalancer.volumes).toContain(
      './haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro',
    )
    expect(haproxy).toMatch(/^\s*bind :4010$/m)
    expect(haproxy).toMatch(/^\s*balance roundrobin$/m)
    // Slots for every replica, on the port the image listens on (SANDBOX_PORT in Dockerfile).
    const template = /server-template \S+ (\d+) sandbox:(\d+)/.exec(haproxy)
    expect(Number(template?.[1])).toBeGreaterThanOrEqual(services.sandbox.deploy.replicas)
    const dockerfile = readFileSync(join(dir, '..', '..', 'Dockerfile'), 'utf8')
    expect(dockerfile).toContain(`SANDBOX_PORT=${template?.[2]}`)
  })
})

describe('the load balancer’s health check', () => {
  it('asks the sandbox’s open health route, which answers 200 without credentials', async () => {
    expect(healthPath).toBe('/_sandbox/health')
    const { call } = await setup({ adminToken: 'a-token-the-check-does-not-send' })
    const res = await call('GET', healthPath as string, { creds: null })
    expect(res.status, res.text).toBe(200)
    expect(res.json.status).toBe('ok')
  })

  // `haproxy -c` checks the whole configuration; without HAProxy this is left to the manual
  // step in examples/cluster/README.md.
  const haproxyBinary = spawnSync('haproxy', ['-v']).status === 0
  it.skipIf(!haproxyBinary)('HAProxy accepts the configuration (haproxy -c)', () => {
    const checked = spawnSync('haproxy', ['-c', '-f', join(dir, 'haproxy.cfg')], {
      encoding: 'utf8',
    })
    expect(checked.status, checked.stderr || checked.stdout).toBe(0)
  })
})

describePostgres('a replica’s health on PostgreSQL', () => {
  it('says its state is in PostgreSQL', async () => {
    const { call } = await setup({ database: freshDatabaseUrl() })
    const res = await call('GET', '/_sandbox/health', { creds: null })
    expect(res.status, res.text).toBe(200)
    expect(res.json.storage).toBe('postgres')
  })
})
