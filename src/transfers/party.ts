import type { Chain } from '../chains/index.ts';

/**
 * A transfer's source or dest, read from its SRN (docs/contract.md, Transfers: a bare `AC_…` is an account). A
 * payment method is a bank account: a payout as dest, an ACH pull (`…:ach`) as source.
 */
export type Party =
  | { kind: 'account'; srn: string; id: string }
  | { kind: 'user'; srn: string; id: string }
  | { kind: 'wallet'; srn: string; id: string }
  | { kind: 'chain'; srn: string; chain: Chain; address: string }
  | { kind: 'bank'; srn: string; id: string };
