import type { ChainsDeps } from '../chains/index.ts';
import type { DocumentStorage } from '../documents/index.ts';
import type { GroupedCalls } from '../platform/db/grouped-writer.ts';
import type { BankAccountVerifier } from './bank-verifier.ts';
import type { IdentityCheck } from './identity-check.ts';
import type { UserLookup, UserSnapshot } from './users-store.ts';

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

/** GET /v3/users/{id} of concurrent requests, read by one statement per group (groupedUserSnapshots). */
export type UserSnapshots = GroupedCalls<UserLookup, UserSnapshot | undefined>;
