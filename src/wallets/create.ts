import { assignDepositAddresses, chainsRequested, depositAddressesOf } from '../chains/index.ts';
import type { Scope } from '../identity/index.ts';
import type { Queryable, Tx } from '../platform/db/pool.ts';
import { ApiError } from '../platform/errors.ts';
import { newId, randomHex } from '../platform/ids.ts';
import type { WalletsDeps } from './deps.ts';
import { BatchRefusal, type ItemRefusal, walletErrors } from './errors.ts';
import { type WalletInput, walletInput } from './input.ts';
import { insertWallets, type NewWallet, takenNames } from './store.ts';
import { type WalletView, walletSrn, walletView } from './view.ts';

/**
 * Creating wallets (POST /v2/wallets and its batch): every wallet's fields checked before the
 * transaction, then its names against the owner's, then all stored or none (decision 32).
 */

export const MAX_BATCH = 100;

/** The SRN of whoever acts: the owner of the wallets it creates. */
export function ownerOf(scope: Scope): string {
  return scope.userId ? `user:${scope.userId}` : `account:${scope.accountId}`;
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
export async function prepareWallets(
  ctx: WalletsDeps,
  raws: unknown[],
  batch: boolean,
): Promise<PreparedWallets> {
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
  const taken = await takenNames(
    q,
    scope.partnerId,
    ownerOf(scope),
    named.map((input) => input.name),
  );
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
export function nameRace(error: unknown, field: string): unknown {
  const pgError = error as { code?: string; constraint?: string };
  return pgError.code === '23505' && pgError.constraint === 'wallets_owner_name'
    ? walletErrors.nameTaken(field)
    : error;
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
    views.push(
      walletView({ ...row, balances: [] }, await depositAddressesOf(tx, scope.partnerId, walletSrn(row.id))),
    );
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
  if (refusals.length > 0)
    throw refusalOf(
      prepared,
      refusals.sort((a, b) => a.index - b.index),
    );
  const inputs = prepared.inputs as WalletInput[];
  return storeWallets(ctx, tx, scope, inputs, prepared.batch ? 'wallets' : 'name');
}
