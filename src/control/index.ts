import type { SandboxParts } from '../compose.js'
import type { OperationIndex } from '../openapi/operations.js'
import { clockRoutes } from './clock-routes.js'
import { controlDeliveryRoutes } from './delivery-routes.js'
import { journalRoutes } from './journal-routes.js'
import { controlMoneyRoutes } from './money-routes.js'
import { controlOnboardingRoutes } from './onboarding-routes.js'
import { dashboardRoutes } from './pages/routes.js'
import { partnerClockRoutes } from './partner-clock-routes.js'
import { partnerRoutes } from './partner-routes.js'
import { partnerStateRoutes } from './partner-state-routes.js'
import { controlRouter } from './router.js'
import { ruleRoutes } from './rule-routes.js'
import { controlScenarioRoutes } from './scenario-routes.js'
import { stateRoutes } from './state-routes.js'
import { controlUserRoutes } from './user-routes.js'
import { verifyRoutes } from './verify-routes.js'
import { waitRoutes } from './wait-routes.js'
import { webhookLabRoutes } from './webhook-lab-routes.js'
import { controlWebhookRoutes } from './webhook-routes.js'

/**
 * The sandbox control plane (DESIGN.md section 4), mounted at /_sandbox: a product for test
 * suites, kept apart from the partner API. Its routes, schemas and guard live in this folder.
 */
export function controlPlane(deps: SandboxParts, operations: OperationIndex) {
  const app = controlRouter()
  app.route('/', dashboardRoutes(deps))
  app.route('/', stateRoutes(deps))
  app.route('/', partnerRoutes(deps))
  app.route('/', clockRoutes(deps))
  app.route('/', partnerClockRoutes(deps))
  app.route('/', partnerStateRoutes(deps))
  app.route('/', controlUserRoutes(deps))
  app.route('/', controlOnboardingRoutes(deps))
  app.route('/', controlWebhookRoutes(deps))
  app.route('/', webhookLabRoutes(deps))
  app.route('/', controlDeliveryRoutes(deps))
  app.route('/', controlMoneyRoutes(deps))
  app.route('/', controlScenarioRoutes(deps, operations))
  app.route('/', journalRoutes(deps))
  app.route('/', verifyRoutes(deps))
  app.route('/', ruleRoutes(deps, operations))
  app.route('/', waitRoutes(deps))
  return app
}
