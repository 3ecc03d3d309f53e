import type { Scope } from '../identity/types.ts';
import { balancesOf } from '../ledger/service.ts';
import type { Queryable, Tx } from '../platform/db/pool.ts';
import { ApiError } from '../platform/errors.ts';
import { newId, randomHex } from '../platform/ids.ts';
import { assignDepositAddresses, chainsRequested, depositAddressesOf } from '../users/deposit-addresses.ts';
import type { WalletsDeps } from './deps.ts';
import { BatchRefusal, type ItemRefusal, walletErrors } from './errors.ts';
import { callbackUrl, MAX_NAME, MAX_NOTES, optionalText, type WalletInput, walletInput, walletText } from './input.ts';
import {
  findWallet,
  findWalletByName,
  insertWallets,
  liveWalletExists,
  liveWalletOwners,
  lockWallet,
  markDeleted,
  type NewWallet,
  pageWallets,
  takenNames,
  updateWallet,
  type WalletWithBalances,
} from './store.ts';
import { type WalletView, walletSrn, walletView } from './view.ts';

/**
 * v2 wallets (docs/contract.md, "Wallets and v2 transfers"): named custodial balance holders.
 * The caller's acting party owns what it creates: the account itself, a sub-account it
 * masquerades as, or a user through `masqueradeAs=user:US_…`.
 */

export const MAX_BATCH = 100;
const DEFAULT_PAGE = 25;

/** The SRN of whoever acts: the owner of the wallets it creates. */
export function ownerOf(scope: Scope): string {
  return scope.userId ? `user:${scope.userId}` : `account:${scope.accountId}`;
}

/**
 * Whose wallets the scope sees, by the rule of accounts and transfers: the master acting as
 * itself sees its whole partner's (null), anyone else only the wallets it owns.
 */
export function visibleOwner(scope: Scope): string | null {
  return !scope.userId && scope.accountId === scope.partnerId ? null : ownerOf(scope);
}

/**
 * Every chain this environment has a backend for: a wallet gets the deposit addresses an
 * account or user would, through the users module's one way in.
 */
function depositCurrencies(ctx: WalletsDeps): string[] {
  return chainsRequested(['ALL'])
    .filter(({ chain }) => ctx.chains.backends[chain] !== undefined)
    .map(({ currency }) => currency);
}

async function viewOf(q: Queryable, row: WalletWithBalances): Promise<WalletView> {
  return walletView(row, await depositAddressesOf(q, row.partner_id, walletSrn(row.id)));
}

/** Wallets to create, checked before any transaction opens (a callback URL check may resolve DNS). */
export interface PreparedWallets {
  /** Each wallet's checked fields, or undefined where it is refused. */
  inputs: (WalletInput | undefined)[];
  refusals: ItemRefusal[];
  /** A batch's wallets are named `wallets[i]`; a lone wallet's fields by their own names. */
  batch: boolean;
}

const placeOf = (batch: boolean, index: number) => (batch ? `wallets[${index}]` : '');
const nameField = (batch: boolean, index: number) => (batch ? `wallets[${index}].name` : 'name');

function itemRefusal(index: number, error: unknown, place: string): ItemRefusal {
  if (!(error instanceof ApiError)) throw error;
  return {
    index,
    problematicField: error.problematicField ?? place,
    errorCode: error.errorCode,
    message: error.message,
  };
}

/** Every wallet's fields checked, each on its own, so one bad wallet hides nothing about the others. */
export async function prepareWallets(ctx: WalletsDeps, raws: unknown[], batch: boolean): Promise<PreparedWallets> {
  if (batch && (raws.length === 0 || raws.length > MAX_BATCH)) throw walletErrors.batchSize(MAX_BATCH);
  const refusals: ItemRefusal[] = [];
  const inputs = await Promise.all(
    raws.map((raw, index) =>
      walletInput(ctx, raw, placeOf(batch, index)).catch((error: unknown) => {
        refusals.push(itemRefusal(index, error, placeOf(batch, index)));
        return undefined;
      }),
    ),
  );
  return { inputs, refusals, batch };
}

/** Names repeated within the request or already used by the owner's live wallets. */
async function nameRefusals(q: Queryable, scope: Scope, prepared: PreparedWallets): Promise<ItemRefusal[]> {
  const named = prepared.inputs.filter((input): input is WalletInput => input !== undefined);
  const taken = await takenNames(q, scope.partnerId, ownerOf(scope), named.map((input) => input.name));
  const seen = new Set<string>();
  const refusals: ItemRefusal[] = [];
  prepared.inputs.forEach((input, index) => {
    if (!input) return;
    if (taken.has(input.name) || seen.has(input.name)) {
      const field = nameField(prepared.batch, index);
      refusals.push(itemRefusal(index, walletErrors.nameTaken(field), field));
    }
    seen.add(input.name);
  });
  return refusals;
}

/** The refusal of a request with refused wallets: a batch lists them all (decision 32). */
function refusalOf(prepared: PreparedWallets, refusals: ItemRefusal[]): ApiError {
  if (prepared.batch) return new BatchRefusal(refusals);
  const [first] = refusals;
  return new ApiError('ValidationException', first!.errorCode, first!.message, {
    problematicField: first!.problematicField,
  });
}

function newWalletRow(ctx: WalletsDeps, scope: Scope, input: WalletInput): NewWallet {
  return {
    id: newId('WA'),
    partner_id: scope.partnerId,
    owner: ownerOf(scope),
    name: input.name,
    type: input.type,
    callback_url: input.callbackUrl,
    notes: input.notes,
    verification_data: null,
    // A per-wallet channel name, as Wyre's wallets carried for their push service.
    pusher_channel: randomHex(16),
    created_at: ctx.clock.now(),
  };
}

/** A unique-name race lost to a concurrent request: the same answer as a name seen taken. */
function nameRace(error: unknown, field: string): unknown {
  const pgError = error as { code?: string; constraint?: string };
  return pgError.code === '23505' && pgError.constraint === 'wallets_owner_name' ? walletErrors.nameTaken(field) : error;
}

async function storeWallets(ctx: WalletsDeps, tx: Tx, scope: Scope, inputs: WalletInput[], field: string) {
  const rows = inputs.map((input) => newWalletRow(ctx, scope, input));
  try {
    await insertWallets(tx, rows);
  } catch (error) {
    throw nameRace(error, field);
  }
  const currencies = depositCurrencies(ctx);
  const views: WalletView[] = [];
  for (const row of rows) {
    await assignDepositAddresses(ctx, tx, scope.partnerId, walletSrn(row.id), currencies);
    views.push(walletView({ ...row, balances: [] }, await depositAddressesOf(tx, scope.partnerId, walletSrn(row.id))));
  }
  return views;
}

/**
 * POST /v2/wallets and /v2/wallets/batch, all or nothing (decision 32): with any wallet refused
 * (its fields, or its name) none is stored, and a batch's refusal lists every refused wallet.
 */
export async function createWallets(
  ctx: WalletsDeps,
  tx: Tx,
  scope: Scope,
  prepared: PreparedWallets,
): Promise<WalletView[]> {
  const refusals = [...prepared.refusals, ...(await nameRefusals(tx, scope, prepared))];
  if (refusals.length > 0) throw refusalOf(prepared, refusals.sort((a, b) => a.index - b.index));
  const inputs = prepared.inputs as WalletInput[];
  return storeWallets(ctx, tx, scope, inputs, prepared.batch ? 'wallets' : 'name');
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
  const rows = await pageWallets(q, scope.partnerId, visibleOwner(scope), query.offset ?? 0, query.limit ?? DEFAULT_PAGE);
  return { data: await Promise.all(rows.map((row) => viewOf(q, row))) };
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
  if (body.callbackUrl !== undefined) update.callbackUrl = await callbackUrl(ctx, body.callbackUrl, 'callbackUrl');
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
      verificationData: update.verificationData === undefined ? row.verification_data : update.verificationData,
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
export async function deleteWallet(ctx: WalletsDeps, tx: Tx, scope: Scope, id: string): Promise<Record<string, never>> {
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
