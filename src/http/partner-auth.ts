/** Paths under /api/v1 that need neither credentials nor a session (spec section 5). */
const publicRoutes = new Set([
  'GET /external-bank-account-connect/connect',
  'POST /external-bank-account-connect/enrollment/public',
])

export function isPublicRoute(method: string, path: string): boolean {
  // Cheap test first: this runs on every request.
  if (!path.startsWith('/api/v1/external-bank-account-connect/')) return false
  return publicRoutes.has(`${method} ${path.slice('/api/v1'.length).replace(/\/$/, '')}`)
}
