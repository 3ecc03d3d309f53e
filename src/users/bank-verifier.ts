import { SANDBOX_REJECTED_ACCOUNT_NUMBER } from './bank-account.ts';

/** A bank's answer about an account: it exists and is open, or the reason it is refused. */
export type BankAccountCheck = { verified: true } | { verified: false; reason: string };

/** What a client links through Plaid: a public token (with the account chosen) or a processor token. */
export type PlaidToken =
  | { kind: 'public'; publicToken: string; accountId: string | null }
  | { kind: 'processor'; processorToken: string };

/** The account a Plaid token links, as the bank reports it. */
export interface LinkedBankAccount {
  accountNumber: string;
  routingNumber: string;
  accountType: 'CHECKING' | 'SAVINGS';
  /** The name the bank holds the account under, when it says. */
  nameOnAccount: string | null;
  /** How the bank names the account ("Plaid Checking"). */
  accountName: string;
}

/**
 * The bank-account verifier port: whether an ACH account can be debited, and the account a Plaid
 * token links. The composition root wires the sandbox's below, or none (account numbers then stay
 * PENDING until a provider is configured, and Plaid tokens are refused).
 */
export interface BankAccountVerifier {
  verify(account: { accountNumber: string; routingNumber: string }): Promise<BankAccountCheck>;
  linkedAccount(token: PlaidToken): Promise<LinkedBankAccount | { refused: string }>;
}

/** Plaid's sandbox checking account (user_good / pass_good), whose routing number passes the ABA check. */
export const SANDBOX_PLAID_ACCOUNT: LinkedBankAccount = {
  accountNumber: '1111222233330000',
  routingNumber: '011401533',
  accountType: 'CHECKING',
  nameOnAccount: null,
  accountName: 'Plaid Checking',
};

/** A sandbox token naming this text is refused, as Plaid refuses an expired link. */
export const SANDBOX_REFUSED_TOKEN_MARK = 'invalid';

/**
 * The sandbox's verification, as Stripe's test bank accounts do it: the documented account number
 * is refused (the bank reports the account closed); every other one is verified. Every Plaid
 * token links Plaid's sandbox checking account, except one containing SANDBOX_REFUSED_TOKEN_MARK.
 */
export const sandboxBankVerifier: BankAccountVerifier = {
  verify: async ({ accountNumber }) =>
    accountNumber === SANDBOX_REJECTED_ACCOUNT_NUMBER
      ? { verified: false, reason: 'The bank reports this account closed.' }
      : { verified: true },
  linkedAccount: async (token) => {
    const text = token.kind === 'public' ? token.publicToken : token.processorToken;
    return text.includes(SANDBOX_REFUSED_TOKEN_MARK)
      ? { refused: 'Plaid refused this token: link the account again.' }
      : SANDBOX_PLAID_ACCOUNT;
  },
};
