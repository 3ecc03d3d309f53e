import { invalidValue } from '../platform/errors.ts';

/**
 * Account profile fields as Wyre's v3 accounts carried them. Values are validated by their
 * fieldType; documents and payment methods arrive through their own endpoints, not here.
 */
export type FieldType = 'STRING' | 'EMAIL' | 'CELLPHONE' | 'DATE' | 'ADDRESS' | 'DOCUMENT' | 'PAYMENT_METHOD';

export const PROFILE_FIELDS: Record<string, FieldType> = {
  individualLegalName: 'STRING',
  individualEmail: 'EMAIL',
  individualCellphoneNumber: 'CELLPHONE',
  individualDateOfBirth: 'DATE',
  individualSsn: 'STRING',
  individualResidenceAddress: 'ADDRESS',
  individualGovernmentId: 'DOCUMENT',
  individualProofOfAddress: 'DOCUMENT',
  individualSourceOfFunds: 'PAYMENT_METHOD',
};

/** Shown instead of the stored value: Wyre never echoed an SSN back. */
export const REDACTED_FIELDS = new Set(['individualSsn']);

/** The profile fields filled by uploading a document (POST /v3/accounts/{accountId}/{fieldId}). */
export const DOCUMENT_FIELDS = Object.keys(PROFILE_FIELDS).filter((id) => PROFILE_FIELDS[id] === 'DOCUMENT');

/** Text, an address, or (DOCUMENT fields) the ids of the uploaded documents, oldest first. */
export type ProfileValue = string | Record<string, string> | string[];

export interface StoredField {
  value: ProfileValue;
  status: 'PENDING' | 'APPROVED';
  submittedAt: number;
}

export interface ProfileFieldView {
  fieldId: string;
  fieldType: FieldType;
  value: ProfileValue | null;
  note: string | null;
  status: 'OPEN' | 'PENDING' | 'APPROVED';
}

const MAX_TEXT = 200;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{2,}$/;
const E164 = /^\+[1-9]\d{6,14}$/;
const ADDRESS_MEMBERS = ['street1', 'street2', 'city', 'state', 'postalCode', 'country'] as const;
const REQUIRED_ADDRESS_MEMBERS = ['street1', 'city', 'state', 'postalCode', 'country'];

function text(field: string, value: unknown): string {
  if (
    typeof value !== 'string' ||
    value.trim() === '' ||
    value.length > MAX_TEXT ||
    /[\p{Cc}]/u.test(value)
  ) {
    throw invalidValue(field, `Field ${field} must be non-empty text of at most ${MAX_TEXT} characters.`);
  }
  return value.trim();
}

function date(field: string, value: unknown, nowMs: number): string {
  const iso = text(field, value);
  const parsed = new Date(`${iso}T00:00:00Z`);
  if (
    !/^\d{4}-\d{2}-\d{2}$/.test(iso) ||
    Number.isNaN(parsed.getTime()) ||
    parsed.toISOString().slice(0, 10) !== iso
  ) {
    throw invalidValue(field, `Field ${field} must be a real date written YYYY-MM-DD.`);
  }
  if (parsed.getTime() >= nowMs) throw invalidValue(field, `Field ${field} must be in the past.`);
  return iso;
}

function address(field: string, value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidValue(
      field,
      `Field ${field} must be an object with street1, city, state, postalCode and country.`,
    );
  }
  const members = value as Record<string, unknown>;
  const unknown = Object.keys(members).find((key) => !(ADDRESS_MEMBERS as readonly string[]).includes(key));
  if (unknown) throw invalidValue(`${field}.${unknown}`, `Unknown member ${unknown} in ${field}.`);
  const out: Record<string, string> = {};
  for (const member of ADDRESS_MEMBERS) {
    // Forms send an unused street2 as "" or null: an optional member left empty is left out.
    const empty = members[member] === undefined || members[member] === null || members[member] === '';
    if (empty && !REQUIRED_ADDRESS_MEMBERS.includes(member)) continue;
    out[member] = text(`${field}.${member}`, members[member]);
  }
  if (!/^[A-Z]{2}$/.test(out.country ?? '')) {
    throw invalidValue(`${field}.country`, 'country must be a two-letter ISO 3166-1 code.');
  }
  return out;
}

/** Validates one submitted value by its field's type; returns the value to store. */
export function validateProfileValue(fieldId: string, value: unknown, nowMs: number): ProfileValue {
  const type = PROFILE_FIELDS[fieldId];
  if (!type)
    throw invalidValue('profileFields.fieldId', `Unknown profile field "${String(fieldId).slice(0, 64)}".`);
  switch (type) {
    case 'STRING':
      return text(fieldId, value);
    case 'EMAIL': {
      const email = text(fieldId, value);
      if (!EMAIL.test(email)) throw invalidValue(fieldId, `Field ${fieldId} must be an e-mail address.`);
      return email;
    }
    case 'CELLPHONE': {
      const phone = text(fieldId, value);
      if (!E164.test(phone))
        throw invalidValue(fieldId, `Field ${fieldId} must be E.164 with a leading plus.`);
      return phone;
    }
    case 'DATE':
      return date(fieldId, value, nowMs);
    case 'ADDRESS':
      return address(fieldId, value);
    default:
      throw invalidValue(fieldId, `Field ${fieldId} is set through its own endpoint, not profileFields.`);
  }
}

/** All profile fields in Wyre's order, OPEN where nothing was submitted. */
export function profileView(stored: Record<string, StoredField>): ProfileFieldView[] {
  return Object.entries(PROFILE_FIELDS).map(([fieldId, fieldType]) => {
    const field = stored[fieldId];
    if (!field) return { fieldId, fieldType, value: null, note: null, status: 'OPEN' };
    const value = REDACTED_FIELDS.has(fieldId) ? 'REDACTED' : field.value;
    return { fieldId, fieldType, value, note: null, status: field.status };
  });
}
