import { assignDepositAddresses, completeDepositAddresses, withEveryChain } from '../chains/index.ts';
import { type Scope, tieTokenToUser } from '../identity/index.ts';
import { GroupedCalls } from '../platform/db/grouped-writer.ts';
import type { Db, Tx } from '../platform/db/pool.ts';
import { newId } from '../platform/ids.ts';
import { actingUser, checkUserAccess, requireUsersApi } from './access.ts';
import type { UserSnapshots, UsersDeps } from './deps.ts';
import { userErrors } from './errors.ts';
import { canonicalFieldId, type StoredField, validateFieldValue } from './fields.ts';
import { isScopeName, lockedFields, type ScopeName } from './scope-rules.ts';
import { advanceScopes } from './scopes-service.ts';
import { partnerRef, type UserView, userView } from './user-view.ts';
import {
  findUserSnapshots,
  insertUser,
  listScopes,
  type ScopeRow,
  saveUserFields,
  type UserLookup,
  type UserSnapshot,
} from './users-store.ts';

export interface CreateUserInput {
  fields?: Record<string, unknown>;
  scopes?: string[];
  blockchains?: string[];
  immediate?: boolean;
  partnerId?: string;
}

export interface UpdateUserInput {
  fields?: Record<string, unknown>;
  scopes?: string[];
  blockchains?: string[];
  immediate?: boolean;
}

function scopeNames(raw: string[] | undefined, path: string): ScopeName[] {
  const names: ScopeName[] = [];
  (raw ?? []).forEach((value, index) => {
    if (!isScopeName(value)) throw userErrors.unknownScope(`${path}[${index}]`, value);
    if (!names.includes(value)) names.push(value);
  });
  return names;
}

/** GET ?scopes=TRANSFER,ACH: names separated by commas, each a known scope. */
export function parseScopesQuery(raw: string | undefined): ScopeName[] | undefined {
  if (raw === undefined) return undefined;
  const names: ScopeName[] = [];
  for (const part of raw.split(',')) {
    const value = part.trim();
    if (!isScopeName(value)) throw userErrors.unknownScope('scopes', value);
    if (!names.includes(value)) names.push(value);
  }
  return names;
}

/**
 * Validates every submitted field before applying any, so a call applies all or nothing. Fields
 * an active review or approval depends on are locked; a returned field becomes SUBMITTED again.
 */
export function applyFields(
  current: Record<string, StoredField>,
  inputs: Record<string, unknown>,
  scopes: ScopeRow[],
  nowMs: number,
): Record<string, StoredField> {
  const locked = lockedFields(scopes);
  const next = { ...current };
  for (const [submittedId, value] of Object.entries(inputs)) {
    const fieldId = canonicalFieldId(submittedId);
    const stored = validateFieldValue(fieldId, value, nowMs);
    if (locked.has(fieldId as never)) throw userErrors.fieldLocked(`fields.${fieldId}`, fieldId);
    next[fieldId] = { value: stored, status: 'SUBMITTED', error: null, submittedAt: nowMs };
  }
  return next;
}

/** Concurrent GETs of users read together: one statement per group, one per app (composition root). */
export function groupedUserSnapshots(db: Db): UserSnapshots {
  return new GroupedCalls((lookups: UserLookup[]) => findUserSnapshots(db, lookups));
}

type SnapshotReader = (lookup: UserLookup) => Promise<UserSnapshot | undefined>;

/** Inside a transaction: the user as that transaction sees it. */
function snapshotIn(tx: Tx): SnapshotReader {
  return async (lookup) => (await findUserSnapshots(tx, [lookup]))[0];
}

/** The User answer as committed state shows it, read by `read` (snapshotIn or grouped). */
async function viewOf(
  read: SnapshotReader,
  partnerId: string,
  userId: string,
  only?: ScopeName[],
): Promise<UserView> {
  const snapshot = await read({ partnerId, userId });
  if (!snapshot) throw userErrors.masqueradeRequired();
  const { user, scopes, hasActivePaymentMethod, depositAddresses, balances } = snapshot;
  const facts = { fields: user.fields, onboarding: user.onboarding_status, hasActivePaymentMethod };
  return userView(user, scopes, facts, depositAddresses, balances, only);
}

/**
 * POST /v3/users. Processing is synchronous, so `immediate` changes nothing: the answer already
 * reflects every transition the submitted data allowed.
 */
export async function createUser(
  ctx: UsersDeps,
  tx: Tx,
  scope: Scope,
  input: CreateUserInput,
): Promise<UserView> {
  requireUsersApi(scope);
  if (input.partnerId !== undefined && input.partnerId !== partnerRef(scope.partnerId))
    throw userErrors.partnerMismatch();
  const scopes = scopeNames(input.scopes, 'scopes');
  const nowMs = ctx.clock.nowMs();
  const fields = applyFields({}, input.fields ?? {}, [], nowMs);
  const user = await insertUser(tx, {
    id: newId('US'),
    partnerId: scope.partnerId,
    ownerAccountId: scope.accountId,
    fields,
    nowMs,
  });
  await assignDepositAddresses(
    ctx,
    tx,
    scope.partnerId,
    `user:${user.id}`,
    withEveryChain(ctx, input.blockchains ?? []),
  );
  await advanceScopes(ctx, tx, user, 'user.created', scopes.length > 0 ? scopes : ['TRANSFER']);
  return viewOf(snapshotIn(tx), user.partner_id, user.id);
}

/**
 * POST /v3/users with an untied decentralized token (docs/contract.md, decision 95): the user is
 * created as the partner creates one (scope from identity's sessionUserScope), and the token is
 * tied to it in the same transaction; the answer says so as Wyre's did, in `authenticatedAs`.
 */
export async function createUserForToken(
  ctx: UsersDeps,
  tx: Tx,
  scope: Scope,
  input: CreateUserInput,
): Promise<UserView & { authenticatedAs: string }> {
  const view = await createUser(ctx, tx, scope, input);
  await tieTokenToUser(tx, scope, view.id);
  return { ...view, authenticatedAs: `user:${view.id}` };
}

export async function getUser(ctx: UsersDeps, scope: Scope, userId: string, scopesQuery?: string) {
  const only = parseScopesQuery(scopesQuery);
  checkUserAccess(scope, userId);
  const view = await viewOf((lookup) => ctx.userSnapshots.call(lookup), scope.partnerId, userId, only);
  // A user made before every chain had a backend gets its missing addresses when read.
  const owner = `user:${view.id}`;
  view.depositAddresses = await completeDepositAddresses(
    ctx,
    ctx.db,
    scope.partnerId,
    owner,
    view.depositAddresses,
  );
  return view;
}

/** POST /v3/users/{id}: submits fields (and, as Wyre allowed, more scopes or chains); all or nothing. */
export async function updateUser(
  ctx: UsersDeps,
  tx: Tx,
  scope: Scope,
  userId: string,
  input: UpdateUserInput,
): Promise<UserView> {
  const user = await actingUser(tx, scope, userId, true);
  const scopes = await listScopes(tx, user.partner_id, user.id);
  if (scopes.some((row) => row.status === 'CLOSED')) throw userErrors.userClosed();
  const extraScopes = scopeNames(input.scopes, 'scopes');
  const nowMs = ctx.clock.nowMs();
  const fields = applyFields(user.fields, input.fields ?? {}, scopes, nowMs);
  await saveUserFields(tx, user.partner_id, user.id, fields, nowMs);
  await assignDepositAddresses(
    ctx,
    tx,
    user.partner_id,
    `user:${user.id}`,
    withEveryChain(ctx, input.blockchains ?? []),
  );
  const updated = { ...user, fields };
  await advanceScopes(ctx, tx, updated, 'user.updated', extraScopes);
  return viewOf(snapshotIn(tx), user.partner_id, user.id);
}
