import type { Queryable, Tx } from '../platform/db/pool.ts';
import type { JobRunner } from '../platform/jobs/runner.ts';
import type { Money } from '../platform/money.ts';

/**
 * The bank-transfers port: how transfers move money to and from a payment method's bank account
 * without knowing which bank rail runs. A movement is requested in the caller's transaction (so
 * it exists exactly when the transfer that asked for it commits); the rail reports its outcome
 * later, to the handler given to registerSettler, once per report. The composition root wires
 * the simulated rail of sandbox-bank.ts in sandbox, and none in production, where transfers to
 * and from payment methods are refused.
 */

/** The bank account a movement goes to or comes from, opened for the rail only, never logged. */
export interface BankAccount {
  paymentMethodId: string;
  country: string;
  accountNumber: string;
  routingNumber: string | null;
}

export interface BankMovement {
  /** `transfer:TF_…`. */
  reference: string;
  /** PAYOUT: funds leave for the account; PULL: an ACH debit of the account. */
  direction: 'PAYOUT' | 'PULL';
  account: BankAccount;
  currency: string;
  amount: Money;
}

/**
 * What the bank reports: SETTLED or FAILED for a movement in flight, RETURNED for one that
 * settled and was sent back later (an ACH return, a wire refused by the beneficiary's bank).
 */
export interface BankOutcome {
  reference: string;
  status: 'SETTLED' | 'FAILED' | 'RETURNED';
  reason?: string;
}

export type BankOutcomeHandler = (outcome: BankOutcome) => Promise<void>;

export interface BankRail {
  /** Queues the movement in the caller's transaction. */
  request(tx: Tx, movement: BankMovement): Promise<void>;
  /** Registers the worker's handling of this rail's reports. */
  registerSettler(runner: JobRunner, onOutcome: BankOutcomeHandler): void;
}

/** A payment method as a bank transfer needs it (the users module answers, through the composition root). */
export interface BankMethod {
  id: string;
  owner: string;
  status: 'PENDING' | 'ACTIVE' | 'REJECTED' | 'DISABLED';
  currency: string;
  linkType: 'LOCAL_TRANSFER' | 'INTERNATIONAL_TRANSFER';
  country: string;
  accountNumber: string;
  routingNumber: string | null;
  /** A user's method: whether the user's ACH scope is APPROVED; null for an account's method. */
  ownerAchApproved: boolean | null;
}

export type BankMethodLookup = (
  q: Queryable,
  partnerId: string,
  id: string,
) => Promise<BankMethod | undefined>;

/** What the transfer rules are given for bank parties: the rail (none: refused) and the methods' lookup. */
export interface BankTransfersWiring {
  rail: BankRail | undefined;
  methods: BankMethodLookup;
}
