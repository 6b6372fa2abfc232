import { OpenAPIHono } from '@hono/zod-openapi'
import type { Deps } from '../deps.js'
import { setProfilePicture } from '../domain/profile-pictures.js'
import { publicUser, updateProfile } from '../domain/users.js'
import { accessRoute } from '../http/access.js'
import type { AppEnv } from '../http/app-env.js'
import { ROW_ONLY, serializedCache } from '../http/serialized-json.js'
import { validationHook } from '../http/validation.js'
import { errorResponses, jsonBody, jsonResponse, orgErrors } from '../schemas/common.js'
import { PatchUserBody, ProfilePictureBody, ProfilePictureResult, User } from '../schemas/users.js'

const tags = ['User profile']

export function userRoutes(deps: Deps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  const answers = serializedCache(() => deps.store.version)

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
    (c) => {
      const user = c.get('user')
      // The picture's link is made from the request's origin: part of the key.
      const key = `${user.id}\n${deps.baseUrl()}`
      // Made from the user's row alone (the basis: a write puts a new one) and the origin (in
      // the key): writes to anything else leave it current, so it holds under traffic.
      return c.json(
        answers(key, () => publicUser(deps, user), user, ROW_ONLY),
        200,
      )
    },
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
    (c) => {
      const patch = c.req.valid('json')
      return c.json(publicUser(deps, updateProfile(deps, c.get('user'), patch)), 200)
    },
  )

  app.openapi(
    accessRoute('session', {
      method: 'patch',
      path: '/partner/users/me/profile-picture',
      operationId: 'uploadProfilePicture',
      tags,
      summary: 'Upload a profile picture',
      description: `multipart/form-data with one file field \`profile_picture\`: PNG, JPEG or WebP, recognised by content; at most ${deps.config.pictureLimit} bytes (413 above, 415 for other types).`,
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
      return c.json(await setProfilePicture(deps, c.get('user'), form.profile_picture), 200)
    },
  )

  return app
}
