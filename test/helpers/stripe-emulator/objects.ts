// An emulator of Stripe's API for tests: not Stripe. Builds its objects from Stripe's published fixtures.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type Stripe from 'stripe';

/**
 * Stripe's own example objects (stripe/openapi `fixtures3.json`), read where they are at test
 * time and never copied into the repository. Every object the emulator answers starts as the
 * fixture of its type with the request's values overlaid, so its shape is Stripe's.
 */
interface Fixtures {
  payment_intent: Stripe.PaymentIntent;
  payment_method: Stripe.PaymentMethod;
  charge: Stripe.Charge;
  refund: Stripe.Refund;
  dispute: Stripe.Dispute;
  balance_transaction: Stripe.BalanceTransaction;
  payout: Stripe.Payout;
  event: Stripe.Event;
}

function fixturesPath(): string {
  const explicit = process.env.STRIPE_FIXTURES_PATH;
  if (explicit) return explicit;
  // `../shared/reference/…` from the main checkout; a worktree sits one level deeper.
  let dir = process.cwd();
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'shared', 'reference', 'stripe', 'fixtures3.json');
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  return resolve('/work/shared/reference/stripe/fixtures3.json');
}

let cached: Fixtures | undefined;

export function fixtures(): Fixtures {
  if (!cached) {
    const parsed = JSON.parse(readFileSync(fixturesPath(), 'utf8')) as { resources: Fixtures };
    cached = parsed.resources;
  }
  return cached;
}

/** A fresh deep copy, so overlaying one object never changes the fixture or another object. */
export function fixture<K extends keyof Fixtures>(kind: K): Fixtures[K] {
  return structuredClone(fixtures()[kind]);
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function newId(prefix: string): string {
  const bytes = randomBytes(24);
  let id = '';
  for (const byte of bytes) id += ID_ALPHABET[byte % ID_ALPHABET.length];
  return `${prefix}_${id}`;
}

/** Stripe's processing fee on a card charge, 2.9% + 30 in minor units, rounded half up to a whole unit. */
export function processingFee(amount: number): number {
  return Math.floor((amount * 29 + 500) / 1000) + 30;
}

/** What Stripe charges for a dispute: 15.00 in the charge's currency. */
export const DISPUTE_FEE = 1500;
