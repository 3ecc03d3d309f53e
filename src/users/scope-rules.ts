import type { FieldId, StoredField } from './fields.ts';

/** The scopes of docs/contract.md (Users and KYC) and what each needs before it can be reviewed. */
export const SCOPES = ['TRANSFER', 'ACH', 'DEBIT_CARD_L2'] as const;
export type ScopeName = (typeof SCOPES)[number];
export type ScopeStatus = 'OPEN' | 'PENDING' | 'APPROVED' | 'CLOSED';
export type OnboardingStatus = 'OPEN' | 'SUBMITTED' | 'COMPLETE';

export function isScopeName(value: string): value is ScopeName {
  return (SCOPES as readonly string[]).includes(value);
}

const TRANSFER_FIELDS: FieldId[] = ['firstName', 'lastName', 'dateOfBirth', 'residenceAddress'];

interface Requirements {
  fields: FieldId[];
  onboarding: boolean;
  paymentMethod: boolean;
}

/** ACH and DEBIT_CARD_L2 build on TRANSFER: they carry its fields and need it approved first. */
export const REQUIREMENTS: Record<ScopeName, Requirements> = {
  TRANSFER: { fields: TRANSFER_FIELDS, onboarding: false, paymentMethod: false },
  ACH: { fields: TRANSFER_FIELDS, onboarding: true, paymentMethod: true },
  DEBIT_CARD_L2: { fields: TRANSFER_FIELDS, onboarding: true, paymentMethod: false },
};

/** What the rules look at; assembled by the service from the user row and its payment methods. */
export interface UserFacts {
  fields: Record<string, StoredField>;
  onboarding: OnboardingStatus;
  hasActivePaymentMethod: boolean;
}

export function openFields(scope: ScopeName, facts: UserFacts): FieldId[] {
  return REQUIREMENTS[scope].fields.filter((fieldId) => facts.fields[fieldId]?.status !== 'SUBMITTED');
}

/**
 * Nothing required is OPEN: the scope may leave OPEN for review. In production an onboarding
 * that was submitted counts (the operator reviews it with the scope); sandbox completes it.
 */
export function readyForReview(scope: ScopeName, facts: UserFacts): boolean {
  const needs = REQUIREMENTS[scope];
  if (openFields(scope, facts).length > 0) return false;
  if (needs.onboarding && facts.onboarding === 'OPEN') return false;
  if (needs.paymentMethod && !facts.hasActivePaymentMethod) return false;
  return true;
}

/** The user's status follows its scopes: the least advanced one decides, and CLOSED wins. */
export function userStatus(statuses: ScopeStatus[]): ScopeStatus {
  if (statuses.includes('CLOSED')) return 'CLOSED';
  if (statuses.length === 0 || statuses.includes('OPEN')) return 'OPEN';
  if (statuses.includes('PENDING')) return 'PENDING';
  return 'APPROVED';
}

/** Fields that an active review or an approval depends on may not change underneath it. */
export function lockedFields(scopes: { scope: ScopeName; status: ScopeStatus }[]): Set<FieldId> {
  const locked = new Set<FieldId>();
  for (const { scope, status } of scopes) {
    if (status === 'PENDING' || status === 'APPROVED')
      for (const f of REQUIREMENTS[scope].fields) locked.add(f);
  }
  return locked;
}
