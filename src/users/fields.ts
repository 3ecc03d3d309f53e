import { isValidPhoneNumber, parsePhoneNumberWithError } from 'libphonenumber-js/max';
import { isCountryCode } from '../platform/countries.ts';
import { invalidValue } from '../platform/errors.ts';
import { userErrors } from './errors.ts';

/** The fieldIds of docs/contract.md (Users and KYC) and how each is supplied. */
export const FIELD_TYPES = {
  firstName: 'NAME',
  lastName: 'NAME',
  cellphone: 'CELLPHONE',
  email: 'EMAIL',
  residenceAddress: 'ADDRESS',
  dateOfBirth: 'DATE_OF_BIRTH',
  governmentIdFront: 'DOCUMENT',
  governmentIdBack: 'DOCUMENT',
} as const;

export type FieldId = keyof typeof FIELD_TYPES;
export const FIELD_IDS = Object.keys(FIELD_TYPES) as FieldId[];
export const DOCUMENT_FIELDS = new Set<FieldId>(['governmentIdFront', 'governmentIdBack']);

export type AddressValue = Record<string, string>;
/** A document field's value is a reference to the stored file, never its bytes. */
export type DocumentValue = {
  documentId: string;
  docType: string;
  mediaType: string;
  sizeBytes: number;
  sha256: string;
};
export type FieldValue = string | AddressValue | DocumentValue;

export interface StoredField {
  value: FieldValue;
  status: 'OPEN' | 'SUBMITTED';
  /** Set when an operator returned the field with a correctable problem. */
  error: string | null;
  submittedAt: number;
}

/** Field ids Wyre's own samples use for a field Rampart names otherwise (docs/contract.md, decision 62). */
const FIELD_ALIASES: Record<string, FieldId> = { cellphoneNumber: 'cellphone' };

/** The field id a submitted id stands for: itself, or the field its alias names. */
export function canonicalFieldId(fieldId: string): string {
  return Object.hasOwn(FIELD_ALIASES, fieldId) ? (FIELD_ALIASES[fieldId] as FieldId) : fieldId;
}

export function isFieldId(value: string): value is FieldId {
  return Object.hasOwn(FIELD_TYPES, value);
}

const MAX_NAME = 100;
const MAX_ADDRESS_PART = 200;
const MAX_EMAIL = 254;
const MIN_AGE_YEARS = 18;
const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const POSTAL_CODE = /^[A-Za-z0-9][A-Za-z0-9 -]{0,14}$/;
const ADDRESS_MEMBERS = ['street1', 'street2', 'city', 'state', 'postalCode', 'country'] as const;
const OPTIONAL_ADDRESS_MEMBERS = new Set(['street2']);

function text(path: string, value: unknown, max: number): string {
  if (typeof value !== 'string') throw invalidValue(path, `${path} must be a string.`);
  const trimmed = value.trim();
  // Control characters have no place in a name or address and would break printed documents.
  if (trimmed === '' || value.length > max || /\p{Cc}/u.test(value)) {
    throw invalidValue(path, `${path} must be non-empty text of at most ${max} characters.`);
  }
  return trimmed;
}

function cellphone(path: string, value: unknown): string {
  const raw = text(path, value, 32);
  // E.164 as written by clients: a plus, then digits only; the library checks the numbering plan.
  if (!/^\+[1-9]\d{6,14}$/.test(raw) || !isValidPhoneNumber(raw)) {
    throw invalidValue(path, `${path} must be a valid phone number in E.164 form with a leading plus.`);
  }
  return parsePhoneNumberWithError(raw).number;
}

function email(path: string, value: unknown): string {
  const raw = text(path, value, MAX_EMAIL);
  if (!EMAIL.test(raw)) throw invalidValue(path, `${path} must be an e-mail address.`);
  return raw;
}

function dateOfBirth(path: string, value: unknown, nowMs: number): string {
  const iso = text(path, value, 10);
  const parsed = new Date(`${iso}T00:00:00Z`);
  // Date accepts 2023-02-30 and rolls it over; the round trip catches that.
  if (
    !/^\d{4}-\d{2}-\d{2}$/.test(iso) ||
    Number.isNaN(parsed.getTime()) ||
    parsed.toISOString().slice(0, 10) !== iso
  ) {
    throw invalidValue(path, `${path} must be a real date written YYYY-MM-DD.`);
  }
  if (parsed.getUTCFullYear() < 1900) throw invalidValue(path, `${path} must be after 1900.`);
  const now = new Date(nowMs);
  const adulthood = Date.UTC(now.getUTCFullYear() - MIN_AGE_YEARS, now.getUTCMonth(), now.getUTCDate());
  if (parsed.getTime() >= nowMs) throw invalidValue(path, `${path} must be in the past.`);
  if (parsed.getTime() > adulthood)
    throw invalidValue(path, `The user must be at least ${MIN_AGE_YEARS} years old.`);
  return iso;
}

function address(path: string, value: unknown): AddressValue {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidValue(path, `${path} must be an object with street1, city, state, postalCode and country.`);
  }
  const members = value as Record<string, unknown>;
  const unknown = Object.keys(members).find((key) => !(ADDRESS_MEMBERS as readonly string[]).includes(key));
  if (unknown !== undefined)
    throw invalidValue(`${path}.${unknown.slice(0, 64)}`, `Unknown member in ${path}.`);
  const out: AddressValue = {};
  for (const member of ADDRESS_MEMBERS) {
    const memberPath = `${path}.${member}`;
    const empty = members[member] === undefined || members[member] === null || members[member] === '';
    if (empty && OPTIONAL_ADDRESS_MEMBERS.has(member)) continue;
    if (members[member] === undefined) {
      throw invalidValue(memberPath, `${memberPath} is required.`);
    }
    out[member] = text(memberPath, members[member], MAX_ADDRESS_PART);
  }
  if (!isCountryCode(out.country ?? '')) {
    throw invalidValue(`${path}.country`, `${path}.country must be a known ISO 3166-1 alpha-2 code.`);
  }
  if (!POSTAL_CODE.test(out.postalCode ?? '')) {
    throw invalidValue(
      `${path}.postalCode`,
      `${path}.postalCode must be 1 to 15 letters, digits, spaces or dashes.`,
    );
  }
  return out;
}

/**
 * Validates one submitted value by its field's type and returns what to store. `path` names the
 * field in errors (`fields.dateOfBirth`), so the client learns exactly which value was wrong.
 */
export function validateFieldValue(fieldId: string, value: unknown, nowMs: number): FieldValue {
  const path = `fields.${fieldId.slice(0, 64)}`;
  if (!isFieldId(fieldId)) throw userErrors.unknownField(path, fieldId);
  switch (FIELD_TYPES[fieldId]) {
    case 'NAME':
      return text(path, value, MAX_NAME);
    case 'CELLPHONE':
      return cellphone(path, value);
    case 'EMAIL':
      return email(path, value);
    case 'DATE_OF_BIRTH':
      return dateOfBirth(path, value, nowMs);
    case 'ADDRESS':
      return address(path, value);
    case 'DOCUMENT':
      throw userErrors.documentField(path, fieldId);
  }
}
