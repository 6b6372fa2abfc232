/**
 * `partner-sandbox trigger` (events list, chosen fields, what it made) and `listen`'s marking of
 * webhook lab deliveries: a real sandbox on 127.0.0.1 and the CLI as a real process.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { eventCatalogue } from '../src/webhooks/catalogue.js'
import { spawnCli, stopCliProcesses, until } from './cli-process.js'
import { httpCall, onboardedUser, receiverForTest, servedForTest } from './helpers.js'

// The CLIs stop first, then (onTestFinished) the receivers and sandboxes they talk to.
afterEach(stopCliProcesses)

async function sandboxOn127() {
  return servedForTest()
}

describe('partner-sandbox trigger', () => {
  it('without an event lists every event, one line each', async () => {
    const cli = spawnCli(['trigger'])
    expect((await cli.exited).code).toBe(2)
    const lines = cli.output.stderr.split('\n')
    for (const [type, what] of Object.entries(eventCatalogue))
      expect(lines.some((l) => l.includes(type) && l.includes(what))).toBe(true)
  }, 60_000)

  it('--override sets chosen fields; it prints the ids it made and the event', async () => {
    const sandbox = await sandboxOn127()
    const api = httpCall(sandbox.url)
    const u = await onboardedUser(api)
    const cli = spawnCli([
      'trigger',
      'card.funded',
      '--url',
      sandbox.url,
      '--override',
      'data.object.amount=12.34',
    ])
    expect((await cli.exited).code, cli.output.stderr).toBe(0)
    const out = cli.output.stdout
    const eventId = /^Triggered card\.funded (evt_\w+) for acme-fintech/.exec(out)?.[1]
    const txnId = /^Made card_transaction (txn_\w+)$/m.exec(out)?.[1] as string
    expect(eventId).toBeDefined()
    const event = JSON.parse(out.slice(out.indexOf('{')))
    expect(event).toMatchObject({ id: eventId, type: 'card.funded' })
    expect(event.data.object).toMatchObject({ amount: 12.34, transaction_id: txnId })
    // The cardholder sees the transaction it made on their card.
    const transactions = async () =>
      (await api('GET', '/api/v1/partner/transactions?limit=100', { headers: u.bearer })).json.data
        .data
    const made = await api('GET', `/api/v1/partner/transactions/${txnId}`, { headers: u.bearer })
    expect(made.json.data).toMatchObject({ id: txnId, card_id: u.cardId, amount: 12.34 })

    // A value that is not JSON is a string, which the schema refuses: nothing is made.
    const before = await transactions()
    expect(before.map((t: { id: string }) => t.id)).toContain(txnId)
    const bad = spawnCli([
      'trigger',
      'card.funded',
      '--url',
      sandbox.url,
      '--override',
      'data.object.amount=lots',
    ])
    expect((await bad.exited).code).toBe(1)
    expect(bad.output.stderr).toContain('data.object.amount must be a number')
    expect(await transactions()).toEqual(before)
    const malformed = spawnCli(['trigger', 'card.funded', '--override', 'amount'])
    expect((await malformed.exited).code).toBe(2)
    expect(malformed.output.stderr).toContain('write PATH=VALUE')
  }, 60_000)

  it('a resent object says nothing new was made', async () => {
    const sandbox = await sandboxOn127()
    await onboardedUser(httpCall(sandbox.url))
    const cli = spawnCli(['trigger', 'user.created', '--url', sandbox.url])
    expect((await cli.exited).code, cli.output.stderr).toBe(0)
    expect(cli.output.stdout).toContain("Made nothing new: the object is that of acme-fintech's")
    expect(JSON.parse(cli.output.stdout.slice(cli.output.stdout.indexOf('{'))).type).toBe(
      'user.created',
    )
  }, 60_000)
})

describe('partner-sandbox listen and the webhook lab', () => {
  it('prints lab deliveries as such, and ordinary ones without a mark', async () => {
    const sandbox = await sandboxOn127()
    const app = await receiverForTest()
    const cli = spawnCli(['listen', '--forward-to', app.url, '--url', sandbox.url])
    await until(cli, (o) => o.includes('Webhook signing secret'), 'ready line')
    const webhookId = /endpoint (wh_\w+)/.exec(cli.output.stdout)?.[1] as string
    await sandbox.control.webhooks.lab.arm(webhookId, ['forged_signature'])
    await sandbox.control.events.trigger(DEFAULT_PARTNER.id, 'webhook.test', { id: 'x' })
    await until(cli, (o) => /LAB forged_signature {2}<-- \[200\]/.test(o), 'lab line')
    const lines = cli.output.stdout.split('\n').filter((l) => l.includes('--> webhook.test'))
    expect(lines).toHaveLength(2)
    expect(lines.filter((l) => l.includes('LAB'))).toHaveLength(1)
    // The app accepted the forgery (the receiver answers 200): the report says so.
    await sandbox.control.webhooks.flush()
    const report = await sandbox.control.webhooks.lab.report(webhookId)
    expect(report.checks[0]).toMatchObject({ check: 'forged_signature', verdict: 'fail' })
  }, 60_000)
})
