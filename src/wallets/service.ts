import { depositAddressesOf, depositAddressesOfOwners } from '../chains/index.ts';
import type { Scope } from '../identity/index.ts';
import { balancesOf } from '../ledger/index.ts';
import type { Queryable, Tx } from '../platform/db/pool.ts';
import { nameRace, ownerOf } from './create.ts';
import type { WalletsDeps } from './deps.ts';
import { walletErrors } from './errors.ts';
import { callbackUrl, MAX_NAME, MAX_NOTES, optionalText, walletText } from './input.ts';
import {
  findWallet,
  findWalletByName,
  liveWalletExists,
  liveWalletOwners,
  lockWallet,
  markDeleted,
  pageWallets,
  takenNames,
  updateWallet,
  type WalletWithBalances,
  walletPageAfter,
} from './store.ts';
import { type WalletView, walletSrn, walletView } from './view.ts';

/**
 * v2 wallets (docs/contract.md, "Wallets and v2 transfers"): named custodial balance holders.
 * The caller's acting party owns what it creates (create.ts): the account itself, a sub-account
 * it masquerades as, or a user through `masqueradeAs=user:US_…`. Reads, changes and the lookups
 * other modules use are here.
 */

const DEFAULT_PAGE = 25;

/**
 * Whose wallets the scope sees, by the rule of accounts and transfers: the master acting as
 * itself sees its whole partner's (null), anyone else only the wallets it owns.
 */
export function visibleOwner(scope: Scope): string | null {
  return !scope.userId && scope.accountId === scope.partnerId ? null : ownerOf(scope);
}

async function viewOf(q: Queryable, row: WalletWithBalances): Promise<WalletView> {
  return walletView(row, await depositAddressesOf(q, row.partner_id, walletSrn(row.id)));
}

/** GET /v2/wallet/{id}: a wallet the scope sees, else 404 as for an unknown id. */
export async function getWallet(q: Queryable, scope: Scope, id: string): Promise<WalletView> {
  const row = await findWallet(q, scope.partnerId, id, visibleOwner(scope));
  if (!row) throw walletErrors.notFound();
  return viewOf(q, row);
}

/** GET /v2/wallet?name=: the acting party's own wallet of that name. */
export async function getWalletByName(q: Queryable, scope: Scope, name: string): Promise<WalletView> {
  const row = await findWalletByName(q, scope.partnerId, ownerOf(scope), name);
  if (!row) throw walletErrors.notFound();
  return viewOf(q, row);
}

/** GET /v2/wallets: `{data}`, oldest first. */
export async function listWallets(q: Queryable, scope: Scope, query: { offset?: number; limit?: number }) {
  const rows = await pageWallets(
    q,
    scope.partnerId,
    visibleOwner(scope),
    query.offset ?? 0,
    query.limit ?? DEFAULT_PAGE,
  );
  const addresses = await depositAddressesOfOwners(
    q,
    scope.partnerId,
    rows.map((row) => walletSrn(row.id)),
  );
  return { data: rows.map((row) => walletView(row, addresses.get(walletSrn(row.id))!)) };
}

export interface WalletUpdate {
  name?: unknown;
  callbackUrl?: unknown;
  notes?: unknown;
  verificationData?: unknown;
}

/** The fields an update sends, checked before its transaction; absent ones stay as they are. */
export interface PreparedUpdate {
  name?: string;
  callbackUrl?: string | null;
  notes?: string | null;
  verificationData?: unknown;
}

export async function prepareWalletUpdate(ctx: WalletsDeps, body: WalletUpdate): Promise<PreparedUpdate> {
  const update: PreparedUpdate = {};
  if (body.name !== undefined) update.name = walletText(body.name, 'name', MAX_NAME);
  if (body.callbackUrl !== undefined)
    update.callbackUrl = await callbackUrl(ctx, body.callbackUrl, 'callbackUrl');
  if (body.notes !== undefined) update.notes = optionalText(body.notes, 'notes', MAX_NOTES);
  if (body.verificationData !== undefined) update.verificationData = body.verificationData;
  return update;
}

/** POST /v2/wallet/{id}/update: the fields sent change (null clears), the others stay. */
export async function updateWalletFields(
  tx: Tx,
  scope: Scope,
  id: string,
  update: PreparedUpdate,
): Promise<WalletView> {
  const row = await lockWallet(tx, scope.partnerId, id, visibleOwner(scope));
  if (!row) throw walletErrors.notFound();
  const name = update.name ?? row.name;
  if (name !== row.name && (await takenNames(tx, row.partner_id, row.owner, [name])).size > 0) {
    throw walletErrors.nameTaken('name');
  }
  try {
    await updateWallet(tx, row.id, {
      name,
      callbackUrl: update.callbackUrl === undefined ? row.callback_url : update.callbackUrl,
      notes: update.notes === undefined ? row.notes : update.notes,
      verificationData:
        update.verificationData === undefined ? row.verification_data : update.verificationData,
    });
  } catch (error) {
    throw nameRace(error, 'name');
  }
  return viewOf(tx, (await findWallet(tx, row.partner_id, row.id, null))!);
}

/**
 * DELETE /v2/wallet/{id} (decision 33): refused while the wallet holds anything (held amounts
 * included), so no money is left behind a wallet nobody can see; otherwise answers `{}`.
 */
export async function deleteWallet(
  ctx: WalletsDeps,
  tx: Tx,
  scope: Scope,
  id: string,
): Promise<Record<string, never>> {
  const row = await lockWallet(tx, scope.partnerId, id, visibleOwner(scope));
  if (!row) throw walletErrors.notFound();
  const { totalBalances } = await balancesOf(tx, walletSrn(row.id));
  if (Object.values(totalBalances).some((amount) => !amount.isZero())) throw walletErrors.holdsBalance();
  await markDeleted(tx, row.id, ctx.clock.now());
  return {};
}

/** For transfers: the owners of the partner's live wallets among `ids`. */
export function walletOwners(q: Queryable, partnerId: string, ids: string[]): Promise<Map<string, string>> {
  return ids.length === 0 ? Promise.resolve(new Map()) : liveWalletOwners(q, partnerId, ids);
}

/** For the ledger's owner check (`wallet:WA_…`). */
export function walletExists(q: Queryable, id: string): Promise<boolean> {
  return liveWalletExists(q, id);
}

/** GET /v2/wallets' list by the same visibility, after the wallet `after` (keyset paging). */
export async function walletsAfter(q: Queryable, scope: Scope, after: string | undefined, limit: number) {
  const rows = await walletPageAfter(q, scope.partnerId, visibleOwner(scope), after, limit);
  const addresses = await depositAddressesOfOwners(
    q,
    scope.partnerId,
    rows.map((row) => walletSrn(row.id)),
  );
  return rows.map((row) => walletView(row, addresses.get(walletSrn(row.id))!));
}
