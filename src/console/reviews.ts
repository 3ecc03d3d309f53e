import { documentsOfUser } from '../documents/index.ts';
import type { OperatorAct } from '../operator/index.ts';
import type { Queryable } from '../platform/db/pool.ts';
import { invalidValue } from '../platform/errors.ts';
import { isId } from '../platform/ids.ts';
import {
  consolePendingScopes,
  consoleScopes,
  consoleUser,
  isScopeName,
  REQUIREMENTS,
  type ReviewDecision,
  reviewScope,
  type UsersDeps,
} from '../users/index.ts';
import { PAGE_SIZE } from './paging.ts';

/**
 * The KYC review queue and its decisions (docs/contract.md, decision 148): the queue is the
 * operator API's (oldest submission first), paged; a decision goes through reviewScope, the same
 * service `POST /operator/v1/users/:userId/scopes/:scope/review` calls, audited with the operator.
 */

export async function reviewQueue(q: Queryable, cursor: string | undefined) {
  const after = parseQueueCursor(cursor);
  const rows = await consolePendingScopes(q, after, PAGE_SIZE + 1);
  const shown = rows.slice(0, PAGE_SIZE);
  const last = shown.at(-1);
  return { rows: shown, next: rows.length > PAGE_SIZE && last ? `${last.user_id}.${last.scope}` : undefined };
}

function parseQueueCursor(cursor: string | undefined) {
  const [userId, scope] = (cursor ?? '').split('.');
  return userId && scope && isId(userId, 'US') && isScopeName(scope) ? { userId, scope } : undefined;
}

export async function reviewModel(q: Queryable, userId: string) {
  const user = isId(userId, 'US') ? await consoleUser(q, userId) : undefined;
  if (!user) return undefined;
  const [scopes, documents] = await Promise.all([consoleScopes(q, userId), documentsOfUser(q, userId, 50)]);
  return { user, scopes, documents };
}

/** The fields a scope's RETURN may name: those the scope requires. */
export function returnableFields(scope: string): readonly string[] {
  return isScopeName(scope) ? REQUIREMENTS[scope].fields : [];
}

export type ConsoleDecision = 'approve' | 'return' | 'close';

const MAX_REASON_LENGTH = 500;

/** A console form's decision as the review service takes it: RETURN names one field and why. */
export function decisionOf(
  kind: ConsoleDecision,
  scope: string,
  field: string,
  reason: string,
): ReviewDecision {
  if (kind === 'approve') return { decision: 'APPROVE' };
  if (kind === 'close') return { decision: 'CLOSE' };
  if (!returnableFields(scope).includes(field)) throw invalidValue('field', 'Choose the field to return.');
  if (reason.length === 0) throw invalidValue('reason', 'Say what the user must correct.');
  if (reason.length > MAX_REASON_LENGTH)
    throw invalidValue('reason', `Keep the reason under ${MAX_REASON_LENGTH} characters.`);
  return { decision: 'RETURN', fieldErrors: { [field]: reason } };
}

export function decide(
  deps: UsersDeps,
  act: OperatorAct,
  userId: string,
  scope: string,
  decision: ReviewDecision,
) {
  return reviewScope(deps, act, userId, scope, decision);
}
