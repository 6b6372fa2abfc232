import { OpenAPIHono } from '@hono/zod-openapi'
import { publicPartner } from '../domain/partners.js'
import { accessRoute } from '../http/access.js'
import type { AppEnv } from '../http/app-env.js'
import { validationHook } from '../http/validation.js'
import type { TagName } from '../openapi/tags.js'
import { errorResponses, jsonBody, jsonResponse, orgErrors } from '../schemas/common.js'
import { PartnerEnvelope, PatchPartnerBody, RotatedCredentials, Usage } from '../schemas/partner.js'
import type { Partners } from '../services/partners.js'

const tags: TagName[] = ['Partner organization']

const getMe = accessRoute('org', {
  method: 'get',
  path: '/partner/me',
  operationId: 'getPartner',
  tags,
  summary: 'Read the partner record',
  responses: {
    200: jsonResponse(PartnerEnvelope, 'The partner record.'),
    ...errorResponses(...orgErrors),
  },
})

const patchMe = accessRoute('org', {
  method: 'patch',
  path: '/partner/me',
  operationId: 'updatePartner',
  tags,
  summary: 'Update the partner record',
  description:
    'At least one field is required. `api_key` and the secret cannot be edited here. Setting `webhook_url` where there was none adds the primary webhook endpoint: 409 when the partner already has as many endpoints as the sandbox allows (`--webhook-limit`, 16).',
  request: { body: jsonBody(PatchPartnerBody) },
  responses: {
    200: jsonResponse(PartnerEnvelope, 'The updated partner record.'),
    ...errorResponses(400, ...orgErrors, 409, 413, 415),
  },
})

const rotate = accessRoute('org', {
  method: 'post',
  path: '/partner/me/rotate-api-key',
  operationId: 'rotateApiKey',
  tags,
  summary: 'Rotate the API key and secret',
  description:
    'The previous key and secret stop working at once. The new secret is returned only here.',
  responses: {
    200: jsonResponse(RotatedCredentials, 'The new credentials.'),
    ...errorResponses(...orgErrors),
  },
})

const getUsage = accessRoute('org', {
  method: 'get',
  path: '/partner/usage',
  operationId: 'getPartnerUsage',
  tags,
  summary: 'Usage snapshot',
  responses: {
    200: jsonResponse(Usage, 'Counts for this partner.'),
    ...errorResponses(...orgErrors),
  },
})

export function partnerRoutes(s: { partners: Partners }) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })

  app.openapi(getMe, (c) => c.json({ partner: publicPartner(c.get('partner')) }, 200))

  app.openapi(patchMe, async (c) => {
    const updated = await s.partners.update(c.get('partner'), c.req.valid('json'))
    return c.json({ partner: publicPartner(updated) }, 200)
  })

  app.openapi(rotate, async (c) => {
    const credentials = await s.partners.rotateCredentials(c.get('partner').id)
    return c.json(
      {
        ...credentials,
        message:
          'Credentials rotated. The previous key and secret no longer work. Store this secret now: it is not shown again.',
      },
      200,
    )
  })

  app.openapi(getUsage, async (c) => c.json(await s.partners.usage(c.get('partner')), 200))

  return app
}
