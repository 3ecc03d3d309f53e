import { isIPv4, isIPv6 } from 'node:net';
import { CardDeclinedError, type DeclineReason } from '../cards/index.ts';
import type { Scope } from '../identity/index.ts';
import { getReservation, retireReservation } from '../orders/index.ts';
import type { ApiError } from '../platform/errors.ts';
import type { WalletOrdersDeps } from '../wallet-orders/index.ts';
import {
  beginAttempt,
  declinedAttemptsOf,
  deleteAttempt,
  recordRefusal,
  refusedAttemptsOf,
} from './attempts-store.ts';
import { checkoutErrors } from './errors.ts';

/**
 * The hosted checkout takes cards from anyone holding a link, without credentials: left alone it
 * would let a card tester try card after card, each answer telling a wrong postal code from
 * missing funds from a dead card. So the attempts the card processor refuses are capped (each a
 * setting): per reservation (its last refusal spends it), and per card fingerprint and per client
 * IP over a rolling hour; the buyer learns only that the card was declined. The counts live in
 * PostgreSQL, so they hold across processes; an attempt counts from before the processor is
 * asked until its answer is known (migrations/034), so concurrent attempts cannot together pass
 * a cap. The partner API (POST /v3/debitcard/process/partner) has none of this: its caller is an
 * authenticated partner answering for its own page, and it gets the processor's answer as is.
 */

export interface CardAttempt {
  reservationId: string;
  partnerId: string;
  /** The card's keyed fingerprint, never its number. */
  fingerprint: string;
  /** The client IP, as Fastify resolved it under RAMPART_TRUST_PROXY. */
  ip: string;
}

/**
 * Refusals that only say what the card's BIN says, which anyone can look up: the buyer is told,
 * so that someone holding a credit card knows to use a debit card. Every other refusal reads as
 * the one generic decline.
 */
const TOLD_AS_IS: ReadonlySet<DeclineReason> = new Set(['CREDIT', 'PREPAID', 'BRAND']);

/**
 * What an attempt counts under for its client: the IP, an IPv4 address written as IPv6
 * (`::ffff:a.b.c.d`) as IPv4, and an IPv6 address by its /64, the block one host usually holds
 * whole (counting single addresses would give it 2^64 of them).
 */
export function clientKey(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  if (!isIPv6(ip)) return ip;
  const [head = '', tail] = ip.toLowerCase().split('%')[0]!.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const full = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${full
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * Charges the card through `charge` as one counted attempt: refused at once when a cap is
 * reached; a processor refusal recorded (with its errorCode and message, for the record) and
 * answered to the buyer as a generic decline, spending the reservation when it was its last
 * allowed one; any other outcome leaves nothing counted.
 */
export async function chargeCountingAttempts<T>(
  ctx: WalletOrdersDeps,
  attempt: CardAttempt,
  charge: () => Promise<T>,
): Promise<T> {
  const id = await startAttempt(ctx, attempt);
  let result: T;
  try {
    result = await charge();
  } catch (error) {
    if (error instanceof CardDeclinedError) throw await refused(ctx, attempt, id, error);
    await forget(ctx, id);
    throw error;
  }
  await forget(ctx, id);
  return result;
}

async function startAttempt(ctx: WalletOrdersDeps, attempt: CardAttempt): Promise<number> {
  const nowMs = ctx.clock.nowMs();
  const begun = await beginAttempt(
    ctx.db,
    {
      reservationId: attempt.reservationId,
      partnerId: attempt.partnerId,
      fingerprint: attempt.fingerprint,
      client: clientKey(attempt.ip),
      atMs: nowMs,
    },
    ctx.config.checkoutFailedAttempts,
  );
  if ('id' in begun) return begun.id;
  const { refused } = begun;
  if (refused.cap === 'reservation') throw checkoutErrors.spentByDeclines();
  throw checkoutErrors.tooManyDeclines(refused.oldestCountedMs + 3600 * 1000 - nowMs);
}

/**
 * An attempt that ended without a refusal stops counting. Best effort: the order is placed or
 * refused by then whatever this does, and a row left behind only counts as a refusal would, for
 * the hour it is in the windows.
 */
async function forget(ctx: WalletOrdersDeps, id: number): Promise<void> {
  await deleteAttempt(ctx.db, id).catch(() => undefined);
}

async function refused(
  ctx: WalletOrdersDeps,
  attempt: CardAttempt,
  id: number,
  decline: CardDeclinedError,
): Promise<ApiError> {
  const count = await recordRefusal(ctx.db, id, decline);
  if (count >= ctx.config.checkoutFailedAttempts.perReservation) {
    await retireReservation(ctx, attempt.reservationId);
    return checkoutErrors.lastCardDeclined();
  }
  return TOLD_AS_IS.has(decline.reason) ? decline : checkoutErrors.cardDeclined();
}

/** Whether a used reservation was spent by declined cards rather than by an order. */
export async function spentByDeclines(ctx: WalletOrdersDeps, reservationId: string): Promise<boolean> {
  const count = await refusedAttemptsOf(ctx.db, reservationId);
  return count >= ctx.config.checkoutFailedAttempts.perReservation;
}

/**
 * The partner's record of its buyers' declined cards on a reservation: the processor's reason for
 * each, which the buyer was not told. Only the account that made the reservation reads it (the
 * reservation's own visibility: any other caller gets 404).
 */
export async function declinedCardAttempts(ctx: WalletOrdersDeps, scope: Scope, reservationId: string) {
  await getReservation(ctx, scope, reservationId);
  const attempts = await declinedAttemptsOf(ctx.db, reservationId);
  return {
    data: attempts.map((attempt) => ({
      createdAt: attempt.atMs,
      errorCode: attempt.errorCode,
      message: attempt.message,
    })),
  };
}
