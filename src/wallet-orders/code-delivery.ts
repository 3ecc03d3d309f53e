import { createHmac } from 'node:crypto';
import { open, seal } from '../platform/crypto.ts';
import type { NewJob } from '../platform/jobs/queue.ts';
import { finishDelivery, startDelivery } from './code-delivery-store.ts';
import type { CodeKind } from './code-sender.ts';
import type { WalletOrdersDeps } from './deps.ts';

/**
 * An order's code on its way to the buyer (docs/contract.md, decision 123). The order's
 * transaction queues this job with the code sealed (AES-256-GCM under a key derived from the
 * master key, bound to the order and the kind), so the code is never in the database in clear
 * and the job exists exactly when the order does; the job sends it after COMMIT through the
 * code sender's channel and is retried, with backoff, until the channel confirms or refuses.
 */
export const DELIVER_CODE_JOB = 'walletOrders.deliverCode';

/**
 * Tries at 2, 4, 8 … 128 seconds of backoff: the last one starts about four minutes after the
 * first, well inside the code's ten minutes, leaving the buyer time to type it.
 */
const DELIVERY_ATTEMPTS = 8;

function sealingKey(masterKey: Buffer): Buffer {
  return createHmac('sha256', masterKey).update('rampart code delivery v1').digest();
}

const associatedData = (orderId: string, kind: CodeKind) => `code-delivery:${orderId}:${kind}`;

export function codeDeliveryJob(
  ctx: WalletOrdersDeps,
  orderId: string,
  kind: CodeKind,
  code: string,
): NewJob {
  const sealed = seal(sealingKey(ctx.config.masterKey), code, associatedData(orderId, kind));
  return {
    kind: DELIVER_CODE_JOB,
    payload: { orderId, kind, sealedCode: sealed.toString('base64') },
    maxAttempts: DELIVERY_ATTEMPTS,
  };
}

/** The text the buyer receives: the code first, as phones offer to fill in a leading code. */
export function codeMessageBody(code: string): string {
  return `${code} is your card purchase verification code. Do not share it.`;
}

/**
 * The delivery job: safe to repeat. A run after the send was recorded (sent, refused) sends
 * nothing; a step no longer waiting (completed, failed, expired) is not sent to. An unconfirmed
 * send throws, so the job runs again; the error names the provider's status, never the code or
 * the phone number. A crash during the provider's call itself may send the same code a second
 * time (Twilio's Messages API takes no idempotency key): never another code, never none.
 */
export async function deliverCode(ctx: WalletOrdersDeps, payload: Record<string, unknown>): Promise<void> {
  const orderId = String(payload.orderId);
  const kind = payload.kind === 'CARD2FA' ? 'CARD2FA' : 'SMS';
  const channel = ctx.codeSender.channel;
  if (!channel) throw new Error('no SMS channel is configured (RAMPART_TWILIO_*): the code waits for one');
  const start = await startDelivery(ctx.db, orderId, kind, ctx.clock.nowMs());
  if (!start?.due) return;
  if (!start.stepPending) {
    await finishDelivery(ctx.db, orderId, kind, {
      state: 'ABANDONED',
      detail: 'the step was no longer waiting',
    });
    return;
  }
  const sealed = Buffer.from(String(payload.sealedCode), 'base64');
  const code = open(sealingKey(ctx.config.masterKey), sealed, associatedData(orderId, kind)).toString();
  const outcome = await channel.send({ to: start.phone, body: codeMessageBody(code) });
  if (outcome.sent) {
    await finishDelivery(ctx.db, orderId, kind, { state: 'SENT', reference: outcome.reference });
  } else if (!outcome.unconfirmed) {
    await finishDelivery(ctx.db, orderId, kind, { state: 'REFUSED', detail: outcome.detail });
  } else {
    throw new Error(`${channel.name} did not confirm the SMS: ${outcome.detail}`);
  }
}
