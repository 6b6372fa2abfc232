// The spec's happy path over HTTP, checked at every step: register -> login -> (inbox) ->
// verify-otp -> onboarding start -> complete -> simulate-fund -> status -> transactions.
// Used by the flows benchmark (in its own load-generator process) and to prepare the user
// whose card the throughput benchmark reads.
import http from 'node:http'
import { assertLoopback, partnerHeaders } from './lib.mjs'

const json = { ...partnerHeaders, 'content-type': 'application/json' }

/**
 * Keep-alive connections reused across calls, over node:http rather than fetch: the load
 * generator shares the machine's cores with the sandbox, and fetch (undici, WHATWG streams)
 * costs several times the CPU per request, which the sandbox's figure would pay for.
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 })

/** One API call; throws on anything but a 2xx, with the answer's start. */
export function call(base, method, path, body, extra = {}) {
  const url = new URL(path, assertLoopback(base))
  const payload = body === undefined ? undefined : JSON.stringify(body)
  const headers = { ...json, ...extra }
  if (payload !== undefined) headers['content-length'] = Buffer.byteLength(payload)
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => {
        text += chunk
      })
      res.on('end', () => {
        if (res.statusCode < 200 || res.statusCode >= 300) {
          const error = new Error(
            `${method} ${path} answered ${res.statusCode}: ${text.slice(0, 200)}`,
          )
          error.status = res.statusCode
          reject(error)
          return
        }
        try {
          resolve(JSON.parse(text))
        } catch (error) {
          reject(error)
        }
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(payload)
  })
}

let turn = 0

/** A step's name: its method and path, without the query and with the onboarding id as {id}. */
export const stepOf = (method, path) =>
  `${method} ${path
    .split('?')[0]
    .replace(/\/onboarding\/[^/]+\/complete$/, '/onboarding/{id}/complete')
    .replace(/\/onboardings\/[^/]+\/walk$/, '/onboardings/{id}/walk')}`

/**
 * Runs the whole flow for a new user `tag`; resolves with the user's Bearer header. `bases`
 * is one sandbox's URL, or several replicas' URLs: then each request goes to the next one in
 * turn, as through a round-robin load balancer, so a step often finds what another made.
 * `timed(step, ms)`, when given, hears how long each answered request took (`stepOf`).
 */
export async function flow(bases, tag, timed) {
  const urls = [bases].flat()
  const send = async (method, path, ...rest) => {
    const t = performance.now()
    const answer = await call(urls[turn++ % urls.length], method, path, ...rest)
    timed?.(stepOf(method, path), performance.now() - t)
    return answer
  }
  const email = `flow.${tag}@example.com`
  const password = 'Bench-Passw0rd!'
  const applicant = {
    first_name: 'Flow',
    last_name: 'Bench',
    email,
    phone_number: '+14155550100',
    date_of_birth: '1985-06-15',
  }
  await send('POST', '/api/v1/partner/auth/register', {
    ...applicant,
    password,
    ssn: '123-45-6789',
  })
  await send('POST', '/api/v1/partner/auth/login', { email, password })
  const inbox = await send('GET', `/_sandbox/inbox?email=${encodeURIComponent(email)}&limit=1`)
  const { sessionToken } = await send('POST', '/api/v1/partner/auth/verify-otp', {
    email,
    code: inbox.data[0].code,
  })
  const bearer = { authorization: `Bearer ${sessionToken}` }
  const start = await send(
    'POST',
    '/api/v1/partner/cards/onboarding',
    {
      ...applicant,
      country_code: 'US',
      address_line1: '1 Market St',
      address_city: 'San Francisco',
      address_state: 'CA',
      address_zip: '94105',
      ssn: '123-45-6789',
    },
    bearer,
  )
  // The hosted flow, walked headlessly: the completion is taken only once it ended. A build
  // from before that rule (bench:compare's old one) has no walk and completes without it.
  await send('POST', `/_sandbox/onboardings/${start.data.onboardingId}/walk`, {}).catch((error) => {
    if (error.status !== 404) throw error
  })
  await send(
    'POST',
    `/api/v1/partner/cards/onboarding/${start.data.onboardingId}/complete`,
    { result: 'pass', data: { source: 'bench' }, agreement_accepted: true },
    bearer,
  )
  const funded = await send('POST', '/api/v1/partner/cards/simulate-fund', { amount: 42.5 }, bearer)
  const status = await send('GET', '/api/v1/partner/cards/status', undefined, bearer)
  const txns = await send('GET', '/api/v1/partner/cards/transactions?limit=10', undefined, bearer)
  if (
    funded.availableBalance !== 42.5 ||
    status.data.balances.available !== 42.5 ||
    status.data.card?.status !== 'active' ||
    txns.data.data.length !== 1
  ) {
    throw new Error(`flow ${tag} ended in the wrong state: ${JSON.stringify(status.data)}`)
  }
  return bearer
}
