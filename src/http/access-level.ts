/**
 * Who may call a route, declared once on the route: the gates enforce it (api-gate.ts,
 * control/admin-guard.ts) and the OpenAPI document shows it as the route's `security`.
 * - `public`: no credentials (the hosted bank-connect page, the control plane's health
 *   check, sink and dashboard files, the docs).
 * - `org`: the partner key and secret (spec section 5, layer 1).
 * - `session`: the partner key and secret and a user's Bearer session (layer 2).
 * - `admin`: the control plane, which needs the admin token when one is configured.
 * - `onboarding`: the hosted onboarding flow, whose access token belongs to the onboarding
 *   named in the path, so the route itself checks it; no gate asks for anything else.
 */
export type Access = 'public' | 'org' | 'session' | 'admin' | 'onboarding'
