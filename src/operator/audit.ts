import type { Queryable } from '../platform/db/pool.ts';
import { insertAudit } from './store.ts';

/**
 * Who made an operator change and from where: what every audited operator change records.
 * `actor` is readable (`operator-token`, or a named operator's `OP_… e-mail`); `operatorId`
 * is the named operator's id, for filtering the audit log by person.
 */
export interface OperatorAct {
  action: string;
  remoteIp: string | undefined;
  actor: string;
  operatorId?: string | undefined;
}

/** The actor of calls made with the shared RAMPART_OPERATOR_TOKEN. */
export const OPERATOR_TOKEN_ACTOR = 'operator-token';

/** How a named operator appears in the audit log's `actor`. */
export const operatorActorName = (operatorId: string, email: string) => `${operatorId} ${email}`;

/**
 * The audit row of a successful operator change, written with the change's own transaction
 * handle so both commit together (refusals are audited by the operator auth hook instead).
 */
export function auditOperatorChange(
  q: Queryable,
  act: OperatorAct,
  target: string,
  detail: Record<string, unknown>,
) {
  return insertAudit(q, {
    actor: act.actor,
    operatorId: act.operatorId,
    action: act.action,
    target,
    outcome: 'ok',
    status: 200,
    remoteIp: act.remoteIp,
    detail,
  });
}
