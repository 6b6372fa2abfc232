/**
 * `partner-sandbox listen` and `trigger` end to end: a real sandbox on 127.0.0.1, the CLI as a
 * real process, and a real local app (a receiver on 127.0.0.1) that the deliveries reach with
 * signatures that verify with the secret `listen` printed.
 */
import { Webhook } from 'standardwebhooks'
import Stripe from 'stripe'
import { afterEach, describe, expect, it } from 'vitest'
import { type RunningSandbox, startSandbox } from '../src/index.js'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { spawnCli, stopCliProcesses, until } from './cli-process.js'
import {
  engineOptions,
  httpCall,
  onboardedUser,
  type Receiver,
  receiverForTest,
  servedForTest,
} from './helpers.js'

// The CLIs stop first, then (onTestFinished) the receivers and sandboxes they talk to.
afterEach(stopCliProcesses)

/** The default partner's webhook endpoints (GET /partner/webhooks), as its backend sees them. */
async function endpointsOf(sandbox: RunningSandbox) {
  const res = await httpCall(sandbox.url)('GET', '/api/v1/partner/webhooks')
  expect(res.status, res.text).toBe(200)
  return res.json.data as { id: string; events: string[] }[]
}

/** An endpoint's delivery log (GET /partner/webhooks/{id}/deliveries). */
async function deliveriesOf(sandbox: RunningSandbox, id: string) {
  const res = await httpCall(sandbox.url)('GET', `/api/v1/partner/webhooks/${id}/deliveries`)
  expect(res.status, res.text).toBe(200)
  return res.json.data
}

async function setup(...replies: number[]) {
  const sandbox = await servedForTest()
  const app: Receiver = await receiverForTest(...replies)
  return { sandbox, app }
}

describe('partner-sandbox listen / trigger', () => {
  it('listen subscribes, prints the secret once, forwards signed deliveries, prints each answer', async () => {
    const { sandbox, app } = await setup(200, 500)
    const cli = spawnCli([
      'listen',
      '--forward-to',
      app.url,
      '--url',
      sandbox.url,
      '--events',
      'card.funded,user.created',
    ])
    await until(cli, (o) => o.includes('Webhook signing secret: whsec_'), 'ready line')
    const secret = /Webhook signing secret: (whsec_\S+)/.exec(cli.output.stdout)?.[1] as string
    const hooks = await endpointsOf(sandbox)
    expect(hooks).toHaveLength(1)
    expect(hooks[0]?.events).toEqual(['card.funded', 'user.created'])

    const emit = (type: string) =>
      fetch(`${sandbox.url}/_sandbox/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ partner_id: DEFAULT_PARTNER.id, type, object: { id: 'card_x' } }),
      })
    expect((await emit('card.funded')).status).toBe(201)
    await app.waitFor(1)
    const got = app.requests[0] as Receiver['requests'][number]
    const body = got.body.toString('utf8')
    // The app sees the sandbox's own signatures, verifiable with the printed secret.
    expect(() =>
      new Webhook(secret.slice('whsec_'.length)).verify(
        body,
        got.headers as Record<string, string>,
      ),
    ).not.toThrow()
    const stripe = new Stripe('sk_test_x')
    expect(
      stripe.webhooks.constructEvent(body, got.headers['x-service-signature'] as string, secret)
        .type,
    ).toBe('card.funded')
    await until(
      cli,
      (o) => /--> card\.funded \[evt_\w+\] {2}<-- \[200\] POST/.test(o),
      'delivery line',
    )

    // The app's failure goes back to the sandbox: the delivery is retried.
    expect((await emit('user.created')).status).toBe(201)
    await until(cli, (o) => /--> user\.created \[evt_\w+\] {2}<-- \[500\]/.test(o), 'failure line')
    // The attempt is recorded once the answer is back in the sandbox, as the line is printed.
    const failed = async () =>
      (await deliveriesOf(sandbox, hooks[0]?.id as string)).find(
        (d: { event_type: string }) => d.event_type === 'user.created',
      )
    await expect
      .poll(async () => (await failed())?.attempts[0]?.status_code, { timeout: 10_000 })
      .toBe(500)
    expect(cli.output.stdout.split('whsec_').length).toBe(2) // printed once

    // Stopping removes the endpoint it made.
    cli.child.kill('SIGTERM')
    await cli.exited
    expect(await endpointsOf(sandbox)).toHaveLength(0)
    expect(cli.output.stdout).toContain(`Removed webhook endpoint ${hooks[0]?.id}`)
  }, 60_000)

  it('Ctrl-C removes the endpoint, says which and where it forwarded, and exits 0', async () => {
    const { sandbox, app } = await setup()
    const cli = spawnCli(['listen', '--forward-to', app.url, '--url', sandbox.url])
    await until(cli, (o) => o.includes('Webhook signing secret: whsec_'), 'ready line')
    const [hook] = await endpointsOf(sandbox)
    expect(hook?.id).toMatch(/^wh_/)
    cli.child.kill('SIGINT')
    expect(await cli.exited).toEqual({ code: 0, signal: null })
    expect(cli.output.stdout).toContain(
      `Removed webhook endpoint ${hook?.id} (forwarding to ${app.url})\n`,
    )
    expect(cli.output.stderr).toBe('')
    expect(await endpointsOf(sandbox)).toHaveLength(0)
  }, 60_000)

  it('when the sandbox is gone at Ctrl-C, says the endpoint is left and how to delete it (exit 1)', async () => {
    // Not through setup(): this test closes the sandbox itself.
    const sandbox = await startSandbox({ ...engineOptions(), port: 0, logLevel: 'silent' })
    const app = await receiverForTest()
    const cli = spawnCli(['listen', '--forward-to', app.url, '--url', sandbox.url])
    await until(cli, (o) => o.includes('Webhook signing secret: whsec_'), 'ready line')
    const id = (await endpointsOf(sandbox))[0]?.id as string
    await sandbox.close()
    cli.child.kill('SIGINT')
    expect(await cli.exited).toEqual({ code: 1, signal: null })
    expect(cli.output.stdout).toContain(`Could not remove webhook endpoint ${id}: cannot reach`)
    expect(cli.output.stdout).toContain(`delete it with DELETE /api/v1/partner/webhooks/${id}`)
    expect(cli.output.stdout).not.toContain('Removed webhook endpoint')
  }, 60_000)

  it('trigger card_transaction.created makes a real transaction and names it', async () => {
    const { sandbox } = await setup()
    const none = spawnCli(['trigger', 'card_transaction.created', '--url', sandbox.url])
    const failed = await none.exited
    expect(failed.code).toBe(1)
    expect(none.output.stderr).toContain('no user with an active card')

    const other = spawnCli([
      'trigger',
      'webhook.test',
      '--url',
      sandbox.url,
      '--partner',
      'pk_test_nobody',
    ])
    expect((await other.exited).code).toBe(1)
    expect(other.output.stderr).toContain('no partner has the API key pk_test_nobody')

    // A real cardholder, then a trigger whose transaction the sandbox holds.
    const api = httpCall(sandbox.url)
    const u = await onboardedUser(api)
    const cli = spawnCli([
      'trigger',
      'card_transaction.created',
      '--url',
      sandbox.url,
      '--partner',
      DEFAULT_PARTNER.api_key,
    ])
    expect((await cli.exited).code, cli.output.stderr).toBe(0)
    const id = /Triggered card_transaction\.created evt_\w+ for acme-fintech \((txn_\w+)\)/.exec(
      cli.output.stdout,
    )?.[1]
    // The cardholder sees it on their card.
    const made = await api('GET', `/api/v1/partner/transactions/${id}`, { headers: u.bearer })
    expect(made.status, made.text).toBe(200)
    expect(made.json.data).toMatchObject({ id, card_id: u.cardId })
  }, 60_000)
})
