import type { ChainsDeps } from '../chains/port.ts';
import type { BankAccountVerifier } from './bank-verifier.ts';
import type { DocumentStorage } from './documents-store.ts';
import type { IdentityCheck } from './identity-check.ts';
import type { UserSnapshots } from './users-service.ts';

/**
 * What the users functions are given besides the base context, chosen by the composition root:
 * the chains (deposit addresses), the bank-account verifier (none: methods stay PENDING), the
 * identity check of the hosted onboarding, where documents are kept, and the grouped reads of
 * GET /v3/users/{id}.
 */
export interface UsersDeps extends ChainsDeps {
  bankAccounts: BankAccountVerifier | undefined;
  identityCheck: IdentityCheck;
  documents: DocumentStorage;
  userSnapshots: UserSnapshots;
}
