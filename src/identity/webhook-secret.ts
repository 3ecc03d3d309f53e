import type { AppContext } from '../platform/context.ts';
import { open, seal } from '../platform/crypto.ts';
import type { Queryable } from '../platform/db/pool.ts';
import { newKey } from '../platform/ids.ts';
import {
  findAccountById,
  replaceWebhookSecret,
  sealedWebhookSecret,
  setWebhookSecretOnce,
} from './accounts-store.ts';

/**
 * The per-partner callback signing secret (docs/contract.md, decision 10), kept in `accounts.webhook_secret`
 * sealed under the master key; the associated data binds the box to its account.
 */
export const webhookAad = (accountId: string) => `webhook-secret:${accountId}`;

export const newWebhookSecret = () => newKey('SK').replace(/^SK-/, 'WH-');

/** The master account a (sub-)account belongs to; undefined for an unknown account. */
export async function partnerIdOf(q: Queryable, accountId: string): Promise<string | undefined> {
  return (await findAccountById(q, accountId))?.partner_id;
}

/**
 * The partner's signing secret in clear, for signing a callback or showing it to its owner.
 * Accounts made by the operator got one at creation; a decentralized (self-created) account gets
 * one here on first need. The conditional update makes concurrent first uses agree on one secret.
 */
export async function webhookSecretOf(ctx: AppContext, q: Queryable, partnerId: string): Promise<string> {
  let box = await sealedWebhookSecret(q, partnerId);
  if (box === null) {
    await setWebhookSecretOnce(
      q,
      partnerId,
      seal(ctx.config.masterKey, newWebhookSecret(), webhookAad(partnerId)),
    );
    box = await sealedWebhookSecret(q, partnerId);
  }
  if (!box) throw new Error(`no partner account ${partnerId}`);
  return open(ctx.config.masterKey, box, webhookAad(partnerId)).toString();
}

/** Whether the partner has a callback secret yet (a self-created account gets one on first need). */
export async function hasWebhookSecret(q: Queryable, partnerId: string): Promise<boolean> {
  return Boolean(await sealedWebhookSecret(q, partnerId));
}

/**
 * A new callback secret for the partner, in clear only in the answer (its owner's dashboard shows
 * it once). Callbacks signed from now on use it; the old one stops verifying at once, so the
 * receiver is updated right after (docs/contract.md, decision 166).
 */
export async function rotateWebhookSecret(ctx: AppContext, q: Queryable, partnerId: string): Promise<string> {
  const secret = newWebhookSecret();
  const replaced = await replaceWebhookSecret(
    q,
    partnerId,
    seal(ctx.config.masterKey, secret, webhookAad(partnerId)),
  );
  if (!replaced) throw new Error(`no partner account ${partnerId}`);
  return secret;
}
