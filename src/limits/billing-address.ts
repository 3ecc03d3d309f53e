import { createHash } from 'node:crypto';
import { BILLING_COUNTRIES } from '../orders/index.ts';
import { fieldRequired, invalidValue } from '../platform/errors.ts';

/** A billing address as card orders and the limits calculation take it (docs/contract.md, Card limits). */
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
 * Postal codes per supported country (docs/contract.md, decision 5): the US digits only (5, or ZIP+4);
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
 * Every member required (docs/contract.md, Card limits); country a supported billing country (Wyre's
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

/**
 * USPS standard abbreviations (Publication 28: street suffixes, C1, and directionals) of the
 * words people spell either way. Both spellings map to one, so "77 Limit Road" and "77 Limit Rd"
 * are one street; a word already abbreviated maps to itself by absence.
 */
const STREET_ABBREVIATIONS: Record<string, string> = {
  STREET: 'ST',
  ROAD: 'RD',
  AVENUE: 'AVE',
  AV: 'AVE',
  BOULEVARD: 'BLVD',
  DRIVE: 'DR',
  LANE: 'LN',
  COURT: 'CT',
  PLACE: 'PL',
  TERRACE: 'TER',
  HIGHWAY: 'HWY',
  PARKWAY: 'PKWY',
  CIRCLE: 'CIR',
  SQUARE: 'SQ',
  ALLEY: 'ALY',
  TRAIL: 'TRL',
  EXPRESSWAY: 'EXPY',
  FREEWAY: 'FWY',
  NORTH: 'N',
  SOUTH: 'S',
  EAST: 'E',
  WEST: 'W',
  NORTHEAST: 'NE',
  NORTHWEST: 'NW',
  SOUTHEAST: 'SE',
  SOUTHWEST: 'SW',
};

/**
 * Secondary unit designators (USPS Publication 28, C2, those followed by a unit number) and `#`.
 * A designator with its unit number is not part of the limit key: the units of one building
 * share their street address's limits.
 */
const UNIT_DESIGNATORS = new Set([
  '#',
  'APT',
  'APARTMENT',
  'UNIT',
  'STE',
  'SUITE',
  'FL',
  'FLOOR',
  'RM',
  'ROOM',
  'BLDG',
  'BUILDING',
  'DEPT',
  'DEPARTMENT',
  'LOT',
  'SPC',
  'SPACE',
  'TRLR',
  'TRAILER',
  'OFC',
  'OFFICE',
  'HNGR',
  'HANGAR',
  'PH',
  'PENTHOUSE',
]);

/** A designator written together with its number: APT5, UNIT2B, STE100. */
const GLUED_UNIT = new RegExp(
  `^(${[...UNIT_DESIGNATORS].filter((word) => word !== '#').join('|')})\\d[A-Z0-9]*$`,
);

/** A unit number: digits, or digits and letters ("2B", "B2"), or a single letter ("B"). */
const isUnitNumber = (token: string | undefined) =>
  token !== undefined && (/\d/.test(token) || /^[A-Z]$/.test(token));

const ORDINAL = /^\d+(ST|ND|RD|TH)$/;

/**
 * Where the unit part starting at `tokens[at]` ends (the index after it), or `at` when none
 * starts there: a designator (several in a row, as "APT #") followed by its unit number, a glued
 * one (APT5) or an ordinal floor ("2ND FL"). Past the first word a unit runs to the end of the
 * street line, as US addresses write it last ("Unit 2-B", "Suite 100, Floor 3"); as the first
 * word only the designator and its number are dropped ("Apt 5, 77 Limit Road").
 */
function unitEnd(tokens: readonly string[], at: number): number {
  let next = at;
  if (GLUED_UNIT.test(tokens[at]!)) next = at + 1;
  else if (ORDINAL.test(tokens[at]!) && (tokens[at + 1] === 'FL' || tokens[at + 1] === 'FLOOR'))
    next = at + 2;
  else if (UNIT_DESIGNATORS.has(tokens[at]!)) {
    let number = at + 1;
    while (UNIT_DESIGNATORS.has(tokens[number] ?? '')) number += 1;
    if (isUnitNumber(tokens[number])) next = number + 1;
  }
  if (next === at) return at;
  return at === 0 ? next : tokens.length;
}

/**
 * The street line as a limit key: accents dropped, upper case, every run of punctuation or space
 * a separator (`#` kept as a word), leading zeros of numbers dropped, abbreviations folded, the
 * unit part dropped, and the words joined without separators, so "N.E. 5th" and "NE 5th",
 * "O'Neil" and "O Neil" agree. Letters of every script are kept: a Greek street name is as
 * much of the key as a Latin one.
 */
export function streetKey(street: string): string {
  const tokens = street
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .replace(/#/g, ' # ')
    .split(/[^\p{L}\p{N}#]+/u)
    .filter((token) => token !== '')
    .map((token) => (/^\d+$/.test(token) ? token.replace(/^0+(?=\d)/, '') : token));
  const kept: string[] = [];
  for (let at = 0; at < tokens.length; at++) {
    const end = unitEnd(tokens, at);
    if (end > at) {
      at = end - 1;
      continue;
    }
    kept.push(STREET_ABBREVIATIONS[tokens[at]!] ?? tokens[at]!);
  }
  return kept.join('');
}

/** The postal code as a limit key: a US ZIP+4 is its ZIP (the +4 only narrows the delivery route). */
function postalKey(address: BillingAddress): string {
  const code = address.postalCode.toUpperCase().replace(/[^0-9A-Z]/g, '');
  return address.country === 'US' ? code.slice(0, 5) : code;
}

/**
 * The limit key of a billing address: country, postal code and street line (streetKey), so
 * every way of writing one address counts against one limit. The unit (apartment, suite) and
 * the second street line and city are left out on purpose: they are the easiest parts to vary,
 * and a limit shared by the units of one building is the price of not being bypassed by them.
 * Hashed, since the key is stored with spend and needs no address.
 */
export function addressSpendKey(address: BillingAddress): string {
  const canonical = `${address.country}|${postalKey(address)}|${streetKey(address.street1)}`;
  return `address:${createHash('sha256').update(canonical).digest('hex')}`;
}
