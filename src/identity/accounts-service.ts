import type { ChainsDeps } from '../chains/index.ts';
import { completeDepositAddresses, depositAddressesOf } from '../chains/index.ts';
import { balancesOf } from '../ledger/index.ts';
import type { AppContext } from '../platform/context.ts';
import { isCountryCode } from '../platform/countries.ts';
import type { Queryable, Tx } from '../platform/db/pool.ts';
import { forbidden, invalidValue, notFound } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { type AccountView, accountView } from './account-view.ts';
import {
  type AccountRow,
  findAccountById,
  findAccountWithin,
  insertAccount,
  lockAccountWithin,
  updateProfileFields,
} from './accounts-store.ts';
import { authErrors, identityErrors } from './errors.ts';
import { tieSessionKey } from './keys-store.ts';
import { REDACTED_FIELDS, type StoredField, validateProfileValue } from './profile-fields.ts';
import { sealSecret } from './secrets.ts';
import type { Caller, Scope } from './types.ts';

export interface ProfileFieldInput {
  fieldId: string;
  value: unknown;
}

export interface CreateAccountInput {
  type?: 'INDIVIDUAL' | 'BUSINESS';
  country: string;
  profileFields?: ProfileFieldInput[];
  referrerAccountId?: string;
  subaccount?: boolean;
  disableEmail?: boolean;
}

/** Validates every submitted field before applying any: a call applies all or nothing. */
function applyProfileFields(
  ctx: AppContext,
  accountId: string,
  current: Record<string, StoredField>,
  inputs: ProfileFieldInput[],
): Record<string, StoredField> {
  const next = { ...current };
  const nowMs = ctx.clock.nowMs();
  inputs.forEach(({ fieldId, value }, index) => {
    if (next[fieldId]?.status === 'APPROVED') {
      throw invalidValue(
        `profileFields[${index}]`,
        `Field ${fieldId} is already approved and cannot change.`,
      );
    }
    let stored = validateProfileValue(fieldId, value, nowMs);
    // Identity numbers are sealed at rest like secrets; the API only ever shows REDACTED.
    if (REDACTED_FIELDS.has(fieldId) && typeof stored === 'string') {
      stored = sealSecret(ctx.config.masterKey, `${accountId}:${fieldId}`, stored).toString('base64');
    }
    next[fieldId] = { value: stored, status: 'PENDING', submittedAt: nowMs };
  });
  return next;
}

function newAccountFields(caller: Caller, kind: AccountRow['kind']) {
  const id = newId('AC');
  const partnerId = kind === 'subaccount' ? caller.account!.partnerId : id;
  return { id, partnerId, parentId: kind === 'subaccount' ? caller.account!.id : null };
}

/**
 * Which account POST /v3/accounts makes: an untied decentralized session its own individual
 * account (tied to it in the same transaction); a master a custodial sub-account with
 * `subaccount: true`, or without it a non-custodial account it referred (docs/contract.md,
 * decision 64). A sub-account or a tied session already has its account.
 */
function kindToCreate(caller: Caller, input: CreateAccountInput): AccountRow['kind'] {
  if (caller.account === undefined) return 'individual';
  if (caller.account.kind !== 'master') {
    if (input.subaccount === true) throw authErrors.notMaster();
    throw identityErrors.accountAlreadyExists();
  }
  return input.subaccount === true ? 'subaccount' : 'individual';
}

/**
 * The referrer a new account records: a master names only itself; a decentralized session may
 * name the partner whose app it signs up through, as Wyre's React sample does.
 */
async function checkReferrer(tx: Tx, caller: Caller, referrerAccountId: string | undefined): Promise<void> {
  if (referrerAccountId === undefined || referrerAccountId === caller.account?.id) return;
  const referrer = caller.account === undefined ? await findAccountById(tx, referrerAccountId) : undefined;
  if (referrer?.kind === 'master') return;
  throw invalidValue(
    'referrerAccountId',
    'referrerAccountId must be your own account id, or for a new decentralized account a partner account.',
    'validation.invalidReferrerId',
  );
}

/** POST /v3/accounts (see kindToCreate for which account it makes). */
export async function createAccount(
  ctx: ChainsDeps,
  tx: Tx,
  caller: Caller,
  input: CreateAccountInput,
): Promise<AccountView> {
  const kind = kindToCreate(caller, input);
  // A master's non-custodial account is referred by it; otherwise the referrer is as given.
  const referrerAccountId =
    caller.account?.kind === 'master' && kind === 'individual' ? caller.account.id : input.referrerAccountId;
  await checkReferrer(tx, caller, input.referrerAccountId);
  if (!isCountryCode(input.country))
    throw invalidValue('country', `Unknown country code "${input.country}".`);
  const ids = newAccountFields(caller, kind);
  const profileFields = applyProfileFields(ctx, ids.id, {}, input.profileFields ?? []);
  const row = await insertAccount(tx, {
    ...ids,
    kind,
    name: null,
    status: 'OPEN',
    type: input.type ?? 'INDIVIDUAL',
    country: input.country,
    usersApiEnabled: false,
    referrerAccountId: referrerAccountId ?? null,
    profileFields,
    webhookSecret: null,
  });
  if (caller.account === undefined && !(await tieSessionKey(tx, caller.apiKey, row.id)))
    throw identityErrors.accountAlreadyExists();
  return accountView(row, undefined, await addressesOf(ctx, tx, row));
}

/**
 * An account's deposit addresses, given on every chain with a backend the first time they are
 * read. A read on the pool (outside a transaction) that finds them complete is remembered, so the
 * account's later reads cost no query for them.
 */
async function addressesOf(ctx: ChainsDeps, q: Queryable, row: AccountRow): Promise<Record<string, string>> {
  const owner = `account:${row.id}`;
  const onPool = q === ctx.db;
  const known = onPool ? ctx.chains.knownAddresses.get(owner) : undefined;
  if (known) return { ...known };
  const current = await depositAddressesOf(q, row.partner_id, owner);
  const complete = await completeDepositAddresses(ctx, q, row.partner_id, owner, current);
  if (onPool && complete === current) ctx.chains.knownAddresses.remember(owner, { ...current });
  return complete;
}

/** The acting account itself, or (unmasqueraded) one of its sub-accounts; others look like unknown ids. */
export async function visibleAccount(
  ctx: AppContext,
  tx: Tx | undefined,
  scope: Scope,
  accountId: string,
  lock: boolean,
) {
  const q = tx ?? ctx.db;
  const own = scope.caller.account;
  // Reading (not locking) the caller's own, unmasqueraded account: authentication already read it.
  if (!lock && !scope.masqueraded && own?.row && own.id === accountId) return own.row;
  const row = lock
    ? await lockAccountWithin(q, scope.partnerId, accountId)
    : await findAccountWithin(q, scope.partnerId, accountId);
  const visible = row && (row.id === scope.accountId || (!scope.userId && row.parent_id === scope.accountId));
  if (!visible) throw notFound('Account');
  return row;
}

/** For the ledger: does this account id exist (any partner)? */
export async function accountExists(q: Queryable, accountId: string): Promise<boolean> {
  return (await findAccountById(q, accountId)) !== undefined;
}

/** For the limits: the country of an account of this partner's tree, undefined for any other. */
export async function countryOfAccount(
  q: Queryable,
  partnerId: string,
  accountId: string,
): Promise<string | undefined> {
  return (await findAccountWithin(q, partnerId, accountId))?.country;
}

/** For transfers: an account of this partner's tree (a master or one of its sub-accounts). */
export async function accountInPartner(q: Queryable, partnerId: string, accountId: string): Promise<boolean> {
  return (await findAccountWithin(q, partnerId, accountId)) !== undefined;
}

/** Whether the scope sees the account (GET /v3/accounts/{id} would answer it); 404 otherwise. */
export async function checkAccountVisible(ctx: AppContext, scope: Scope, accountId: string): Promise<void> {
  await visibleAccount(ctx, undefined, scope, accountId, false);
}

/**
 * The caller's own account and its balances usually come with authentication (route config
 * withOwnBalances); any other account costs a read and the ledger's balances query.
 */
export async function getAccount(ctx: ChainsDeps, scope: Scope, accountId: string): Promise<AccountView> {
  const row = await visibleAccount(ctx, undefined, scope, accountId, false);
  const own = scope.caller.account;
  const prefetched = !scope.masqueraded && own?.id === row.id ? own.balances : undefined;
  const [balances, addresses] = await Promise.all([
    prefetched ?? balancesOf(ctx.db, `account:${row.id}`),
    addressesOf(ctx, ctx.db, row),
  ]);
  return accountView(row, balances, addresses);
}

export async function updateAccount(
  ctx: ChainsDeps,
  tx: Tx,
  scope: Scope,
  accountId: string,
  inputs: ProfileFieldInput[],
): Promise<AccountView> {
  const row = await visibleAccount(ctx, tx, scope, accountId, true);
  if (row.status === 'CLOSED')
    throw forbidden('This account is closed; contact support.', 'accessDenied.accountClosed');
  const fields = applyProfileFields(ctx, row.id, row.profile_fields, inputs);
  return accountView(
    await updateProfileFields(tx, row.id, fields, row.status),
    await balancesOf(tx, `account:${row.id}`),
    await addressesOf(ctx, tx, row),
  );
}
