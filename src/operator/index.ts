/** The public face of operator/: what routes and other domains use. Inside operator/, files import each other directly. */
export { auditOperatorChange, OPERATOR_TOKEN_ACTOR, type OperatorAct, operatorActorName } from './audit.ts';
export { auditPage } from './audit-log.ts';
export { installOperatorAuth, type OperatorCaller, operatorAct, operatorAction } from './auth.ts';
export { operatorErrors } from './errors.ts';
export {
  bootstrapFirstAdmin,
  changeOperator,
  createOperator,
  getOperator,
  type OperatorChange,
  type OperatorView,
  operatorsExist,
  operatorsPage,
} from './operators.ts';
export { operatorsApiRoutes } from './operators-routes.ts';
export { PASSWORD_MIN_LENGTH } from './password.ts';
export { isOperatorRole, OPERATOR_ROLES, requiredRole, roleAllows } from './roles.ts';
export { operatorRoutes } from './routes.ts';
export {
  advanceSandboxClock,
  type ClockState,
  type OperatorDeps,
  sandboxClockState,
  syncSandboxClock,
} from './service.ts';
export {
  changePassword,
  checkPassword,
  checkSecondFactor,
  confirmEnrolment,
  type Enrolment,
  enrolment,
  type PasswordOutcome,
  type SignedInOperator,
} from './sign-in.ts';
export type { AuditFilter, AuditRow } from './store.ts';
export { createPersonalToken, type PersonalToken, personalTokens, revokePersonalToken } from './tokens.ts';
