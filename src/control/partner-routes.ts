import { z } from '@hono/zod-openapi'
import { pageOf } from '../domain/pagination.js'
import { publicPartner } from '../domain/partners.js'
import { namesOf, type ProductionNames } from '../domain/production-names.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import { errorResponses, jsonBody, jsonResponse } from '../schemas/common.js'
import { controlPageQuery } from '../schemas/limit.js'
import type { Partners } from '../services/partners.js'
import type { Platform } from '../services/platform.js'
import type { PartnerRow } from '../store/records.js'
import { controlRoute, controlRouter } from './router.js'
import {
  CreatedPartner,
  CreatePartnerBody,
  PartnerIdParam,
  PatchSandboxPartner,
  SandboxPartner,
} from './schemas.js'

/** What the control plane shows of a partner: its scenario, and whether that can be found. */
export function sandboxPartner(
  s: { scenarios: Pick<ScenarioRegistry, 'problemOf'>; names: ProductionNames },
  p: PartnerRow,
) {
  const names = namesOf(s.names, p)
  return {
    ...publicPartner(p),
    scenario: p.scenario,
    auto_complete: p.auto_complete ?? false,
    names: { signature_header: names.signatureHeader, provider: names.provider },
    scenario_error: s.scenarios.problemOf(p) ?? null,
  }
}

const partnerPages = controlPageQuery('partner', z.uuid({ error: 'must be a partner id (uuid)' }))

/** Partners: list, create with fresh test credentials, set status, scenario or rate limit. */
export function partnerRoutes(s: {
  partners: Partners
  platform: Platform
  scenarios: ScenarioRegistry
  names: ProductionNames
}) {
  const app = controlRouter()

  app.openapi(
    controlRoute({
      method: 'get',
      path: '/partners',
      operationId: 'listSandboxPartners',
      summary: 'List partners',
      ...partnerPages,
      responses: {
        200: jsonResponse(pageOf(SandboxPartner), 'A page of partners.'),
        ...errorResponses(400, 401),
      },
    }),
    async (c) => {
      const page = await s.partners.page(c.req.valid('query'))
      return c.json(
        { data: page.data.map((p) => sandboxPartner(s, p)), has_more: page.has_more },
        200,
      )
    },
  )

  app.openapi(
    controlRoute({
      method: 'post',
      path: '/partners',
      operationId: 'createSandboxPartner',
      summary: 'Create a partner with fresh test credentials',
      description:
        'The unit of isolation for parallel tests: one partner per test worker, optionally with its own scenario.',
      request: { body: jsonBody(CreatePartnerBody) },
      responses: {
        201: jsonResponse(CreatedPartner, 'The partner and its credentials.'),
        ...errorResponses(400, 401, 409, 415),
      },
    }),
    async (c) => {
      const { partner, api_key, api_secret, webhook_secret } = await s.partners.create(
        c.req.valid('json'),
      )
      const scenario = s.scenarios.forPartner(partner).name
      return c.json(
        {
          partner: publicPartner(partner),
          api_key,
          api_secret,
          scenario,
          ...(webhook_secret ? { webhook_secret } : {}),
        },
        201,
      )
    },
  )

  app.openapi(
    controlRoute({
      method: 'patch',
      path: '/partners/{id}',
      operationId: 'updateSandboxPartner',
      summary: "Set a partner's status, scenario, rate limit, auto_complete or production names",
      request: { params: PartnerIdParam, body: jsonBody(PatchSandboxPartner) },
      responses: {
        200: jsonResponse(SandboxPartner, 'The partner.'),
        ...errorResponses(400, 401, 404, 415),
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param')
      const partner = await s.platform.updatePartner(id, c.req.valid('json'))
      return c.json(sandboxPartner(s, partner), 200)
    },
  )

  return app
}
