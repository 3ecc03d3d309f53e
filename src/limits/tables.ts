import { BILLING_COUNTRIES } from '../orders/index.ts';
import { Money } from '../platform/money.ts';

/** Card purchase limits in USD over rolling windows (docs/contract.md, Card limits). */
export interface LimitTable {
  daily: Money;
  weekly: Money;
  yearly: Money;
}

export type LimitTier = 'STANDARD' | 'DEBIT_CARD_L2';

export const WINDOWS = [
  { name: 'daily', ms: 24 * 3600 * 1000 },
  { name: 'weekly', ms: 7 * 24 * 3600 * 1000 },
  { name: 'yearly', ms: 365 * 24 * 3600 * 1000 },
] as const;
export type WindowName = (typeof WINDOWS)[number]['name'];

const table = (daily: number, weekly: number, yearly: number): LimitTable => ({
  daily: new Money(daily),
  weekly: new Money(weekly),
  yearly: new Money(yearly),
});

/**
 * Defaults from Wyre's published figures (docs/contract.md, Card limits): standard US 500 / 500 / 2,500 and
 * international 500 / 2,000 / 3,000 (gitbook "checking limits"); DEBIT_CARD_L2 from "access
 * higher limits": US weekly 7,500, yearly 100,000; international weekly 10,000, yearly 250,000.
 * Wyre gives no L2 daily figure; we use a third of the weekly one.
 */
const US = { STANDARD: table(500, 500, 2500), DEBIT_CARD_L2: table(2500, 7500, 100_000) };
const INTERNATIONAL = { STANDARD: table(500, 2000, 3000), DEBIT_CARD_L2: table(3333.33, 10_000, 250_000) };

/**
 * One row per supported billing country, so a country's own figures are a one-line change.
 * Today the US has its own table and the other 28 share the international one.
 */
export const DEFAULT_LIMITS: ReadonlyMap<string, Record<LimitTier, LimitTable>> = new Map(
  [...BILLING_COUNTRIES].map((country) => [country, country === 'US' ? US : INTERNATIONAL]),
);

export function defaultLimits(country: string, tier: LimitTier): LimitTable {
  const row = DEFAULT_LIMITS.get(country);
  if (!row) throw new Error(`no limit table for ${country}`);
  return row[tier];
}

/**
 * The country whose default tables apply to `country`: itself where cards are sold, else any
 * international one (an account's own country need not be a billing country; every country but
 * the US shares the international tables).
 */
export function tableCountry(country: string): string {
  if (DEFAULT_LIMITS.has(country)) return country;
  return [...DEFAULT_LIMITS.keys()].find((code) => code !== 'US')!;
}
