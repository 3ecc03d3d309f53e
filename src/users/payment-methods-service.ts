import type { Scope } from '../identity/types.ts';
import { open, seal } from '../platform/crypto.ts';
import { type Tx, withTransaction } from '../platform/db/pool.ts';
import { invalidValue, notFound } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { enqueueJob } from '../platform/jobs/queue.ts';
import { actingUser } from './access.ts';
import { accountNumber, routingNumber } from './bank-account.ts';
import type { UsersDeps } from './deps.ts';
import { userErrors } from './errors.ts';
import { paymentMethodView } from './payment-method-view.ts';
import {
  findPaymentMethod,
  insertPaymentMethod,
  listPaymentMethods,
  lockPaymentMethodForVerification,
  type PaymentMethodRow,
  setPaymentMethodStatus,
} from './payment-methods-store.ts';
import { advanceScopes } from './scopes-service.ts';
import { findUser, listScopes } from './users-store.ts';

export const VERIFY_PAYMENT_METHOD_JOB = 'users.verifyPaymentMethod';

export interface LocalTransferInput {
  paymentMethodType: string;
  country: string;
  currency?: string;
  accountNumber: string;
  routingNumber: string;
  accountType: 'CHECKING' | 'SAVINGS';
  beneficiaryType?: 'INDIVIDUAL' | 'CORPORATE';
  firstNameOnAccount: string;
  lastNameOnAccount: string;
}

// The account number is bound to its payment method: a sealed box copied to another row fails to open.
const accountAad = (id: string) => `payment-method:${id}:accountNumber`;

function nameOnAccount(field: string, value: string): string {
  const trimmed = value.trim();
  if (trimmed === '' || /\p{Cc}/u.test(value)) throw invalidValue(field, `${field} must be non-empty text.`);
  return trimmed;
}

/**
 * POST /v2/paymentMethods (LOCAL_TRANSFER: a US bank account). Created PENDING; the verification
 * job is queued in the same transaction, so it exists exactly when the payment method does.
 */
export async function createPaymentMethod(ctx: UsersDeps, tx: Tx, scope: Scope, input: LocalTransferInput) {
  if (input.paymentMethodType !== 'LOCAL_TRANSFER') {
    throw invalidValue('paymentMethodType', 'Only LOCAL_TRANSFER bank accounts are supported.');
  }
  if (input.country !== 'US') throw invalidValue('country', 'LOCAL_TRANSFER accounts must be in the US.');
  if ((input.currency ?? 'USD') !== 'USD') throw invalidValue('currency', 'US bank accounts hold USD.');
  const routing = routingNumber(input.routingNumber);
  const account = accountNumber(input.accountNumber);
  const first = nameOnAccount('firstNameOnAccount', input.firstNameOnAccount);
  const last = nameOnAccount('lastNameOnAccount', input.lastNameOnAccount);
  const user = await actingUser(tx, scope, scope.userId ?? '', true);
  const scopes = await listScopes(tx, user.partner_id, user.id);
  if (scopes.some((row) => row.status === 'CLOSED')) throw userErrors.userClosed();
  const id = newId('PA');
  const row = await insertPaymentMethod(
    tx,
    {
      id,
      partner_id: user.partner_id,
      user_id: user.id,
      country: 'US',
      currency: 'USD',
      account_type: input.accountType,
      beneficiary_type: input.beneficiaryType ?? 'INDIVIDUAL',
      first_name_on_account: first,
      last_name_on_account: last,
      routing_number: routing,
      account_number_sealed: seal(ctx.config.masterKey, account, accountAad(id)),
      last4: account.slice(-4),
    },
    ctx.clock.now(),
  );
  await enqueueJob(tx, {
    kind: VERIFY_PAYMENT_METHOD_JOB,
    payload: { partnerId: user.partner_id, paymentMethodId: id },
  });
  return paymentMethodView(row);
}

export async function getPaymentMethod(ctx: UsersDeps, scope: Scope, id: string) {
  const user = await actingUser(ctx.db, scope, scope.userId ?? '');
  const row = await findPaymentMethod(ctx.db, user.partner_id, user.id, id);
  if (!row || row.status === 'DISABLED') throw notFound('Payment method');
  return paymentMethodView(row);
}

export async function listUserPaymentMethods(ctx: UsersDeps, scope: Scope, offset: number, limit: number) {
  const user = await actingUser(ctx.db, scope, scope.userId ?? '');
  const rows = await listPaymentMethods(ctx.db, user.partner_id, user.id, offset, limit);
  const total = rows[0]?.total ?? 0;
  return { data: rows.map(paymentMethodView), position: offset, recordsTotal: total, recordsFiltered: total };
}

/** DELETE /v2/paymentMethod/{id}: the method is disabled (kept for the record), answered as it now is. */
export async function deletePaymentMethod(ctx: UsersDeps, scope: Scope, id: string) {
  return withTransaction(ctx.db, async (tx) => {
    const user = await actingUser(tx, scope, scope.userId ?? '', true);
    const row = await findPaymentMethod(tx, user.partner_id, user.id, id, true);
    if (!row || row.status === 'DISABLED') throw notFound('Payment method');
    return paymentMethodView(
      await setPaymentMethodStatus(tx, user.partner_id, id, 'DISABLED', 'Deleted.', ctx.clock.now()),
    );
  });
}

/**
 * The bank's verification (the wired BankAccountVerifier): ACTIVE, or REJECTED with the bank's
 * reason. Without a verifier its methods stay PENDING. Safe to repeat: only a PENDING method
 * changes. An ACTIVE method can complete the user's ACH scope.
 */
export async function verifyPaymentMethod(ctx: UsersDeps, partnerId: string, paymentMethodId: string) {
  const verifier = ctx.bankAccounts;
  if (!verifier) return;
  await withTransaction(ctx.db, async (tx) => {
    const user = await lockOwner(tx, partnerId, paymentMethodId);
    const row = await lockPaymentMethodForVerification(tx, partnerId, paymentMethodId);
    if (!user || row?.status !== 'PENDING') return;
    const number = open(ctx.config.masterKey, row.account_number_sealed, accountAad(row.id)).toString();
    const now = ctx.clock.now();
    const check = await verifier.verify({ accountNumber: number, routingNumber: row.routing_number });
    if (!check.verified) {
      await setPaymentMethodStatus(tx, partnerId, row.id, 'REJECTED', check.reason, now);
      return;
    }
    await setPaymentMethodStatus(tx, partnerId, row.id, 'ACTIVE', null, now);
    await advanceScopes(ctx, tx, user, 'paymentMethod.active');
  });
}

// Lock order user → payment method, as in createPaymentMethod, so the two never deadlock.
async function lockOwner(tx: Tx, partnerId: string, paymentMethodId: string) {
  const { rows } = await tx.query<Pick<PaymentMethodRow, 'user_id'>>(
    'SELECT user_id FROM payment_methods WHERE partner_id = $1 AND id = $2',
    [partnerId, paymentMethodId],
  );
  return rows[0] ? findUser(tx, partnerId, rows[0].user_id, true) : undefined;
}
