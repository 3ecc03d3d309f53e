import type { Balances } from '../ledger/index.ts';
import type { Money } from '../platform/money.ts';
import { FIELD_IDS, type FieldId, type FieldValue } from './fields.ts';
import {
  openFields,
  REQUIREMENTS,
  type ScopeName,
  type ScopeStatus,
  type UserFacts,
  userStatus,
} from './scope-rules.ts';
import type { ScopeRow, UserRow } from './users-store.ts';

export interface FieldView {
  value: FieldValue | null;
  status: 'OPEN' | 'SUBMITTED';
  error: string | null;
}

export interface ScopeView {
  status: ScopeStatus;
  openFields: FieldId[];
  onboardingRequired: boolean;
  onboardingStatus: UserFacts['onboarding'];
  paymentMethodRequired: boolean;
}

export interface UserView {
  id: string;
  status: ScopeStatus;
  partnerId: string;
  type: 'INDIVIDUAL';
  createdAt: Date;
  depositAddresses: Record<string, string>;
  totalBalances: Record<string, Money>;
  availableBalances: Record<string, Money>;
  fields: Record<string, FieldView>;
  scopes: Record<string, ScopeView>;
}

/** Wyre showed partners a `PT_` id; ours is the master account's id under that prefix. */
export function partnerRef(partnerId: string): string {
  return `PT_${partnerId.slice(3)}`;
}

function fieldView(facts: UserFacts, fieldId: FieldId): FieldView {
  const stored = facts.fields[fieldId];
  if (!stored) return { value: null, status: 'OPEN', error: null };
  return { value: stored.value, status: stored.status, error: stored.error };
}

function scopeView(scope: ScopeName, status: ScopeStatus, facts: UserFacts): ScopeView {
  const needs = REQUIREMENTS[scope];
  return {
    status,
    openFields: openFields(scope, facts),
    onboardingRequired: needs.onboarding && facts.onboarding !== 'COMPLETE',
    onboardingStatus: facts.onboarding,
    paymentMethodRequired: needs.paymentMethod && !facts.hasActivePaymentMethod,
  };
}

/**
 * The User of docs/contract.md (Users and KYC). Without `onlyScopes` every field and every scope the user holds is shown;
 * with it (GET ?scopes=), the fields those scopes require and those scopes, including ones the
 * user does not hold yet (reported OPEN), so a client can follow the approval procedure of docs/contract.md (Users and KYC).
 */
export function userView(
  user: UserRow,
  scopes: ScopeRow[],
  facts: UserFacts,
  depositAddresses: Record<string, string>,
  balances: Balances,
  onlyScopes?: ScopeName[],
): UserView {
  const held = new Map(scopes.map((row) => [row.scope, row.status]));
  const shownScopes = onlyScopes ?? scopes.map((row) => row.scope);
  const fieldIds = onlyScopes
    ? FIELD_IDS.filter((id) => onlyScopes.some((scope) => REQUIREMENTS[scope].fields.includes(id)))
    : FIELD_IDS;
  const fields: Record<string, FieldView> = {};
  for (const fieldId of fieldIds) fields[fieldId] = fieldView(facts, fieldId);
  const scopeViews: Record<string, ScopeView> = {};
  for (const scope of shownScopes) scopeViews[scope] = scopeView(scope, held.get(scope) ?? 'OPEN', facts);
  return {
    id: user.id,
    status: userStatus(scopes.map((row) => row.status)),
    partnerId: partnerRef(user.partner_id),
    type: user.type,
    createdAt: user.created_at,
    depositAddresses,
    totalBalances: balances.totalBalances,
    availableBalances: balances.availableBalances,
    fields,
    scopes: scopeViews,
  };
}
