/** The public face of identity/: what routes and other domains use. Inside identity/, files import each other directly. */

export { awaitReadAudits, callerOf, idempotencyScope, partnerAccess, scopeOf } from './access.ts';
export { accountDocumentRoutes } from './account-document-routes.ts';
export {
  accountExists,
  accountInPartner,
  checkAccountVisible,
  countryOfAccount,
  getAccount,
} from './accounts-service.ts';
export { findAccountById } from './accounts-store.ts';
export {
  type ConsoleAccountRow,
  consoleAccount,
  consoleAccountsByEmail,
  consoleKeyOwner,
} from './console-store.ts';
export { authErrors } from './errors.ts';
export { KEY_USE_INTERVAL_MS, KeyUsage, keyUsageOn } from './key-usage.ts';
export { createApiKey, deleteApiKey } from './keys-service.ts';
export { type AccountKeyRow, pageAccountKeys, purgeExpiredReplays } from './keys-store.ts';
export { legacyAccountRoutes } from './legacy-account-routes.ts';
export { type IdentityDeps, resolveMasquerade, type UserOwnerLookup } from './masquerade.ts';
export { identityOperatorRoutes } from './operator-routes.ts';
export {
  type CreatedMaster,
  createAccountKey,
  ensureSandboxDemo,
  listAccountKeys,
  revokeAccountKey,
  switchUsersApi,
} from './operator-service.ts';
export { type PartnerRow, partnersPage } from './partners.ts';
export { identityRoutes } from './routes.ts';
export { AccountParams } from './schemas.ts';
export type { Scope } from './types.ts';
export { sessionUserScope, tieTokenToUser } from './user-tokens.ts';
export { liveWebCaller, type WebCaller, webCallerBySecret } from './web-access.ts';
export { hasWebhookSecret, partnerIdOf, rotateWebhookSecret, webhookSecretOf } from './webhook-secret.ts';
