import { invalidValue } from '../platform/errors.ts';
import { currencyScale, isKnownCurrency, type Money, parseAmount } from '../platform/money.ts';

/**
 * The fee schedule: per payment method and source currency a percentage of the purchase plus a
 * flat fee (both in the source currency) and the order bounds; per destination currency a network
 * fee in that currency. The default below ships in code; PUT /operator/v1/fees replaces it as a
 * whole (stored in `fee_schedule`, read by every process within a second).
 */
export interface FeeRule {
  /** Percent of sourceAmountWithoutFees: 2.9 means 2.9 %. */
  percent: Money;
  flat: Money;
  /** Bounds on the charged amount (sourceAmount, fees included), in the source currency. */
  minOrder: Money;
  maxOrder: Money;
}

export interface FeeSchedule {
  methods: ReadonlyMap<string, ReadonlyMap<string, FeeRule>>;
  networkFees: ReadonlyMap<string, Money>;
}

export type FeeScheduleJson = {
  methods: Record<
    string,
    Record<string, { percent: string; flat: string; minOrder: string; maxOrder: string }>
  >;
  networkFees: Record<string, string>;
};

// Flat fee, minimum and maximum per source currency, each about USD 0.30 / 5 / 5,000.
const CARD_CURRENCIES: Record<string, [flat: string, min: string, max: string]> = {
  USD: ['0.30', '5', '5000'],
  EUR: ['0.30', '5', '4500'],
  GBP: ['0.25', '5', '4000'],
  CAD: ['0.40', '7', '6800'],
  AUD: ['0.45', '8', '7500'],
  NOK: ['3.50', '55', '54000'],
  SEK: ['3.50', '55', '52000'],
  DKK: ['2.20', '35', '34000'],
  CHF: ['0.30', '5', '4400'],
  PLN: ['1.30', '20', '20000'],
  CZK: ['7.50', '120', '115000'],
  MXN: ['6.00', '100', '100000'],
  NZD: ['0.50', '8', '8300'],
  HKD: ['2.50', '40', '39000'],
};

function cardTable(percent: string) {
  return Object.fromEntries(
    Object.entries(CARD_CURRENCIES).map(([code, [flat, minOrder, maxOrder]]) => [
      code,
      { percent, flat, minOrder, maxOrder },
    ]),
  );
}

export const DEFAULT_FEE_SCHEDULE: FeeScheduleJson = {
  methods: { 'debit-card': cardTable('2.9'), 'apple-pay': cardTable('2.9') },
  networkFees: { BTC: '0.00002', ETH: '0.0004', USDC: '1', DAI: '1', MATIC: '0.01', AVAX: '0.002' },
};

const METHOD_NAME = /^[a-z][a-z-]{0,31}$/;

function amountAt(value: unknown, field: string, currency: string, allowZero: boolean): Money {
  const amount = parseAmount(value, field);
  if (amount.lt(0) || (!allowZero && amount.eq(0)))
    throw invalidValue(field, `Field ${field} must be positive.`);
  if (amount.decimalPlaces() > currencyScale(currency)) {
    throw invalidValue(field, `Field ${field} has more decimals than ${currency} allows.`);
  }
  return amount;
}

function currencyKey(code: string, field: string): string {
  if (!isKnownCurrency(code)) throw invalidValue(field, `Unknown currency "${code}".`);
  return code;
}

function parseRule(raw: unknown, field: string, currency: string): FeeRule {
  const rule = (raw ?? {}) as Record<string, unknown>;
  const percent = parseAmount(rule.percent, `${field}.percent`);
  if (percent.lt(0) || percent.gte(50)) throw invalidValue(`${field}.percent`, 'percent must be in [0, 50).');
  const minOrder = amountAt(rule.minOrder, `${field}.minOrder`, currency, false);
  const maxOrder = amountAt(rule.maxOrder, `${field}.maxOrder`, currency, false);
  if (maxOrder.lt(minOrder)) throw invalidValue(`${field}.maxOrder`, 'maxOrder must not be below minOrder.');
  return { percent, flat: amountAt(rule.flat, `${field}.flat`, currency, true), minOrder, maxOrder };
}

/** Validates a whole schedule (the operator's body, or the stored row); nothing partial is accepted. */
export function parseFeeSchedule(json: FeeScheduleJson): FeeSchedule {
  const methods = new Map<string, Map<string, FeeRule>>();
  for (const [method, table] of Object.entries(json.methods)) {
    if (!METHOD_NAME.test(method))
      throw invalidValue(`methods.${method}`, 'Payment method names are lower-case words.');
    const rules = new Map<string, FeeRule>();
    for (const [code, rule] of Object.entries(table)) {
      const field = `methods.${method}.${code}`;
      rules.set(currencyKey(code, field), parseRule(rule, field, code));
    }
    methods.set(method, rules);
  }
  const networkFees = new Map<string, Money>();
  for (const [code, fee] of Object.entries(json.networkFees)) {
    const field = `networkFees.${code}`;
    networkFees.set(currencyKey(code, field), amountAt(fee, field, code, true));
  }
  return { methods, networkFees };
}

export function feeScheduleJson(schedule: FeeSchedule): FeeScheduleJson {
  const methods: FeeScheduleJson['methods'] = {};
  for (const [method, rules] of schedule.methods) {
    methods[method] = {};
    for (const [code, rule] of rules) {
      methods[method][code] = {
        percent: rule.percent.toFixed(),
        flat: rule.flat.toFixed(),
        minOrder: rule.minOrder.toFixed(),
        maxOrder: rule.maxOrder.toFixed(),
      };
    }
  }
  const networkFees = Object.fromEntries(
    [...schedule.networkFees].map(([code, fee]) => [code, fee.toFixed()]),
  );
  return { methods, networkFees };
}
