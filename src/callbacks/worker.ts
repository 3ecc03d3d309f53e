import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { webhookSecretOf } from '../identity/index.ts';
import { withTransaction } from '../platform/db/pool.ts';
import { claimDueDeliveries, type DeliveryRow, finishAttempt, insertAttempt } from './deliveries-store.ts';
import {
  DELIVERY_CONCURRENCY,
  DELIVERY_LEASE_SECONDS,
  DELIVERY_TIMEOUT_MS,
  deliveryTiming,
  RETRY_BASE_MS,
  RETRY_CAP_MS,
} from './limits.ts';
import { partnerFailure } from './outcome.ts';
import { type SendResult, sendCallback, signatureHeader } from './send.ts';
import { recordSubscriptionOutcome } from './subscriptions-store.ts';
import type { CallbackUrlDeps } from './url-policy.ts';

export interface DeliveryWorkerOptions {
  pollMs: number;
  concurrency?: number;
  timeoutMs?: number;
  leaseSeconds?: number;
  retryBaseMs?: number;
}

/**
 * Sends callbacks. Not the shared JobRunner, which claims the next batch once the last one is
 * through or has only stragglers left: here every delivery runs on its own, up to `concurrency`
 * at once, and a free slot is refilled at once, so a receiver that hangs until the timeout holds
 * one slot and delays nobody else, not even for the JobRunner's second. Deliveries are
 * rows in `callback_deliveries` (written in the transaction that caused them) claimed with
 * SKIP LOCKED and a lease, so any number of processes share the work, and one that dies leaves its
 * deliveries to be claimed again when the lease runs out (at-least-once).
 */
export class DeliveryWorker {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly concurrency: number;
  private readonly timeoutMs: number;
  private readonly leaseSeconds: number;
  private readonly retryBaseMs: number;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly ctx: CallbackUrlDeps,
    private readonly log: FastifyBaseLogger,
    private readonly options: DeliveryWorkerOptions,
  ) {
    this.concurrency = options.concurrency ?? DELIVERY_CONCURRENCY;
    this.timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    this.leaseSeconds = options.leaseSeconds ?? DELIVERY_LEASE_SECONDS;
    this.retryBaseMs = options.retryBaseMs ?? RETRY_BASE_MS;
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** No new claims; waits for the attempts in flight (each bounded by the timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.polling;
    await Promise.all([...this.inFlight]);
  }

  private schedule(delayMs: number): void {
    if (this.stopped || this.polling) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.polling = this.fill()
        .catch((error) => this.log.warn({ err: error }, 'callback poll failed'))
        .finally(() => {
          this.polling = undefined;
          this.schedule(this.options.pollMs);
        });
    }, delayMs);
  }

  /** Claims as many due deliveries as there are free slots and starts each on its own. */
  private async fill(): Promise<void> {
    while (!this.stopped) {
      const free = this.concurrency - this.inFlight.size;
      if (free <= 0) return;
      const token = randomUUID();
      const claimed = await claimDueDeliveries(this.ctx.db, free, this.leaseSeconds, token);
      for (const delivery of claimed) this.launch(delivery, token);
      if (claimed.length < free) return;
    }
  }

  private launch(delivery: DeliveryRow, token: string): void {
    const running: Promise<void> = this.attempt(delivery, token)
      .then(() => undefined)
      .catch((error) => this.log.warn({ err: error, deliveryId: delivery.id }, 'callback attempt failed'))
      .finally(() => {
        this.inFlight.delete(running);
        // A slot came free: look for more work now rather than at the next poll.
        this.schedule(0);
      });
    this.inFlight.add(running);
  }

  /** One attempt of one delivery, then its outcome, attempt row and subscription counters in one transaction. */
  async attempt(delivery: DeliveryRow, token: string): Promise<SendResult> {
    const startedAt = new Date();
    const secret = await webhookSecretOf(this.ctx, this.ctx.db, delivery.partner_id);
    const result = await sendCallback({
      url: delivery.url,
      body: delivery.body,
      signature: signatureHeader(secret, Date.now(), delivery.body),
      timeoutMs: this.timeoutMs,
      rules: this.ctx.callbackUrls,
    });
    const retryInMs =
      !result.accepted && delivery.attempts + 1 < delivery.max_attempts ? this.backoffMs(delivery) : null;
    await withTransaction(this.ctx.db, async (tx) => {
      await insertAttempt(tx, { deliveryId: delivery.id, startedAt, ...result });
      const owned = await finishAttempt(tx, delivery.id, token, {
        delivered: result.accepted,
        statusCode: result.statusCode,
        error: result.error,
        retryInMs,
      });
      if (owned && delivery.subscription_id)
        await recordSubscriptionOutcome(
          tx,
          delivery.subscription_id,
          partnerFailure(result.outcome, result.statusCode),
        );
    });
    return result;
  }

  /** base × 2^(attempts so far), capped: 1 s, 2 s, 4 s … with the default base. */
  private backoffMs(delivery: DeliveryRow): number {
    return Math.min(RETRY_CAP_MS, this.retryBaseMs * 2 ** delivery.attempts);
  }
}

/** The worker `rampart serve` / `rampart worker` run next to the JobRunner. */
export function startCallbackWorker(ctx: CallbackUrlDeps, log: FastifyBaseLogger): DeliveryWorker {
  const worker = new DeliveryWorker(ctx, log, {
    pollMs: ctx.config.workerPollMs,
    ...deliveryTiming(ctx.config.jobLeaseSeconds),
  });
  worker.start();
  return worker;
}
