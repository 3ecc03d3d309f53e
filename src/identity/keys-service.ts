import type { AppContext } from '../platform/context.ts';
import type { Tx } from '../platform/db/pool.ts';
import { invalidValue, notFound } from '../platform/errors.ts';
import { authErrors, identityErrors } from './errors.ts';
import { firstEntryOutside, parseWhitelist } from './ip-whitelist.ts';
import { deleteKeyWithin, insertKey, secretHashExists, setKeyWhitelist } from './keys-store.ts';
import { hashSecret, type MintedCredentials, mintCredentials } from './secrets.ts';
import type { Caller, Scope } from './types.ts';

export interface CreateKeyInput {
  desc?: string;
  type?: 'FULL' | 'READONLY';
  ipWhitelist?: unknown[];
}

export interface CreatedKey {
  apiKey: string;
  secretKey: string;
  owner: string;
  type: 'FULL' | 'READONLY';
  desc: string;
  ipWhitelist: string[];
}

/** Inserts a minted key for an account; the secret exists in clear only in the returned value. */
export async function storeAccountKey(
  tx: Tx,
  accountId: string,
  partnerId: string,
  credentials: MintedCredentials,
  options: {
    type: 'FULL' | 'READONLY';
    description: string;
    ipWhitelist: string[];
    origin: 'operator' | 'api';
    createdBy: string;
  },
) {
  await insertKey(tx, {
    apiKey: credentials.apiKey,
    accountId,
    partnerId,
    type: options.type,
    description: options.description,
    ipWhitelist: options.ipWhitelist,
    secretHash: credentials.secretHash,
    secretSealed: credentials.secretSealed,
    origin: options.origin,
    createdBy: options.createdBy,
  });
}

/** What a new key is: its type, description and (canonical) whitelist, defaults filled in. */
/** The API routes' schemas check these too; the console's forms reach here with whatever was posted. */
const MAX_KEY_DESCRIPTION = 200;

export function keyRequest(input: CreateKeyInput) {
  const type = input.type ?? 'FULL';
  if (type !== 'FULL' && type !== 'READONLY') throw invalidValue('type', 'type must be FULL or READONLY.');
  const desc = input.desc ?? '';
  if (typeof desc !== 'string' || desc.length > MAX_KEY_DESCRIPTION) {
    throw invalidValue('desc', `desc must be text of at most ${MAX_KEY_DESCRIPTION} characters.`);
  }
  return {
    type,
    desc,
    ipWhitelist: parseWhitelist(input.ipWhitelist ?? []),
  };
}

/** Mints and stores a key for an account; its secret exists in clear only in the returned answer. */
export async function issueAccountKey(
  ctx: AppContext,
  tx: Tx,
  account: { id: string; partnerId: string },
  request: ReturnType<typeof keyRequest>,
  by: { origin: 'operator' | 'api'; createdBy: string },
): Promise<CreatedKey> {
  const credentials = mintCredentials(ctx.config.masterKey);
  await storeAccountKey(tx, account.id, account.partnerId, credentials, {
    type: request.type,
    description: request.desc,
    ipWhitelist: request.ipWhitelist,
    ...by,
  });
  return {
    apiKey: credentials.apiKey,
    secretKey: credentials.secretKey,
    owner: `account:${account.id}`,
    ...request,
  };
}

/**
 * A key never grants more addresses than the key that creates it: with a whitelist of its own,
 * the creator's keys (and its own narrowed whitelist, for a bearer token) need one within it.
 */
function assertWithinCreator(ipWhitelist: string[], creator: Caller) {
  if (creator.ipWhitelist.length === 0) return;
  if (ipWhitelist.length === 0) throw authErrors.whitelistBeyondCreator('ipWhitelist', undefined);
  const outside = firstEntryOutside(ipWhitelist, creator.ipWhitelist);
  if (outside >= 0) throw authErrors.whitelistBeyondCreator(`ipWhitelist[${outside}]`, ipWhitelist[outside]);
}

/**
 * POST /v2/apiKeys: a key for the acting account (masquerading mints one for a sub-account).
 * docs/contract.md, Authentication: when the caller uses a bearer token and sends an ipWhitelist, that token is
 * restricted to the same addresses.
 */
export async function createApiKey(
  ctx: AppContext,
  tx: Tx,
  scope: Scope,
  input: CreateKeyInput,
): Promise<CreatedKey> {
  const request = keyRequest(input);
  assertWithinCreator(request.ipWhitelist, scope.caller);
  const created = await issueAccountKey(
    ctx,
    tx,
    { id: scope.accountId, partnerId: scope.partnerId },
    request,
    {
      origin: 'api',
      createdBy: scope.caller.apiKey,
    },
  );
  if (scope.caller.scheme === 'bearer' && request.ipWhitelist.length > 0)
    await setKeyWhitelist(tx, scope.caller.apiKey, request.ipWhitelist);
  return created;
}

/**
 * DELETE /v2/apiKey/{apiKey}: the caller's own key or its account's keys; a master also reaches
 * every key of its partner tree. An untied session reaches only its own key.
 */
export async function deleteApiKey(
  ctx: AppContext,
  caller: Caller,
  apiKey: string,
): Promise<Record<string, never>> {
  const deleted = await deleteKeyWithin(ctx.db, apiKey, {
    callerKey: caller.apiKey,
    accountId: caller.account?.id ?? null,
    partnerId: caller.account?.partnerId ?? null,
    wholeTree: caller.account?.kind === 'master',
  });
  if (!deleted) throw notFound('API key');
  return {};
}

export const MIN_SESSION_SECRET = 25;
export const MAX_SESSION_SECRET = 128;

/**
 * POST /v2/sessions/auth/key: registers a client-generated secret as a bearer token with no
 * account yet (docs/contract.md, Authentication). The secret's hash must be new: two devices can never share one.
 */
export async function registerSessionSecret(ctx: AppContext, tx: Tx, secretKey: string) {
  const secretHash = hashSecret(secretKey);
  if (await secretHashExists(tx, secretHash)) throw identityErrors.secretInUse();
  const credentials = mintCredentials(ctx.config.masterKey, secretKey);
  try {
    await insertKey(tx, {
      apiKey: credentials.apiKey,
      accountId: null,
      partnerId: null,
      type: 'FULL',
      description: 'decentralized session',
      ipWhitelist: [],
      secretHash,
      secretSealed: credentials.secretSealed,
      origin: 'session',
      createdBy: null,
    });
  } catch (error) {
    // Two registrations of one secret racing: the unique hash lets exactly one through.
    if ((error as { code?: string }).code === '23505') throw identityErrors.secretInUse();
    throw error;
  }
  return { apiKey: credentials.apiKey, authenticatedAs: null };
}
