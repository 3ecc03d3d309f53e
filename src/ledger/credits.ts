import { auditOperatorChange, type OperatorAct } from '../operator/index.ts';
import type { Tx } from '../platform/db/pool.ts';
import { invalidValue } from '../platform/errors.ts';
import { isKnownCurrency, parsePositiveAmount } from '../platform/money.ts';
import { customerOwnerExists, type OwnerLookups } from './owners.ts';
import { balancesOf, postEntry } from './service.ts';

export interface CreditInput {
  owner: string;
  currency: string;
  amount: unknown;
  memo?: string;
}

/**
 * POST /operator/v1/ledger/credits: funds a customer balance (deposits arriving outside the
 * API, corrections) as one entry against `external:bank`, audited in the same transaction.
 */
export async function creditOwner(owners: OwnerLookups, tx: Tx, act: OperatorAct, input: CreditInput) {
  if (!isKnownCurrency(input.currency)) {
    throw invalidValue(
      'currency',
      `Unsupported currency: "${input.currency}"`,
      'validation.unsupportedCurrency',
    );
  }
  const amount = parsePositiveAmount(input.amount, 'amount', input.currency);
  if (!(await customerOwnerExists(owners, tx, input.owner))) {
    throw invalidValue('owner', 'owner must be an existing account:AC_…, user:US_… or wallet:WA_…');
  }
  const entryId = await postEntry(tx, {
    kind: 'operator.credit',
    reference: input.owner,
    ...(input.memo ? { memo: input.memo } : {}),
    postings: [
      { owner: 'external:bank', currency: input.currency, amount: amount.negated() },
      { owner: input.owner, currency: input.currency, amount },
    ],
  });
  await auditOperatorChange(tx, act, input.owner, {
    currency: input.currency,
    amount: amount.toFixed(),
    memo: input.memo ?? null,
    entryId,
  });
  return {
    entryId,
    owner: input.owner,
    currency: input.currency,
    amount,
    ...(await balancesOf(tx, input.owner)),
  };
}
