import type { Queryable } from '../platform/db/pool.ts';
import { insertAudit } from './store.ts';

/** Who made an operator call and from where: what every audited operator change records. */
export interface OperatorAct {
  action: string;
  remoteIp: string | undefined;
}

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
    actor: 'operator',
    action: act.action,
    target,
    outcome: 'ok',
    status: 200,
    remoteIp: act.remoteIp,
    detail,
  });
}
