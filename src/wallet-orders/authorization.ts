import { createHmac } from 'node:crypto';
import { hmacSha256Hex, secretsEqual } from '../platform/crypto.ts';
import { type Tx, withTransaction } from '../platform/db/pool.ts';
import type { ApiError } from '../platform/errors.ts';
import type { NewJob } from '../platform/jobs/queue.ts';
import { codeDeliveryJob } from './code-delivery.ts';
import type { CodeKind } from './code-sender.ts';
import type { WalletOrdersDeps } from './deps.ts';
import { FAILURES, type Failure, walletOrderErrors } from './errors.ts';
import { authorizationExpiryJob, cardAuthorizeJob, enqueueProcessing } from './jobs.ts';
import {
  type AuthorizationRow,
  findAuthorization,
  lockOrder,
  type NewAuthorization,
  type OrderRow,
  updateAuthorization,
} from './store.ts';
import { failOrder } from './transitions.ts';

/** Codes and 3-D Secure expire after 10 minutes by the service clock; 5 wrong codes fail the order (docs/contract.md, Card orders). */
export const AUTHORIZATION_TTL_MS = 10 * 60 * 1000;
export const MAX_CODE_ATTEMPTS = 5;

/** Codes are stored as keyed hashes bound to the order: a leaked table does not reveal them. */
function codeHash(ctx: WalletOrdersDeps, orderId: string, kind: CodeKind, code: string): string {
  const key = createHmac('sha256', ctx.config.masterKey).update('rampart authorization codes v1').digest();
  return hmacSha256Hex(key, `${orderId}:${kind}:${code}`);
}

/**
 * The step the issuer asked for, as the new order's statement writes it (insertOrders): codes'
 * hashes, expiry by the service clock, and its jobs: the one that fails it once expired (real
 * time) and, where the code sender has a channel, the delivery of the SMS code after COMMIT
 * (code-delivery.ts). The SMS code is always asked; the CARD2FA code only where the code sender
 * delivers it (docs/contract.md, decision 124). A card that needs codes where none can be
 * delivered is refused here, before anything is written.
 */
export function authorizationStep(
  ctx: WalletOrdersDeps,
  orderId: string,
  method: 'CODES' | '3DS' | 'PROCESSOR',
): { authorization: NewAuthorization; jobs: NewJob[] } {
  if (method === 'PROCESSOR') return processorStep(ctx, orderId);
  const jobs = [authorizationExpiryJob(orderId, ctx.clock.realNow() + AUTHORIZATION_TTL_MS)];
  const expiresAtMs = ctx.clock.nowMs() + AUTHORIZATION_TTL_MS;
  if (method === '3DS') {
    return { authorization: { method, smsHash: null, card2faHash: null, expiresAtMs }, jobs };
  }
  const sender = ctx.codeSender;
  if (!sender.delivers.includes('SMS')) throw walletOrderErrors.codesUndeliverable();
  const sms = sender.issue(orderId, 'SMS');
  if (sender.channel) jobs.push(codeDeliveryJob(ctx, orderId, 'SMS', sms));
  const card2fa = sender.delivers.includes('CARD2FA') ? sender.issue(orderId, 'CARD2FA') : undefined;
  return {
    authorization: {
      method,
      smsHash: codeHash(ctx, orderId, 'SMS', sms),
      card2faHash: card2fa === undefined ? null : codeHash(ctx, orderId, 'CARD2FA', card2fa),
      expiresAtMs,
    },
    jobs,
  };
}

/**
 * A remote processor's answer, awaited (docs/contract.md decision 101): no code, and no expiry
 * that fails the order (a payment the processor has not answered is never guessed), and the
 * status poll that asks for it if the request's own call does not get the answer.
 */
function processorStep(ctx: WalletOrdersDeps, orderId: string) {
  const firstPollAtMs = ctx.clock.realNow() + ctx.config.cardProcessorTimeoutMs + FIRST_POLL_MARGIN_MS;
  return {
    authorization: {
      method: 'PROCESSOR' as const,
      smsHash: null,
      card2faHash: null,
      expiresAtMs: ctx.clock.nowMs() + AUTHORIZATION_TTL_MS,
    },
    jobs: [cardAuthorizeJob(orderId, firstPollAtMs)],
  };
}

/** The first status poll runs after the request's own call had its full time, and this. */
const FIRST_POLL_MARGIN_MS = 5_000;

/**
 * The SMS code step of an order a remote processor approved (card-payments.ts): an SMS code
 * only, CARD2FA counted as done (decision 105), with its 10 minutes from now.
 */
export function codesStepFor(
  ctx: WalletOrdersDeps,
  orderId: string,
): { authorization: NewAuthorization; jobs: NewJob[] } {
  const sms = ctx.codeSender.issue(orderId, 'SMS');
  const jobs = [authorizationExpiryJob(orderId, ctx.clock.realNow() + AUTHORIZATION_TTL_MS)];
  if (ctx.codeSender.channel) jobs.push(codeDeliveryJob(ctx, orderId, 'SMS', sms));
  return {
    authorization: {
      method: 'CODES',
      smsHash: codeHash(ctx, orderId, 'SMS', sms),
      card2faHash: null,
      expiresAtMs: ctx.clock.nowMs() + AUTHORIZATION_TTL_MS,
    },
    jobs,
  };
}

const expired = (ctx: WalletOrdersDeps, a: AuthorizationRow) => a.expires_at.getTime() <= ctx.clock.nowMs();

/** Fails the order if its step is still pending past expiry; true when it did. */
async function failIfExpired(ctx: WalletOrdersDeps, tx: Tx, order: OrderRow, a: AuthorizationRow) {
  if (order.status !== 'RUNNING_CHECKS' || a.state !== 'PENDING' || !expired(ctx, a)) return false;
  if (a.method === 'PROCESSOR') return false;
  await failOrder(ctx, tx, order, a.method === 'CODES' ? FAILURES.codesExpired : FAILURES.threeDsExpired);
  return true;
}

/** The expiry job: safe to repeat, and a no-op once the step was completed. */
export async function expireAuthorization(ctx: WalletOrdersDeps, orderId: string): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    const order = await lockOrder(tx, orderId);
    const authorization = order && (await findAuthorization(tx, orderId));
    if (order && authorization) await failIfExpired(ctx, tx, order, authorization);
  });
}

export interface CodeSubmission {
  type: 'SMS' | 'CARD2FA' | 'ALL';
  walletOrderId: string;
  reservation: string;
  sms?: string;
  card2fa?: string;
  /** Set by the partner API: orders of other partners read as unknown. */
  partnerId?: string;
}

type Outcome = { success: true } | { error: ApiError };

/**
 * POST /v3/debitcard/authorize/partner. A wrong code counts one attempt and is refused; the fifth
 * wrong one, or any submission after expiry, fails the order (hold voided, spend released).
 * The attempt counter commits even though the answer is an error, hence the outcome value
 * instead of a throw inside the transaction.
 */
export async function submitCodes(ctx: WalletOrdersDeps, input: CodeSubmission) {
  const outcome = await withTransaction(ctx.db, async (tx): Promise<Outcome> => {
    const order = await lockOrder(tx, input.walletOrderId);
    if (!order || (input.partnerId !== undefined && order.partner_id !== input.partnerId)) {
      return { error: walletOrderErrors.notFound() };
    }
    if (order.reservation_id !== input.reservation) return { error: walletOrderErrors.wrongReservation() };
    const a = await findAuthorization(tx, order.id);
    if (a?.method !== 'CODES' || a.state !== 'PENDING' || order.status !== 'RUNNING_CHECKS') {
      return { error: walletOrderErrors.noAuthorization() };
    }
    if (await failIfExpired(ctx, tx, order, a)) return { error: walletOrderErrors.codeExpired() };
    const checked = checkCodes(ctx, order.id, a, input);
    if (checked.error) return { error: checked.error };
    return recordAttempt(ctx, tx, order, a, checked.matched);
  });
  if ('error' in outcome) throw outcome.error;
  return { walletOrderId: input.walletOrderId, success: true };
}

/** Which codes this submission carries and whether each matches; a code the step never asked is refused. */
function checkCodes(
  ctx: WalletOrdersDeps,
  orderId: string,
  a: AuthorizationRow,
  input: CodeSubmission,
): { error: ApiError; matched?: never } | { error?: never; matched: { sms?: boolean; card2fa?: boolean } } {
  const wantsSms = input.type === 'SMS' || input.type === 'ALL';
  const asksCard = a.card2fa_hash !== null;
  if (input.type === 'CARD2FA' && !asksCard) return { error: walletOrderErrors.codeNotAsked('card2fa') };
  const wantsCard = asksCard && (input.type === 'CARD2FA' || input.type === 'ALL');
  if (wantsSms && input.sms === undefined) return { error: walletOrderErrors.codeRequired('sms') };
  if (wantsCard && input.card2fa === undefined) return { error: walletOrderErrors.codeRequired('card2fa') };
  const matched: { sms?: boolean; card2fa?: boolean } = {};
  if (wantsSms) matched.sms = secretsEqual(codeHash(ctx, orderId, 'SMS', input.sms!), a.sms_hash!);
  if (wantsCard)
    matched.card2fa = secretsEqual(codeHash(ctx, orderId, 'CARD2FA', input.card2fa!), a.card2fa_hash!);
  return { matched };
}

async function recordAttempt(
  ctx: WalletOrdersDeps,
  tx: Tx,
  order: OrderRow,
  a: AuthorizationRow,
  matched: { sms?: boolean; card2fa?: boolean },
): Promise<Outcome> {
  const nowMs = ctx.clock.nowMs();
  if (matched.sms === false || matched.card2fa === false) {
    const attempts = a.attempts + 1;
    await updateAuthorization(tx, order.id, { attempts }, nowMs);
    if (attempts >= MAX_CODE_ATTEMPTS) {
      await failOrder(ctx, tx, order, FAILURES.codesMaxAttempts);
      return { error: walletOrderErrors.maxAttempts() };
    }
    return { error: walletOrderErrors.codeMismatch(MAX_CODE_ATTEMPTS - attempts) };
  }
  const smsVerified = a.sms_verified || matched.sms === true;
  // A step that never asked for the CARD2FA code passes on the SMS code alone.
  const cardVerified = a.card2fa_verified || a.card2fa_hash === null || matched.card2fa === true;
  const passed = smsVerified && cardVerified;
  await updateAuthorization(
    tx,
    order.id,
    { sms_verified: smsVerified, card2fa_verified: cardVerified, state: passed ? 'PASSED' : 'PENDING' },
    nowMs,
  );
  if (passed) await enqueueProcessing(tx, order.id);
  return { success: true };
}

/**
 * The simulated issuer's 3-D Secure decision. Approve clears the order for processing; decline
 * fails it. Only a pending, unexpired step can be decided, once.
 */
export async function decideThreeDs(
  ctx: WalletOrdersDeps,
  orderId: string,
  decision: 'APPROVED' | 'DECLINED',
): Promise<'APPROVED' | 'DECLINED' | 'EXPIRED' | 'NOT_PENDING'> {
  return withTransaction(ctx.db, async (tx) => {
    const order = await lockOrder(tx, orderId);
    const a = order && (await findAuthorization(tx, orderId));
    if (!order || !a || a.method !== '3DS' || a.state !== 'PENDING' || order.status !== 'RUNNING_CHECKS') {
      return 'NOT_PENDING';
    }
    if (await failIfExpired(ctx, tx, order, a)) return 'EXPIRED';
    const nowMs = ctx.clock.nowMs();
    const state = decision === 'APPROVED' ? 'PASSED' : 'FAILED';
    await updateAuthorization(tx, orderId, { three_ds_decision: decision, state }, nowMs);
    if (decision === 'APPROVED') await enqueueProcessing(tx, orderId);
    else await failOrder(ctx, tx, order, FAILURES.threeDsDeclined satisfies Failure);
    return decision;
  });
}
