import { auditOperatorChange, type OperatorAct } from '../operator/index.ts';
import type { AppContext } from '../platform/context.ts';
import { isCountryCode } from '../platform/countries.ts';
import { seal } from '../platform/crypto.ts';
import { type Tx, withTransaction } from '../platform/db/pool.ts';
import { invalidValue, notFound } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { findAccountById, findSandboxDemo, insertAccount, setUsersApi } from './accounts-store.ts';
import { type CreateKeyInput, issueAccountKey, keyRequest, storeAccountKey } from './keys-service.ts';
import { deleteAccountKey, listLiveKeysOfAccount } from './keys-store.ts';
import { mintCredentials } from './secrets.ts';
import { newWebhookSecret, webhookAad } from './webhook-secret.ts';

export interface MasterAccountInput {
  name: string;
  country: string;
  usersApi?: boolean;
}

export interface CreatedMaster {
  accountId: string;
  apiKey: string;
  secretKey: string;
  /** Signs this partner's callbacks (docs/contract.md, decision 10); shown here once. */
  webhookSecret: string;
}

/**
 * The sandbox demo partner is INDIVIDUAL: its profile lists Wyre's individual* fields, the only
 * account profile fields Wyre documents, and those belong to that type.
 */
async function insertMaster(
  ctx: AppContext,
  tx: Tx,
  input: MasterAccountInput,
  demo: boolean,
): Promise<CreatedMaster> {
  if (!isCountryCode(input.country))
    throw invalidValue('country', `Unknown country code "${input.country}".`);
  const accountId = newId('AC');
  const webhookSecret = newWebhookSecret();
  await insertAccount(tx, {
    id: accountId,
    partnerId: accountId,
    parentId: null,
    kind: 'master',
    name: input.name,
    status: 'APPROVED',
    type: demo ? 'INDIVIDUAL' : 'BUSINESS',
    country: input.country,
    usersApiEnabled: input.usersApi ?? false,
    referrerAccountId: null,
    profileFields: {},
    webhookSecret: seal(ctx.config.masterKey, webhookSecret, webhookAad(accountId)),
    isSandboxDemo: demo,
  });
  const credentials = mintCredentials(ctx.config.masterKey);
  await storeAccountKey(tx, accountId, accountId, credentials, {
    type: 'FULL',
    description: 'first key',
    ipWhitelist: [],
    origin: 'operator',
    createdBy: 'operator',
  });
  return { accountId, apiKey: credentials.apiKey, secretKey: credentials.secretKey, webhookSecret };
}

/** POST /operator/v1/accounts: a master account with its first FULL key, audited in the same transaction. */
export async function createMasterAccount(
  ctx: AppContext,
  tx: Tx,
  act: OperatorAct,
  input: MasterAccountInput,
) {
  const created = await insertMaster(ctx, tx, input, false);
  await auditOperatorChange(tx, act, `account:${created.accountId}`, {
    name: input.name,
    country: input.country,
    usersApi: input.usersApi ?? false,
  });
  return created;
}

/** The Users API switch (operator only: docs/contract.md, Users and KYC), audited with the change. */
export async function switchUsersApi(ctx: AppContext, act: OperatorAct, accountId: string, enabled: boolean) {
  return withTransaction(ctx.db, async (tx) => {
    const account = await findAccountById(tx, accountId);
    if (account?.kind !== 'master') throw notFound('Master account');
    await setUsersApi(tx, accountId, enabled);
    await auditOperatorChange(tx, act, `account:${accountId}`, { usersApi: enabled });
    return { accountId, usersApi: enabled };
  });
}

/**
 * POST /operator/v1/accounts/{accountId}/api-keys: a key for any existing account, as the
 * partner's own POST /v2/apiKeys makes one (how a lost secret is replaced without a new
 * account). The audit row names the key, never its secret.
 */
export async function createAccountKey(
  ctx: AppContext,
  tx: Tx,
  act: OperatorAct,
  accountId: string,
  input: CreateKeyInput,
) {
  const request = keyRequest(input);
  const account = await findAccountById(tx, accountId);
  if (!account) throw notFound('Account');
  const created = await issueAccountKey(ctx, tx, { id: account.id, partnerId: account.partner_id }, request, {
    origin: 'operator',
    createdBy: 'operator',
  });
  const { secretKey: _secret, ...shown } = created;
  await auditOperatorChange(tx, act, `account:${accountId}`, shown);
  return created;
}

/** GET /operator/v1/accounts/{accountId}/api-keys: the account's live keys, without secrets. */
export async function listAccountKeys(ctx: AppContext, accountId: string) {
  if (!(await findAccountById(ctx.db, accountId))) throw notFound('Account');
  const keys = await listLiveKeysOfAccount(ctx.db, accountId);
  return {
    data: keys.map((key) => ({
      apiKey: key.api_key,
      type: key.type,
      desc: key.description,
      ipWhitelist: key.ip_whitelist,
      origin: key.origin,
      createdAt: key.created_at.getTime(),
    })),
  };
}

/** DELETE /operator/v1/accounts/{accountId}/api-keys/{apiKey}: the key stops working at once, audited. */
export async function revokeAccountKey(ctx: AppContext, act: OperatorAct, accountId: string, apiKey: string) {
  return withTransaction(ctx.db, async (tx) => {
    if (!(await deleteAccountKey(tx, accountId, apiKey))) throw notFound('API key');
    await auditOperatorChange(tx, act, `account:${accountId}`, { apiKey, revoked: true });
    return {};
  });
}

/**
 * First sandbox start (the composition root calls it in sandbox only): one demo master account
 * with the Users API on. Returns its credentials only to the process that created it (a unique
 * index admits one demo), so they print once.
 */
export async function ensureSandboxDemo(ctx: AppContext): Promise<CreatedMaster | undefined> {
  if (await findSandboxDemo(ctx.db)) return undefined;
  try {
    return await withTransaction(ctx.db, (tx) =>
      insertMaster(ctx, tx, { name: 'Sandbox demo partner', country: 'US', usersApi: true }, true),
    );
  } catch (error) {
    if ((error as { code?: string }).code === '23505') return undefined; // another process made it first
    throw error;
  }
}
