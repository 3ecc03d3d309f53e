/** The public face of users/: what routes and other domains use. Inside users/, files import each other directly. */

export { type BankAccountVerifier, sandboxBankVerifier } from './bank-verifier.ts';
export {
  type ConsoleScopeRow,
  type ConsoleUserRow,
  consolePaymentMethodOwner,
  consolePendingScopes,
  consoleScopeEvents,
  consoleScopes,
  consoleUser,
  consoleUsersByEmail,
  consoleUsersOfAccount,
  type PendingScopeRow,
  type ScopeEventRow,
} from './console-store.ts';
export type { UsersDeps } from './deps.ts';
export { type DocumentStorage, postgresDocumentStorage } from './documents-store.ts';
export { FIELD_TYPES, type FieldId } from './fields.ts';
export { type IdentityCheck, operatorReview, sandboxIdentityCheck } from './identity-check.ts';
export { registerUserJobs } from './jobs.ts';
export {
  type OnboardingPageModel,
  onboardingPage,
  type ScopeNeeds,
  submitOnboarding,
  submitOnboardingFields,
  uploadOnboardingDocument,
} from './onboarding-service.ts';
export { usersOperatorRoutes } from './operator-routes.ts';
export { ownedUser, ownedUsersAfter } from './owned-users.ts';
export { cachedOwnerLookup } from './owner-cache.ts';
export { paymentMethodRoutes } from './payment-method-routes.ts';
export { bankMethodFor } from './payment-methods-service.ts';
export { type ReviewDecision, reviewScope } from './review-service.ts';
export { usersRoutes } from './routes.ts';
export { isScopeName, REQUIREMENTS, SCOPES, type ScopeName } from './scope-rules.ts';
export { approvedScopesOf } from './scopes-service.ts';
export { userExists } from './transfer-standing.ts';
export { groupedUserSnapshots } from './users-service.ts';
export { findUserOwner, type TransferStanding, transferStandings } from './users-store.ts';
