import { assignDepositAddresses, depositAddressesOf } from '../chains/index.ts';
import type { Scope } from '../identity/index.ts';
import { open, seal } from '../platform/crypto.ts';
import { type Queryable, type Tx, withTransaction } from '../platform/db/pool.ts';
import { invalidValue, notFound } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { enqueueJob } from '../platform/jobs/queue.ts';
import { actingUser } from './access.ts';
import type { UsersDeps } from './deps.ts';
import { userErrors } from './errors.ts';
import {
  type BankDetails,
  linkedDetails,
  localTransferDetails,
  plaidTokenOf,
  wireDetails,
} from './payment-method-input.ts';
import { paymentMethodView } from './payment-method-view.ts';
import {
  findPartnerPaymentMethod,
  findPaymentMethod,
  insertPaymentMethod,
  listPaymentMethods,
  type PaymentMethodRow,
  paymentMethodUserId,
  setPaymentMethodStatus,
} from './payment-methods-store.ts';
import type { AttachBlockchainsBody, CreatePaymentMethodBody } from './schemas.ts';
import { advanceScopes } from './scopes-service.ts';
import { findUser, listScopes, type UserRow } from './users-store.ts';

export const VERIFY_PAYMENT_METHOD_JOB = 'users.verifyPaymentMethod';

// The account number is bound to its payment method: a sealed box copied to another row fails to open.
const accountAad = (id: string) => `payment-method:${id}:accountNumber`;

/** Who the call's payment methods belong to: the user masqueraded as, else the acting account. */
interface MethodOwner {
  partnerId: string;
  owner: string;
  user?: UserRow;
}

async function methodOwner(q: Queryable, scope: Scope, lock = false): Promise<MethodOwner> {
  if (!scope.userId) return { partnerId: scope.partnerId, owner: `account:${scope.accountId}` };
  const user = await actingUser(q, scope, scope.userId, lock);
  return { partnerId: user.partner_id, owner: `user:${user.id}`, user };
}

/**
 * The body read into bank details before any write: a Plaid token goes through the wired
 * verifier (none wired: refused, naming what is missing), account numbers are checked here.
 */
async function bankDetailsOf(ctx: UsersDeps, body: CreatePaymentMethodBody): Promise<BankDetails> {
  if (body.paymentMethodType === 'INTERNATIONAL_TRANSFER') return wireDetails(body);
  if (body.paymentMethodType !== 'LOCAL_TRANSFER') {
    throw invalidValue(
      'paymentMethodType',
      'paymentMethodType must be LOCAL_TRANSFER or INTERNATIONAL_TRANSFER.',
    );
  }
  const token = plaidTokenOf(body);
  if (!token) return localTransferDetails(body);
  if (!ctx.bankAccounts) throw userErrors.plaidUnavailable();
  const linked = await ctx.bankAccounts.linkedAccount(token);
  if ('refused' in linked) throw userErrors.plaidRefused(linked.refused);
  return linkedDetails(body, linked);
}

/** `blockchain` / `attachBlockchains`: "BTC", "ALL" or "BTC,ETH,…". */
function blockchainCodes(value: string): string[] {
  return value
    .split(',')
    .map((code) => code.trim())
    .filter((code) => code !== '');
}

async function viewWithAddresses(q: Queryable, row: PaymentMethodRow) {
  return paymentMethodView(row, await depositAddressesOf(q, row.partner_id, `paymentmethod:${row.id}`));
}

/**
 * POST /v2/paymentMethods: a bank account of the acting account, or of the user masqueraded as.
 * Created PENDING; the verification job is queued in the same transaction, so it exists exactly
 * when the payment method does.
 */
export async function createPaymentMethod(
  ctx: UsersDeps,
  tx: Tx,
  scope: Scope,
  body: CreatePaymentMethodBody,
) {
  const details = await bankDetailsOf(ctx, body);
  const codes = body.attachBlockchains === undefined ? [] : blockchainCodes(body.attachBlockchains);
  const owner = await methodOwner(tx, scope, true);
  if (body.owner !== undefined && body.owner !== owner.owner)
    throw userErrors.paymentMethodOwner(owner.owner);
  if (owner.user) {
    const scopes = await listScopes(tx, owner.partnerId, owner.user.id);
    if (scopes.some((row) => row.status === 'CLOSED')) throw userErrors.userClosed();
  }
  const id = newId('PA');
  const row = await insertPaymentMethod(
    tx,
    {
      id,
      partner_id: owner.partnerId,
      owner: owner.owner,
      user_id: owner.user?.id ?? null,
      link_type: details.linkType,
      payment_type: details.paymentType,
      country: details.country,
      currency: details.currency,
      account_type: details.accountType,
      beneficiary_type: details.beneficiaryType,
      first_name_on_account: details.firstName,
      last_name_on_account: details.lastName,
      routing_number: details.routingNumber,
      account_number_sealed: seal(ctx.config.masterKey, details.accountNumber, accountAad(id)),
      last4: details.accountNumber.slice(-4).padStart(4, '0'),
      beneficiary: details.beneficiary,
    },
    ctx.clock.now(),
  );
  await enqueueJob(tx, {
    kind: VERIFY_PAYMENT_METHOD_JOB,
    payload: { partnerId: owner.partnerId, paymentMethodId: id },
  });
  await assignDepositAddresses(ctx, tx, owner.partnerId, `paymentmethod:${id}`, codes);
  return viewWithAddresses(tx, row);
}

async function ownMethod(q: Queryable, scope: Scope, id: string, lock = false) {
  const owner = await methodOwner(q, scope, lock);
  const row = await findPaymentMethod(q, owner.partnerId, owner.owner, id, lock);
  if (!row || row.status === 'DISABLED') throw notFound('Payment method');
  return row;
}

export async function getPaymentMethod(ctx: UsersDeps, scope: Scope, id: string) {
  return viewWithAddresses(ctx.db, await ownMethod(ctx.db, scope, id));
}

/** GET /v2/paymentMethods: the acting account's or user's methods, oldest first. */
export async function listOwnPaymentMethods(ctx: UsersDeps, scope: Scope, offset: number, limit: number) {
  const owner = await methodOwner(ctx.db, scope);
  const rows = await listPaymentMethods(ctx.db, owner.partnerId, owner.owner, offset, limit);
  const total = rows[0]?.total ?? 0;
  const data = [];
  for (const row of rows) data.push(await viewWithAddresses(ctx.db, row));
  return { data, position: offset, recordsTotal: total, recordsFiltered: total };
}

/** DELETE /v2/paymentMethod/{id}: the method is disabled (kept for the record), answered as it now is. */
export async function deletePaymentMethod(ctx: UsersDeps, scope: Scope, id: string) {
  return withTransaction(ctx.db, async (tx) => {
    const row = await ownMethod(tx, scope, id, true);
    const disabled = await setPaymentMethodStatus(
      tx,
      row.partner_id,
      id,
      'DISABLED',
      'Deleted.',
      ctx.clock.now(),
    );
    return viewWithAddresses(tx, disabled);
  });
}

/**
 * POST /v2/paymentMethod/{id}/attach: deposit addresses for the method on the chains asked for
 * (docs/contract.md decision 53), answered in `blockchains`. Attaching again adds chains and keeps
 * the addresses already given.
 */
export async function attachBlockchains(
  ctx: UsersDeps,
  tx: Tx,
  scope: Scope,
  id: string,
  body: AttachBlockchainsBody,
) {
  const row = await ownMethod(tx, scope, id, true);
  const codes = blockchainCodes(body.blockchain);
  if (codes.length === 0)
    throw invalidValue('blockchain', 'blockchain must name a chain, e.g. "BTC" or "ALL".');
  await assignDepositAddresses(ctx, tx, row.partner_id, `paymentmethod:${row.id}`, codes);
  return viewWithAddresses(tx, row);
}

/**
 * The bank's verification (the wired BankAccountVerifier): ACTIVE, or REJECTED with the bank's
 * reason. Without a verifier its methods stay PENDING. Safe to repeat: only a PENDING method
 * changes. A user's ACTIVE method can complete the user's ACH scope.
 */
export async function verifyPaymentMethod(ctx: UsersDeps, partnerId: string, paymentMethodId: string) {
  const verifier = ctx.bankAccounts;
  if (!verifier) return;
  await withTransaction(ctx.db, async (tx) => {
    // Lock order user → payment method, as in createPaymentMethod, so the two never deadlock.
    const userId = await paymentMethodUserId(tx, partnerId, paymentMethodId);
    const user = userId ? await findUser(tx, partnerId, userId, true) : undefined;
    if (userId && !user) return;
    const row = await findPartnerPaymentMethod(tx, partnerId, paymentMethodId, true);
    if (row?.status !== 'PENDING') return;
    const check = await verifier.verify({
      accountNumber: openAccountNumber(ctx, row),
      routingNumber: row.routing_number ?? '',
    });
    const now = ctx.clock.now();
    if (!check.verified) {
      await setPaymentMethodStatus(tx, partnerId, row.id, 'REJECTED', check.reason, now);
      return;
    }
    await setPaymentMethodStatus(tx, partnerId, row.id, 'ACTIVE', null, now);
    if (user) await advanceScopes(ctx, tx, user, 'paymentMethod.active');
  });
}

function openAccountNumber(ctx: UsersDeps, row: PaymentMethodRow): string {
  return open(ctx.config.masterKey, row.account_number_sealed, accountAad(row.id)).toString();
}

/** What a bank transfer needs of a payment method: who owns it, whether it can move money, and the account. */
export interface BankMethod {
  id: string;
  owner: string;
  status: PaymentMethodRow['status'];
  currency: string;
  linkType: PaymentMethodRow['link_type'];
  country: string;
  accountNumber: string;
  routingNumber: string | null;
  /** A user's method: whether the user may pull from it (ACH scope APPROVED); null for an account's. */
  ownerAchApproved: boolean | null;
}

/** A payment method of the partner for the transfers module (the composition root passes it on). */
export async function bankMethodFor(
  ctx: UsersDeps,
  q: Queryable,
  partnerId: string,
  id: string,
): Promise<BankMethod | undefined> {
  const row = await findPartnerPaymentMethod(q, partnerId, id);
  if (!row) return undefined;
  const scopes = row.user_id ? await listScopes(q, partnerId, row.user_id) : undefined;
  return {
    id: row.id,
    owner: row.owner,
    status: row.status,
    currency: row.currency,
    linkType: row.link_type,
    country: row.country,
    accountNumber: openAccountNumber(ctx, row),
    routingNumber: row.routing_number,
    ownerAchApproved: scopes
      ? scopes.some((scope) => scope.scope === 'ACH' && scope.status === 'APPROVED')
      : null,
  };
}
