import { OpenAPIHono } from '@hono/zod-openapi'
import { publicUser } from '../domain/users.js'
import { accessRoute } from '../http/access.js'
import type { AppEnv } from '../http/app-env.js'
import { validationHook } from '../http/validation.js'
import type { TagName } from '../openapi/tags.js'
import { errorResponses, jsonBody, jsonResponse, orgErrors } from '../schemas/common.js'
import { PatchUserBody, ProfilePictureBody, ProfilePictureResult, User } from '../schemas/users.js'
import type { Accounts } from '../services/accounts.js'

const tags: TagName[] = ['User profile']

export function userRoutes(s: { accounts: Accounts; baseUrl(): string }) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })

  app.openapi(
    accessRoute('session', {
      method: 'get',
      path: '/partner/users/me',
      operationId: 'getCurrentUser',
      tags,
      summary: 'Read the signed-in user',
      responses: {
        200: jsonResponse(User, 'The user record (no ssn).'),
        ...errorResponses(...orgErrors),
      },
    }),
    (c) => c.json(publicUser(s, c.get('user')), 200),
  )

  app.openapi(
    accessRoute('session', {
      method: 'patch',
      path: '/partner/users/me',
      operationId: 'updateCurrentUser',
      tags,
      summary: 'Update the signed-in user',
      description:
        'Only first_name, last_name, date_of_birth, address, secondary_address and metadata. id, partner_id, email and phone_number cannot be changed (400 naming the field).',
      request: { body: jsonBody(PatchUserBody) },
      responses: {
        200: jsonResponse(User, 'The updated user.'),
        ...errorResponses(400, ...orgErrors, 413, 415),
      },
    }),
    async (c) => {
      const updated = await s.accounts.updateProfile(c.get('user'), c.req.valid('json'))
      return c.json(publicUser(s, updated), 200)
    },
  )

  app.openapi(
    accessRoute('session', {
      method: 'patch',
      path: '/partner/users/me/profile-picture',
      operationId: 'uploadProfilePicture',
      tags,
      summary: 'Upload a profile picture',
      description: `multipart/form-data with one file field \`profile_picture\`: PNG, JPEG or WebP, recognised by content; at most ${s.accounts.pictureLimit} bytes (413 above, 415 for other types).`,
      request: {
        body: {
          required: true,
          content: { 'multipart/form-data': { schema: ProfilePictureBody } },
        },
      },
      responses: {
        200: jsonResponse(ProfilePictureResult, 'Where the picture is served.'),
        ...errorResponses(400, ...orgErrors, 413, 415),
      },
    }),
    async (c) => {
      const form = c.req.valid('form')
      const updated = await s.accounts.setProfilePicture(c.get('user'), form.profile_picture)
      return c.json(
        { profile_picture_url: publicUser(s, updated).profile_picture_url as string },
        200,
      )
    },
  )

  return app
}
