// An emulator of Stripe's API for tests: not Stripe. Sends events signed as Stripe signs them.
import Stripe from 'stripe';
import { fixture, newId } from './objects.ts';

export interface Delivery {
  eventId: string;
  type: string;
  status: number | 'error';
}

/**
 * Events are queued as state changes and posted one at a time, in order, to the configured URL
 * with a `Stripe-Signature: t=…,v1=…` header made by the SDK's own test helper. Tests can pause
 * delivery, then send the queue in another order, twice, or replay a past event.
 */
export class WebhookSender {
  readonly events: Stripe.Event[] = [];
  readonly deliveries: Delivery[] = [];
  private queue: Stripe.Event[] = [];
  private paused = false;
  private sending: Promise<void> = Promise.resolve();

  constructor(
    private url: string | undefined,
    private readonly secret: string,
    private readonly nowSeconds: () => number,
  ) {}

  setUrl(url: string | undefined): void {
    this.url = url;
    this.kick();
  }

  emit(
    type: Stripe.Event['type'],
    object: unknown,
    request = { id: null as string | null, idempotency_key: null as string | null },
  ): void {
    const base = fixture('event');
    const event = {
      ...base,
      id: newId('evt'),
      api_version: Stripe.API_VERSION,
      created: this.nowSeconds(),
      data: { object: structuredClone(object) },
      livemode: false,
      pending_webhooks: 1,
      request,
      type,
    } as Stripe.Event;
    this.events.push(event);
    this.queue.push(event);
    this.kick();
  }

  pause(): void {
    this.paused = true;
  }

  /** Resumes delivery; `reverse` sends what queued up while paused newest first. */
  resume(options: { reverse?: boolean } = {}): Promise<void> {
    if (options.reverse) this.queue.reverse();
    this.paused = false;
    this.kick();
    return this.idle();
  }

  pending(): Stripe.Event[] {
    return [...this.queue];
  }

  /** Sends a past event again, as Stripe does when it retries or when an operator resends it. */
  redeliver(eventId: string): Promise<void> {
    const event = this.events.find((e) => e.id === eventId);
    if (!event) throw new Error(`emulator: no event ${eventId}`);
    this.sending = this.sending.then(() => this.post(event));
    return this.sending;
  }

  /** Resolves once everything queued (and not paused) has been sent. */
  async idle(): Promise<void> {
    for (;;) {
      const current = this.sending;
      await current;
      if (current === this.sending) return;
    }
  }

  private kick(): void {
    if (this.paused || !this.url) return;
    this.sending = this.sending.then(async () => {
      while (!this.paused && this.url && this.queue.length > 0) {
        const event = this.queue.shift() as Stripe.Event;
        await this.post(event);
      }
    });
  }

  private async post(event: Stripe.Event): Promise<void> {
    if (!this.url) return;
    const payload = JSON.stringify(event, null, 2);
    const header = Stripe.webhooks.generateTestHeaderString({
      payload,
      secret: this.secret,
      timestamp: this.nowSeconds(),
    });
    try {
      const response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': header },
        body: payload,
        signal: AbortSignal.timeout(10_000),
      });
      await response.arrayBuffer();
      this.deliveries.push({ eventId: event.id, type: event.type, status: response.status });
    } catch {
      this.deliveries.push({ eventId: event.id, type: event.type, status: 'error' });
    }
  }
}
