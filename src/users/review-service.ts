import { auditOperatorChange, type OperatorAct } from '../operator/index.ts';
import { withTransaction } from '../platform/db/pool.ts';
import { fieldRequired, invalidValue, notFound } from '../platform/errors.ts';
import type { UsersDeps } from './deps.ts';
import { userErrors } from './errors.ts';
import type { FieldId, StoredField } from './fields.ts';
import { isScopeName, REQUIREMENTS, type ScopeName, type ScopeStatus } from './scope-rules.ts';
import {
  findUserForOperator,
  listScopes,
  listScopesByStatus,
  recordScopeTransition,
  saveUserFields,
  setOnboardingStatus,
} from './users-store.ts';

export interface ReviewItem {
  userId: string;
  scope: ScopeName;
  status: ScopeStatus;
  submittedAt: Date | null;
  fields: Record<string, { value: unknown; status: string; error: string | null }>;
}

const MAX_REVIEWS = 100;

function reviewFields(scope: ScopeName, fields: Record<string, StoredField>): ReviewItem['fields'] {
  const out: ReviewItem['fields'] = {};
  for (const fieldId of REQUIREMENTS[scope].fields) {
    const stored = fields[fieldId];
    out[fieldId] = stored
      ? { value: stored.value, status: stored.status, error: stored.error }
      : { value: null, status: 'OPEN', error: null };
  }
  return out;
}

/** GET /operator/v1/reviews?status=PENDING: oldest submission first (docs/contract.md, decision 12). */
export async function listReviews(ctx: UsersDeps, status: ScopeStatus) {
  const rows = await listScopesByStatus(ctx.db, status, MAX_REVIEWS);
  return {
    data: rows.map((row) => ({
      userId: row.user_id,
      scope: row.scope,
      status: row.status,
      submittedAt: row.submitted_at,
      fields: reviewFields(row.scope, row.fields),
    })),
  };
}

export interface ReviewDecision {
  decision: 'APPROVE' | 'RETURN' | 'CLOSE';
  fieldErrors?: Record<string, string>;
}

/**
 * POST /operator/v1/users/{id}/scopes/{scope}/review. APPROVE: PENDING → APPROVED (ACH and
 * DEBIT_CARD_L2 only on top of an approved TRANSFER; approving a scope that needs onboarding
 * completes the submitted onboarding). RETURN: PENDING → OPEN with per-field errors, those fields
 * OPEN again. CLOSE: every scope of the user CLOSED, for good. Change, history and audit commit together.
 */
export async function reviewScope(
  ctx: UsersDeps,
  act: OperatorAct,
  userId: string,
  scopeName: string,
  input: ReviewDecision,
) {
  if (!isScopeName(scopeName)) throw notFound('Scope');
  return withTransaction(ctx.db, async (tx) => {
    const user = await findUserForOperator(tx, userId);
    if (!user) throw notFound('User');
    const scopes = await listScopes(tx, user.partner_id, user.id);
    const target = scopes.find((row) => row.scope === scopeName);
    if (!target) throw notFound('Scope');
    const nowMs = ctx.clock.nowMs();
    const base = {
      partnerId: user.partner_id,
      userId: user.id,
      nowMs,
      cause: `operator.${input.decision.toLowerCase()}`,
    };
    if (input.decision === 'CLOSE') {
      if (target.status === 'CLOSED') throw userErrors.userClosed();
      for (const row of scopes) {
        if (row.status !== 'CLOSED')
          await recordScopeTransition(tx, { ...base, scope: row.scope, from: row.status, to: 'CLOSED' });
      }
    } else {
      if (target.status !== 'PENDING') throw userErrors.scopeNotPending(scopeName, target.status);
      if (input.decision === 'APPROVE') {
        const transfer = scopes.find((row) => row.scope === 'TRANSFER');
        if (scopeName !== 'TRANSFER' && transfer && transfer.status !== 'APPROVED')
          throw userErrors.transferNotApproved();
        if (REQUIREMENTS[scopeName].onboarding && user.onboarding_status !== 'COMPLETE') {
          await setOnboardingStatus(tx, user.partner_id, user.id, 'COMPLETE', nowMs);
        }
        await recordScopeTransition(tx, { ...base, scope: scopeName, from: 'PENDING', to: 'APPROVED' });
      } else {
        const fields = returnedFields(scopeName, user.fields, input.fieldErrors, nowMs);
        await saveUserFields(tx, user.partner_id, user.id, fields, nowMs);
        await recordScopeTransition(tx, {
          ...base,
          scope: scopeName,
          from: 'PENDING',
          to: 'OPEN',
          detail: { fieldErrors: input.fieldErrors },
        });
      }
    }
    await auditOperatorChange(tx, act, `user:${user.id}`, { scope: scopeName, ...input });
    const after = await listScopes(tx, user.partner_id, user.id);
    return { userId: user.id, scopes: Object.fromEntries(after.map((row) => [row.scope, row.status])) };
  });
}

/** RETURN needs at least one field error, each on a field the scope requires. */
function returnedFields(
  scope: ScopeName,
  current: Record<string, StoredField>,
  fieldErrors: Record<string, string> | undefined,
  nowMs: number,
): Record<string, StoredField> {
  const entries = Object.entries(fieldErrors ?? {});
  if (entries.length === 0) throw fieldRequired('fieldErrors');
  const next = { ...current };
  for (const [fieldId, message] of entries) {
    if (!REQUIREMENTS[scope].fields.includes(fieldId as FieldId)) {
      throw invalidValue(
        `fieldErrors.${fieldId.slice(0, 64)}`,
        `Field ${fieldId.slice(0, 64)} is not required by ${scope}.`,
      );
    }
    const stored = next[fieldId];
    next[fieldId] = stored
      ? { ...stored, status: 'OPEN', error: message }
      : { value: '', status: 'OPEN', error: message, submittedAt: nowMs };
  }
  return next;
}
