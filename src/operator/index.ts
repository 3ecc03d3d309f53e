/** The public face of operator/: what routes and other domains use. Inside operator/, files import each other directly. */
export { auditOperatorChange, type OperatorAct } from './audit.ts';
export { installOperatorAuth, operatorAction } from './auth.ts';
export { operatorRoutes } from './routes.ts';
export { type OperatorDeps, syncSandboxClock } from './service.ts';
