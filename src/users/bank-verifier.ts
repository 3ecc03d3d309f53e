import { SANDBOX_REJECTED_ACCOUNT_NUMBER } from './bank-account.ts';

/** A bank's answer about an account: it exists and is open, or the reason it is refused. */
export type BankAccountCheck = { verified: true } | { verified: false; reason: string };

/**
 * The bank-account verifier port: whether an ACH account can be debited. The composition root
 * wires the sandbox's below, or none (a method then stays PENDING until a provider is configured).
 */
export interface BankAccountVerifier {
  verify(account: { accountNumber: string; routingNumber: string }): Promise<BankAccountCheck>;
}

/**
 * The sandbox's verification, as Stripe's test bank accounts do it: the documented account number
 * is refused (the bank reports the account closed); every other one is verified.
 */
export const sandboxBankVerifier: BankAccountVerifier = {
  verify: async ({ accountNumber }) =>
    accountNumber === SANDBOX_REJECTED_ACCOUNT_NUMBER
      ? { verified: false, reason: 'The bank reports this account closed.' }
      : { verified: true },
};
