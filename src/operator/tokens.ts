/**
 * Personal operator API tokens (docs/contract.md, decision 139): `rop_` and 32 random bytes,
 * shown once, kept as their SHA-256. A call made with one acts as its operator, with that
 * operator's role, and is audited under the operator's name.
 */
import type { AppContext } from '../platform/context.ts';
import { randomToken, sha256Hex } from '../platform/crypto.ts';
import { withTransaction } from '../platform/db/pool.ts';
import { auditOperatorChange, type OperatorAct } from './audit.ts';
import { operatorErrors } from './errors.ts';
import { type ApiTokenRow, insertApiToken, listApiTokens, revokeApiToken } from './operators-store.ts';

export type PersonalToken = ApiTokenRow;

export async function createPersonalToken(ctx: AppContext, act: OperatorAct, label: string) {
  const operatorId = act.operatorId;
  if (!operatorId) throw operatorErrors.unknownOperator();
  const name = label.trim();
  if (name.length < 1 || name.length > 80) throw operatorErrors.invalidTokenLabel();
  const token = `rop_${randomToken(32)}`;
  const id = await withTransaction(ctx.db, async (tx) => {
    const made = await insertApiToken(tx, {
      operatorId,
      tokenHash: sha256Hex(token),
      label: name,
      now: ctx.clock.now(),
    });
    await auditOperatorChange(tx, act, `operator:${operatorId}`, {
      apiToken: made,
      label: name,
      created: true,
    });
    return made;
  });
  return { id, label: name, token };
}

export function personalTokens(ctx: AppContext, operatorId: string): Promise<PersonalToken[]> {
  return listApiTokens(ctx.db, operatorId);
}

/** An operator revokes one of their own tokens; it fails at once. */
export async function revokePersonalToken(ctx: AppContext, act: OperatorAct, tokenId: string) {
  const operatorId = act.operatorId;
  if (!operatorId || !/^\d{1,18}$/.test(tokenId)) throw operatorErrors.unknownToken();
  await withTransaction(ctx.db, async (tx) => {
    if (!(await revokeApiToken(tx, operatorId, tokenId, ctx.clock.now())))
      throw operatorErrors.unknownToken();
    await auditOperatorChange(tx, act, `operator:${operatorId}`, { apiToken: tokenId, revoked: true });
  });
}
