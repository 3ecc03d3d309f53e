import type { Scope } from '../identity/index.ts';
import { balancesOf, holdArguments, placeHold, postEntry, settleHold, voidHold } from '../ledger/index.ts';
import type { Tx } from '../platform/db/pool.ts';
import { newId } from '../platform/ids.ts';
import { Money } from '../platform/money.ts';
import type { BankMethod, BankOutcome } from './bank-port.ts';
import {
  confirmedHistory,
  creationCallbacks,
  creationRefusal,
  newTransferRow,
  TRANSFER_ENTRY_KIND,
  transferPostings,
} from './creation.ts';
import type { TransferRulesDeps } from './deps.ts';
import { transferErrors } from './errors.ts';
import {
  actingParty,
  checkPartiesStanding,
  drawerOf,
  ledgerOwner,
  type Party,
  parseParty,
} from './parties.ts';
import { reversalPostings } from './postings.ts';
import { historyEntry } from './status-history.ts';
import {
  changeStatus,
  insertTransferWith,
  lockTransferById,
  type NewTransfer,
  setTransferHold,
  type TransferRow,
} from './store.ts';
import type { PreparedTransfer } from './transfer-request.ts';
import { type TransferView, transferView } from './view.ts';

/**
 * Transfers to and from a payment method's bank account, through the bank rail
 * (docs/contract.md decisions 55 to 58). A payout holds its source until the bank settles it
 * (the hold is then posted to external:bank) or refuses it (the hold is released, FAILED). An
 * ACH pull books the funds into its dest at once but holds them there, so they count in
 * totalBalances and not in availableBalances, until the bank settles (the hold is released) or
 * fails (the held funds go back to external:bank, FAILED). No customer balance ever goes below
 * zero: a return after settlement takes what the dest still has available and books the rest
 * to house:bank-returns, which the operator recovers.
 */

const DAY_MS = 86_400_000;
/** Holds never expire on their own; this only tells the operator how long a bank may take. */
const BANK_HOLD_MS = 30 * DAY_MS;
/** Where the part of a return after settlement the dest no longer has is booked. */
export const BANK_RETURNS_OWNER = 'house:bank-returns';

interface Parties {
  source: Party;
  dest: Party;
}

type BankParty = Extract<Party, { kind: 'bank' }>;

const isPayout = (p: Parties) => p.dest.kind === 'bank';

function bankSide(p: Parties): { party: BankParty; side: 'source' | 'dest' } {
  if (p.dest.kind === 'bank') return { party: p.dest, side: 'dest' };
  if (p.source.kind === 'bank') return { party: p.source, side: 'source' };
  throw new Error('not a bank transfer');
}

/**
 * The payment method of the bank party, as a transfer may use it: the partner's, not deleted,
 * ACTIVE, holding the currency of its side; a pull only from an ACH method whose user (if a user
 * owns it) has the ACH scope APPROVED, at creation only by its owner (a confirmation's payer is
 * checked by confirmTransfer).
 */
async function usableMethod(
  ctx: TransferRulesDeps,
  tx: Tx,
  scope: Scope,
  p: Parties & { sourceCurrency: string; destCurrency: string },
  creating: boolean,
): Promise<BankMethod> {
  const { party, side } = bankSide(p);
  const method = await ctx.bankTransfers.methods(tx, scope.partnerId, party.id);
  if (!method || method.status === 'DISABLED') throw transferErrors.paymentMethodUnknown(side);
  if (side === 'source') {
    if (creating && method.owner !== actingParty(scope).srn) throw transferErrors.notYourSource();
    if (method.linkType !== 'LOCAL_TRANSFER') throw transferErrors.notPullable();
    // Debiting a person's bank account needs the KYC of the ACH scope, as Wyre's did.
    if (method.ownerAchApproved === false) throw transferErrors.achScopeNotApproved();
  }
  if (method.status !== 'ACTIVE') throw transferErrors.paymentMethodNotActive(side, method.status);
  const currency = side === 'dest' ? p.destCurrency : p.sourceCurrency;
  if (method.currency !== currency) throw transferErrors.paymentMethodCurrency(side, method.currency);
  return method;
}

/** Asks the rail to move the money: the dest amount out for a payout, the source amount in for a pull. */
async function requestMovement(
  ctx: TransferRulesDeps,
  tx: Tx,
  row: NewTransfer,
  method: BankMethod,
  p: Parties,
) {
  const rail = ctx.bankTransfers.rail;
  if (!rail) throw transferErrors.bankUnavailable();
  const payout = isPayout(p);
  await rail.request(tx, {
    reference: `transfer:${row.id}`,
    direction: payout ? 'PAYOUT' : 'PULL',
    account: {
      paymentMethodId: method.id,
      country: method.country,
      accountNumber: method.accountNumber,
      routingNumber: method.routingNumber,
    },
    currency: payout ? row.dest_currency : row.source_currency,
    amount: new Money(payout ? row.dest_amount : row.source_amount),
  });
}

/** A pull's funds arrive in the dest, held there until the bank settles. */
async function arrivePending(ctx: TransferRulesDeps, tx: Tx, row: NewTransfer, dest: Party) {
  const reference = `transfer:${row.id}`;
  await postEntry(tx, { kind: TRANSFER_ENTRY_KIND, reference, postings: transferPostings(ctx, row, dest) });
  const holdId = await placeHold(tx, {
    owner: dest.srn,
    currency: row.dest_currency,
    amount: new Money(row.dest_amount),
    expiresAtMs: ctx.clock.nowMs() + BANK_HOLD_MS,
    reference,
  });
  await setTransferHold(tx, row.id, holdId);
}

/**
 * POST /v3/transfers with a bank party, in the request's transaction. PREVIEW moves nothing;
 * UNCONFIRMED holds the source amount (a pull's on external:bank) until confirm or expiry;
 * autoConfirm goes PENDING at once: a payout holds its source, a pull books its pending funds,
 * and the rail is asked to move the money.
 */
export async function createBankTransfer(
  ctx: TransferRulesDeps,
  tx: Tx,
  scope: Scope,
  p: PreparedTransfer,
): Promise<TransferView> {
  await checkPartiesStanding(tx, scope.partnerId, p.source, p.dest, drawerOf(scope));
  const method = await usableMethod(ctx, tx, scope, p, true);
  const row = newTransferRow(ctx, scope, p, newId('TF'));
  const reference = `transfer:${row.id}`;
  const holdUntil = (ms: number) =>
    holdArguments({
      owner: ledgerOwner(p.source),
      currency: row.source_currency,
      amount: p.quote.sourceAmount,
      expiresAtMs: ms,
      reference,
    });
  try {
    if (row.status === 'PREVIEW') {
      await insertTransferWith(tx, row, { hold: null, callbacks: null });
      return transferView(row);
    }
    const callbacks = creationCallbacks(ctx, scope, p, row);
    if (row.status === 'UNCONFIRMED') {
      await insertTransferWith(tx, row, { hold: holdUntil(row.expires_at.getTime()), callbacks });
      return transferView(row);
    }
    if (isPayout(p)) {
      await insertTransferWith(tx, row, { hold: holdUntil(ctx.clock.nowMs() + BANK_HOLD_MS), callbacks });
    } else {
      await insertTransferWith(tx, row, { hold: null, callbacks });
      await arrivePending(ctx, tx, row, p.dest);
    }
    await requestMovement(ctx, tx, row, method, p);
  } catch (error) {
    throw creationRefusal(error);
  }
  return transferView(row);
}

/** Who pays a transfer: its source, or for an ACH pull the payment method's owner. */
export async function payerOf(ctx: TransferRulesDeps, tx: Tx, row: TransferRow): Promise<string> {
  // Only a bank source has another payer; other stored sources (a card order's holding among
  // them) are not parties a request may name, so they are not parsed as one.
  if (!row.source.toLowerCase().startsWith('paymentmethod:')) return row.source;
  const source = parseParty(row.source, 'source', ctx.chains.network);
  if (source.kind !== 'bank') return row.source;
  const method = await ctx.bankTransfers.methods(tx, row.partner_id, source.id);
  return method?.owner ?? row.source;
}

/**
 * POST /v3/transfers/{id}/confirm of a bank transfer (the row locked, its payer and standing
 * checked by confirmTransfer): a payout keeps its hold until the bank answers; a pull releases
 * its confirmation hold and books its pending funds. Then PENDING, and the rail is asked.
 */
export async function confirmBankTransfer(
  ctx: TransferRulesDeps,
  tx: Tx,
  scope: Scope,
  row: TransferRow,
  parties: Parties,
): Promise<TransferView> {
  const method = await usableMethod(
    ctx,
    tx,
    scope,
    { ...parties, sourceCurrency: row.source_currency, destCurrency: row.dest_currency },
    false,
  );
  if (!isPayout(parties)) {
    await voidHold(tx, row.hold_id!);
    await arrivePending(ctx, tx, row, parties.dest);
  }
  await requestMovement(ctx, tx, row, method, parties);
  const nowMs = ctx.clock.nowMs();
  const updated = await changeStatus(tx, row.id, {
    status: 'PENDING',
    history: confirmedHistory(true, nowMs),
    at: new Date(nowMs),
  });
  return transferView(updated);
}

/**
 * The bank's report for `transfer:TF_…`, in its own transaction. SETTLED completes a PENDING
 * transfer, FAILED fails it with its funds returned, RETURNED reverses a COMPLETED one (a
 * return before settlement is a failure). Any other report changes nothing, so a report
 * repeated is harmless.
 */
export async function onBankOutcome(ctx: TransferRulesDeps, tx: Tx, outcome: BankOutcome): Promise<void> {
  const row = await lockTransferById(tx, outcome.reference.slice('transfer:'.length));
  if (!row) return;
  const parties = partiesOfRow(ctx, row);
  const reason = outcome.reason ?? 'The bank did not accept this transfer.';
  if (outcome.status === 'RETURNED' && row.status === 'COMPLETED')
    return reverseSettled(ctx, tx, row, parties, reason);
  if (row.status !== 'PENDING') return;
  if (outcome.status === 'SETTLED') return settle(ctx, tx, row, parties);
  return fail(ctx, tx, row, parties, reason);
}

function partiesOfRow(ctx: TransferRulesDeps, row: TransferRow): Parties {
  const network = ctx.chains.network;
  return { source: parseParty(row.source, 'source', network), dest: parseParty(row.dest, 'dest', network) };
}

async function settle(ctx: TransferRulesDeps, tx: Tx, row: TransferRow, parties: Parties) {
  if (isPayout(parties)) {
    await settleHold(tx, row.hold_id!, {
      kind: TRANSFER_ENTRY_KIND,
      reference: `transfer:${row.id}`,
      postings: transferPostings(ctx, row, parties.dest),
    });
  } else {
    await voidHold(tx, row.hold_id!);
  }
  const at = ctx.clock.now();
  await changeStatus(tx, row.id, {
    status: 'COMPLETED',
    history: [historyEntry('COMPLETED', at.getTime())],
    at,
    completed: true,
  });
}

async function fail(ctx: TransferRulesDeps, tx: Tx, row: TransferRow, parties: Parties, reason: string) {
  if (isPayout(parties)) {
    await voidHold(tx, row.hold_id!);
  } else {
    // The held pending funds go back exactly as they came, fees included.
    await settleHold(tx, row.hold_id!, {
      kind: 'transfer.returned',
      reference: `transfer:${row.id}`,
      memo: reason,
      postings: reversalPostings(transferPostings(ctx, row, parties.dest)),
    });
  }
  const at = ctx.clock.now();
  await changeStatus(tx, row.id, {
    status: 'FAILED',
    history: [historyEntry('FAILED', at.getTime())],
    at,
    failureReason: reason,
  });
}

/**
 * A return after settlement: the settlement's exact reverse, except that a pull's dest gives
 * back only what it still has available; the rest is booked to house:bank-returns.
 */
async function reverseSettled(
  ctx: TransferRulesDeps,
  tx: Tx,
  row: TransferRow,
  parties: Parties,
  reason: string,
) {
  let postings = reversalPostings(transferPostings(ctx, row, parties.dest));
  if (!isPayout(parties)) {
    const owed = new Money(row.dest_amount);
    const available = (await balancesOf(tx, parties.dest.srn)).availableBalances[row.dest_currency];
    const taken = Money.min(owed, available ?? new Money(0));
    const shortfall = owed.minus(taken);
    postings = postings
      .map((leg) =>
        leg.owner === parties.dest.srn && leg.currency === row.dest_currency
          ? { ...leg, amount: taken.negated() }
          : leg,
      )
      .filter((leg) => !leg.amount.isZero());
    if (shortfall.gt(0))
      postings.push({ owner: BANK_RETURNS_OWNER, currency: row.dest_currency, amount: shortfall.negated() });
  }
  await postEntry(tx, { kind: 'transfer.reversed', reference: `transfer:${row.id}`, memo: reason, postings });
  const at = ctx.clock.now();
  await changeStatus(tx, row.id, {
    status: 'REVERSED',
    history: [historyEntry('REVERSED', at.getTime())],
    at,
    failureReason: reason,
  });
}
