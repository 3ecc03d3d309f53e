import { createHash } from 'node:crypto';
import { BILLING_COUNTRIES } from '../orders/supported.ts';
import { fieldRequired, invalidValue } from '../platform/errors.ts';

/** A billing address as card orders and the limits calculation take it (spec §4.5). */
export interface BillingAddress {
  street1: string;
  street2?: string;
  city: string;
  state: string;
  postalCode: string;
  country: string;
}

const US_STATES = new Set(
  (
    'AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY ' +
    'NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY PR GU VI AS MP'
  ).split(' '),
);

/**
 * Postal codes per supported country (API.md decision 5): the US digits only (5, or ZIP+4);
 * elsewhere the country's own format, letters included where the country uses them. Matched
 * after upper-casing.
 */
const POSTAL_CODES: Record<string, RegExp> = {
  US: /^\d{5}(-?\d{4})?$/,
  AU: /^\d{4}$/,
  AT: /^\d{4}$/,
  BE: /^\d{4}$/,
  CA: /^[A-Z]\d[A-Z] ?\d[A-Z]\d$/,
  CZ: /^\d{3} ?\d{2}$/,
  DK: /^\d{4}$/,
  EE: /^\d{5}$/,
  FI: /^\d{5}$/,
  FR: /^\d{5}$/,
  DE: /^\d{5}$/,
  GR: /^\d{3} ?\d{2}$/,
  // Hong Kong has no postal codes; forms commonly carry a placeholder such as 999077.
  HK: /^[0-9A-Z -]{1,10}$/,
  IE: /^[A-Z]\d[\dW] ?[0-9A-Z]{4}$/,
  IT: /^\d{5}$/,
  LV: /^(LV-)?\d{4}$/,
  LT: /^(LT-)?\d{5}$/,
  LU: /^(L-)?\d{4}$/,
  MX: /^\d{5}$/,
  NL: /^\d{4} ?[A-Z]{2}$/,
  NZ: /^\d{4}$/,
  NO: /^\d{4}$/,
  PL: /^\d{2}-?\d{3}$/,
  PT: /^\d{4}-?\d{3}$/,
  SK: /^\d{3} ?\d{2}$/,
  SI: /^(SI-)?\d{4}$/,
  ES: /^\d{5}$/,
  SE: /^\d{3} ?\d{2}$/,
  CH: /^\d{4}$/,
};

const CONTROL = /\p{Cc}/u;

function text(value: string | undefined, field: string, max: number): string {
  if (value === undefined) throw fieldRequired(field);
  const trimmed = value.trim();
  if (trimmed === '') throw fieldRequired(field);
  if (trimmed.length > max || CONTROL.test(trimmed)) {
    throw invalidValue(field, `Field ${field} must be at most ${max} characters of text.`);
  }
  return trimmed;
}

/**
 * Every member required (spec §4.5); country a supported billing country (Wyre's
 * `Country not supported: "XX"`); a US state must be a state code; the postal code in the
 * country's format. `prefix` names the object in errors (`address.postalCode`).
 */
export function checkBillingAddress(
  raw: Partial<Record<keyof BillingAddress, string>>,
  prefix = 'address',
): BillingAddress {
  const country = text(raw.country, `${prefix}.country`, 2).toUpperCase();
  // Every billing country is an ISO 3166-1 code, so the set alone decides (no ICU lookup per call).
  if (!BILLING_COUNTRIES.has(country)) {
    throw invalidValue(
      `${prefix}.country`,
      `Country not supported: "${country}"`,
      'validation.unsupportedCountry',
    );
  }
  const street1 = text(raw.street1, `${prefix}.street1`, 200);
  const street2 =
    raw.street2 === undefined || raw.street2.trim() === ''
      ? undefined
      : text(raw.street2, `${prefix}.street2`, 200);
  const city = text(raw.city, `${prefix}.city`, 100);
  const state = text(raw.state, `${prefix}.state`, 64);
  if (country === 'US' && !US_STATES.has(state.toUpperCase())) {
    throw invalidValue(
      `${prefix}.state`,
      'state must be a US state code, such as CA.',
      'validation.invalidUsState',
    );
  }
  const postalCode = text(raw.postalCode, `${prefix}.postalCode`, 10).toUpperCase();
  if (!POSTAL_CODES[country]!.test(postalCode)) {
    throw invalidValue(
      `${prefix}.postalCode`,
      country === 'US'
        ? 'postalCode must be a US ZIP code: 5 digits, or ZIP+4.'
        : `postalCode is not a valid postal code for ${country}.`,
      'validation.invalidPostalCode',
    );
  }
  return {
    street1,
    ...(street2 ? { street2 } : {}),
    city,
    state: country === 'US' ? state.toUpperCase() : state,
    postalCode,
    country,
  };
}

const STREET_WORDS: Record<string, string> = {
  STREET: 'ST',
  AVENUE: 'AVE',
  ROAD: 'RD',
  BOULEVARD: 'BLVD',
  DRIVE: 'DR',
  LANE: 'LN',
  COURT: 'CT',
  PLACE: 'PL',
  SUITE: 'STE',
  APARTMENT: 'APT',
  NORTH: 'N',
  SOUTH: 'S',
  EAST: 'E',
  WEST: 'W',
};

function normalisedWords(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .map((word) => STREET_WORDS[word] ?? word)
    .join(' ');
}

/**
 * The limit key of a billing address: country, postal code (no spaces or dashes) and street,
 * case, accents, punctuation and common street words normalised, so "12 Main Street." and
 * "12 main st" count as one address. Apartment lines and city are left out on purpose: they are
 * the easiest parts to vary. Hashed, since the key is stored with spend and needs no address.
 */
export function addressSpendKey(address: BillingAddress): string {
  const postal = address.postalCode.replace(/[^0-9A-Z]/g, '');
  const canonical = `${address.country}|${postal}|${normalisedWords(address.street1)}`;
  return `address:${createHash('sha256').update(canonical).digest('hex')}`;
}
