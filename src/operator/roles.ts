import type { OperatorRole } from '../web/sessions/index.ts';

/** Roles are linear: an admin may do what a reviewer may, a reviewer what support may (decision 137). */
const RANK: Record<OperatorRole, number> = { support: 1, reviewer: 2, admin: 3 };

export const OPERATOR_ROLES: readonly OperatorRole[] = ['support', 'reviewer', 'admin'];

export function roleAllows(have: OperatorRole | undefined, need: OperatorRole): boolean {
  return have !== undefined && RANK[have] >= RANK[need];
}

export function isOperatorRole(value: unknown): value is OperatorRole {
  return typeof value === 'string' && Object.hasOwn(RANK, value);
}

/** `rop_` and 43 base64url characters (32 random bytes). */
export const PERSONAL_TOKEN_PATTERN = /^rop_[A-Za-z0-9_-]{43}$/;

/**
 * What a personal token's operator needs per operator API route (decision 139): reads need
 * support, the KYC decisions reviewer, everything else admin. The exceptions are listed by
 * method and route template; a route not listed falls to the rule of its method.
 */
const ROUTE_ROLES: Record<string, OperatorRole> = {
  'POST /operator/v1/users/:userId/scopes/:scope/review': 'reviewer',
  // The card reconciliation read books the processor fees it finds (decision 120): a change.
  'GET /operator/v1/cards/reconciliation': 'admin',
};

export function requiredRole(method: string, routeUrl: string): OperatorRole {
  const listed = ROUTE_ROLES[`${method} ${routeUrl}`];
  if (listed) return listed;
  return method === 'GET' || method === 'HEAD' ? 'support' : 'admin';
}
