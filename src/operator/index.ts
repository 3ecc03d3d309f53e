/** The public face of operator/: what routes and other domains use. Inside operator/, files import each other directly. */
export { auditOperatorChange, OPERATOR_TOKEN_ACTOR, type OperatorAct, operatorActorName } from './audit.ts';
export { installOperatorAuth, type OperatorCaller, operatorAct, operatorAction } from './auth.ts';
export { isOperatorRole, OPERATOR_ROLES, requiredRole, roleAllows } from './roles.ts';
export { operatorRoutes } from './routes.ts';
export { type OperatorDeps, syncSandboxClock } from './service.ts';
