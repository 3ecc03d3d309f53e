/**
 * Named operators (docs/contract.md, decisions 137–140): the first admin made with the operator
 * token, then operators made, re-roled and disabled by admins. Every change commits with its
 * audit row; a change that takes rights away ends the operator's console sessions.
 */
import type { AppContext } from '../platform/context.ts';
import { type Queryable, withTransaction } from '../platform/db/pool.ts';
import { newId } from '../platform/ids.ts';
import { endSessionsOf, type OperatorRole } from '../web/sessions/index.ts';
import { auditOperatorChange, type OperatorAct } from './audit.ts';
import { operatorErrors } from './errors.ts';
import {
  checkedPassword,
  checkedRole,
  type NewOperatorInput,
  normalEmail,
  normalName,
} from './operator-input.ts';
import {
  anyOperatorExists,
  findOperator,
  insertOperator,
  listOperators,
  lockOperatorsTable,
  type OperatorRow,
  otherEnabledAdminExists,
  setOperatorDisabled,
  setOperatorRole,
  setPendingTotp,
} from './operators-store.ts';
import { hashPassword } from './password.ts';

export interface OperatorView {
  id: string;
  email: string;
  name: string;
  role: OperatorRole;
  totpEnabled: boolean;
  disabled: boolean;
  mustChangePassword: boolean;
  createdAt: Date;
}

const view = (row: OperatorRow): OperatorView => ({
  id: row.id,
  email: row.email,
  name: row.name,
  role: row.role,
  totpEnabled: row.totpEnabled,
  disabled: row.disabled,
  mustChangePassword: row.mustChangePassword,
  createdAt: row.createdAt,
});

export function operatorsExist(ctx: AppContext): Promise<boolean> {
  return anyOperatorExists(ctx.db);
}

/** The first admin, made with the operator token; 409 once any operator exists (decision 138). */
export async function bootstrapFirstAdmin(ctx: AppContext, act: OperatorAct, input: NewOperatorInput) {
  const email = normalEmail(input.email);
  const name = normalName(input.name);
  const passwordHash = await hashPassword(checkedPassword(input.password));
  const id = newId('OP');
  await withTransaction(ctx.db, async (tx) => {
    await lockOperatorsTable(tx);
    const made = await insertOperator(
      tx,
      { id, email, name, role: 'admin', passwordHash, mustChangePassword: false, now: ctx.clock.now() },
      true,
    );
    if (!made) throw operatorErrors.alreadyBootstrapped();
    await auditOperatorChange(tx, act, `operator:${id}`, {
      created: true,
      email,
      role: 'admin',
      bootstrap: true,
    });
  });
  return { operatorId: id, email, name, role: 'admin' as const };
}

/** An admin makes an operator; the password is for the first sign-in only, then it must change. */
export async function createOperator(
  ctx: AppContext,
  act: OperatorAct,
  input: NewOperatorInput & { role: unknown },
): Promise<OperatorView> {
  const email = normalEmail(input.email);
  const name = normalName(input.name);
  const role = checkedRole(input.role);
  const passwordHash = await hashPassword(checkedPassword(input.password));
  const id = newId('OP');
  await withTransaction(ctx.db, async (tx) => {
    const row = { id, email, name, role, passwordHash, mustChangePassword: true, now: ctx.clock.now() };
    if (!(await insertOperator(tx, row))) throw operatorErrors.emailTaken();
    await auditOperatorChange(tx, act, `operator:${id}`, { created: true, email, role });
  });
  return (await getOperator(ctx, id))!;
}

export async function getOperator(ctx: AppContext, id: string): Promise<OperatorView | undefined> {
  const row = await findOperator(ctx.db, id);
  return row && view(row);
}

export const OPERATORS_PAGE_SIZE = 50;

/** A page of operators after the cursor (an operator id), and the cursor of the next page. */
export async function operatorsPage(ctx: AppContext, after: string | undefined) {
  const rows = await listOperators(ctx.db, after ?? '', OPERATORS_PAGE_SIZE + 1);
  const more = rows.length > OPERATORS_PAGE_SIZE;
  const page = rows.slice(0, OPERATORS_PAGE_SIZE).map(view);
  return { operators: page, nextAfter: more ? page.at(-1)?.id : undefined };
}

/** The changes an admin makes to another operator. */
export type OperatorChange =
  | { kind: 'role'; role: unknown }
  | { kind: 'disable' }
  | { kind: 'enable' }
  | { kind: 'resetTotp' };

export async function changeOperator(ctx: AppContext, act: OperatorAct, id: string, change: OperatorChange) {
  if (act.operatorId === id) throw operatorErrors.notYourself();
  const now = ctx.clock.now();
  await withTransaction(ctx.db, async (tx) => {
    // Serialises changes of roles and flags, so two admins cannot each demote the other last admin.
    await lockOperatorsTable(tx);
    const target = await findOperator(tx, id);
    if (!target) throw operatorErrors.unknownOperator();
    const detail = await applyChange(tx, target, change, now);
    await auditOperatorChange(tx, act, `operator:${id}`, detail);
  });
  // Rights taken away or changed take effect now: the operator signs in again.
  if (change.kind !== 'enable') await endSessionsOf(ctx, 'console', id);
}

async function applyChange(
  tx: Queryable,
  target: OperatorRow,
  change: OperatorChange,
  now: Date,
): Promise<Record<string, unknown>> {
  switch (change.kind) {
    case 'role': {
      const role = checkedRole(change.role);
      if (target.role === 'admin' && role !== 'admin') await refuseLastAdmin(tx, target.id);
      await setOperatorRole(tx, target.id, role, now);
      return { role, previousRole: target.role };
    }
    case 'disable':
      if (target.role === 'admin') await refuseLastAdmin(tx, target.id);
      await setOperatorDisabled(tx, target.id, true, now);
      return { disabled: true };
    case 'enable':
      await setOperatorDisabled(tx, target.id, false, now);
      return { disabled: false };
    case 'resetTotp':
      await setPendingTotp(tx, target.id, null, now);
      return { totpReset: true };
  }
}

async function refuseLastAdmin(tx: Queryable, leaving: string) {
  if (!(await otherEnabledAdminExists(tx, leaving))) throw operatorErrors.lastAdmin();
}
