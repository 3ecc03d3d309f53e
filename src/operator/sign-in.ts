/**
 * Console sign-in (docs/contract.md, decision 142): e-mail and password, then a TOTP code (or,
 * the first time, enrolment of a seed proven by one code). The password step answers the same
 * whether or not the e-mail belongs to an operator. Failures are counted per e-mail and per
 * client address; past a threshold the key is locked for a minute, doubling with each further
 * failure, up to an hour. Every attempt is audited.
 */
import type { AppContext } from '../platform/context.ts';
import { open, seal } from '../platform/crypto.ts';
import type { OperatorRole } from '../web/sessions/index.ts';
import { operatorActorName } from './audit.ts';
import { operatorErrors } from './errors.ts';
import { checkedPassword } from './operator-input.ts';
import {
  clearSignInFailures,
  findOperator,
  findOperatorByEmail,
  type OperatorRow,
  readSignInFailures,
  recordSignInFailure,
  setOperatorPassword,
  setPendingTotp,
  useTotpStep,
} from './operators-store.ts';
import { hashPassword, spendVerifyTime, verifyPassword } from './password.ts';
import { insertAudit } from './store.ts';
import { matchTotp, newTotpSeed, otpauthUri, seedToBase32 } from './totp.ts';

const WINDOW_MS = 15 * 60_000;
const MAX_LOCK_MS = 60 * 60_000;
const PER_EMAIL = { threshold: 5, windowMs: WINDOW_MS, maxLockMs: MAX_LOCK_MS };
/** Higher: several operators may share one office address. */
const PER_IP = { threshold: 20, windowMs: WINDOW_MS, maxLockMs: MAX_LOCK_MS };

export interface SignedInOperator {
  id: string;
  email: string;
  role: OperatorRole;
}

export type PasswordOutcome =
  | { kind: 'ok'; operator: SignedInOperator; next: 'password' | 'second-factor' | 'enrol' }
  | { kind: 'refused' }
  | { kind: 'locked' };

const emailKey = (email: string) => `email:${email.trim().toLowerCase().slice(0, 254)}`;
const ipKey = (ip: string) => `ip:${ip}`;
const who = (row: OperatorRow): SignedInOperator => ({ id: row.id, email: row.email, role: row.role });

async function locked(ctx: AppContext, keys: string[]): Promise<boolean> {
  const now = ctx.clock.nowMs();
  const states = await readSignInFailures(ctx.db, keys);
  return states.some((state) => state.lockedUntil !== null && state.lockedUntil.getTime() > now);
}

async function countFailure(ctx: AppContext, email: string, ip: string) {
  const now = ctx.clock.now();
  await recordSignInFailure(ctx.db, emailKey(email), now, PER_EMAIL);
  await recordSignInFailure(ctx.db, ipKey(ip), now, PER_IP);
}

function auditSignIn(
  ctx: AppContext,
  ip: string,
  step: string,
  operator: OperatorRow | undefined,
  outcome: 'ok' | 'denied',
  reason?: string,
) {
  return insertAudit(ctx.db, {
    actor: operator ? operatorActorName(operator.id, operator.email) : 'anonymous',
    operatorId: operator?.id,
    action: `POST /console/sign-in${step === 'password' ? '' : `/${step}`}`,
    target: operator ? `operator:${operator.id}` : undefined,
    outcome,
    status: outcome === 'ok' ? 200 : 403,
    remoteIp: ip,
    detail: reason ? { reason } : {},
  });
}

/** The first step. `next` says which step follows: a new password, the code, or TOTP enrolment. */
export async function checkPassword(
  ctx: AppContext,
  input: { email: string; password: string; ip: string },
): Promise<PasswordOutcome> {
  const email = input.email.trim().toLowerCase();
  if (await locked(ctx, [emailKey(email), ipKey(input.ip)])) {
    await auditSignIn(ctx, input.ip, 'password', undefined, 'denied', 'locked');
    return { kind: 'locked' };
  }
  const row = email.length <= 254 ? await findOperatorByEmail(ctx.db, email) : undefined;
  const passwordRight = row
    ? await verifyPassword(input.password, row.passwordHash)
    : await spendVerifyTime(input.password).then(() => false);
  if (!row || !passwordRight || row.disabled) {
    await countFailure(ctx, email, input.ip);
    await auditSignIn(ctx, input.ip, 'password', row, 'denied', row?.disabled ? 'disabled' : 'password');
    return { kind: 'refused' };
  }
  const next = row.mustChangePassword ? 'password' : row.totpEnabled ? 'second-factor' : 'enrol';
  return { kind: 'ok', operator: who(row), next };
}

/** The second step: a code of the operator's seed, never one of a step used before. */
export async function checkSecondFactor(
  ctx: AppContext,
  operatorId: string,
  code: string,
  ip: string,
): Promise<SignedInOperator | undefined> {
  const row = await findOperator(ctx.db, operatorId);
  if (!row || row.disabled || !row.totpEnabled || !row.totpSealed) return undefined;
  if (await locked(ctx, [emailKey(row.email), ipKey(ip)])) {
    await auditSignIn(ctx, ip, 'code', row, 'denied', 'locked');
    return undefined;
  }
  return acceptCode(ctx, row, code, ip, 'code');
}

/**
 * A code signs in once: its step is used (enrolling turns the seed on with it), a wrong or reused
 * code counts as a failure. Both are audited under the step that asked.
 */
async function acceptCode(
  ctx: AppContext,
  row: OperatorRow,
  code: string,
  ip: string,
  stage: 'code' | 'enrol',
): Promise<SignedInOperator | undefined> {
  const step = matchTotp(
    openSeed(ctx, row),
    code.replace(/\s/g, ''),
    ctx.clock.nowMs(),
    Number(row.totpLastStep),
  );
  if (step === undefined || !(await useTotpStep(ctx.db, row.id, step, stage === 'enrol'))) {
    await countFailure(ctx, row.email, ip);
    await auditSignIn(ctx, ip, stage, row, 'denied', 'code');
    return undefined;
  }
  await clearSignInFailures(ctx.db, emailKey(row.email));
  await auditSignIn(ctx, ip, stage, row, 'ok');
  return who(row);
}

const seedContext = (operatorId: string) => `operators.totp:${operatorId}`;
const openSeed = (ctx: AppContext, row: OperatorRow) =>
  open(ctx.config.masterKey, row.totpSealed!, seedContext(row.id));

export interface Enrolment {
  secret: string;
  uri: string;
}

/** The seed an operator without TOTP is enrolling: made and stored sealed on first call, the same after. */
export async function enrolment(ctx: AppContext, operatorId: string): Promise<Enrolment | undefined> {
  const row = await findOperator(ctx.db, operatorId);
  if (!row || row.disabled || row.totpEnabled) return undefined;
  let seed: Buffer;
  if (row.totpSealed) seed = openSeed(ctx, row);
  else {
    seed = newTotpSeed();
    await setPendingTotp(
      ctx.db,
      row.id,
      seal(ctx.config.masterKey, seed, seedContext(row.id)),
      ctx.clock.now(),
    );
  }
  return { secret: seedToBase32(seed), uri: otpauthUri(seed, row.email) };
}

/** Enrolment ends with one right code: the seed is then on, and the code's step used. */
export async function confirmEnrolment(
  ctx: AppContext,
  operatorId: string,
  code: string,
  ip: string,
): Promise<SignedInOperator | undefined> {
  const row = await findOperator(ctx.db, operatorId);
  if (!row || row.disabled || row.totpEnabled || !row.totpSealed) return undefined;
  return acceptCode(ctx, row, code, ip, 'enrol');
}

/** A new password: the one an admin gave at creation must change at the first sign-in. */
export async function changePassword(
  ctx: AppContext,
  operatorId: string,
  input: { current?: string; next: string; confirm: string },
) {
  const row = await findOperator(ctx.db, operatorId);
  if (!row || row.disabled) throw operatorErrors.unknownOperator();
  if (input.current !== undefined && !(await verifyPassword(input.current, row.passwordHash))) {
    throw operatorErrors.wrongPassword();
  }
  const next = checkedPassword(input.next);
  if (next !== input.confirm) throw operatorErrors.weakPassword('The two new passwords differ.');
  if (await verifyPassword(next, row.passwordHash)) {
    throw operatorErrors.weakPassword('Choose a password other than the one you were given.');
  }
  await setOperatorPassword(ctx.db, row.id, await hashPassword(next), ctx.clock.now());
  await insertAudit(ctx.db, {
    actor: operatorActorName(row.id, row.email),
    operatorId: row.id,
    action: 'POST /console/password',
    target: `operator:${row.id}`,
    outcome: 'ok',
    status: 200,
    remoteIp: undefined,
    detail: { passwordChanged: true },
  });
}
