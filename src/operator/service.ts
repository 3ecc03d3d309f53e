import type { Clock } from '../platform/clock.ts';
import type { AppContext } from '../platform/context.ts';
import { withTransaction } from '../platform/db/pool.ts';
import { forbidden, invalidValue } from '../platform/errors.ts';
import { auditOperatorChange, type OperatorAct } from './audit.ts';
import { addClockOffsetMs, readClockOffsetMs } from './store.ts';

export interface ClockState {
  offsetSeconds: number;
  now: number;
}

/** Ten years: the furthest one move may take the clock. */
export const MAX_ADVANCE_SECONDS = 10 * 366 * 24 * 3600;

/** Moves the sandbox clock forward; the change and its audit row commit together. */
export async function advanceSandboxClock(
  ctx: OperatorDeps,
  call: OperatorAct,
  advanceSeconds: number,
): Promise<ClockState> {
  const clock = ctx.sandboxClock;
  if (!clock) throw forbidden('The sandbox clock exists only in sandbox.', 'accessDenied.sandboxOnly');
  // The operator API's schema holds the same bounds; the console's form reaches here unchecked.
  if (!Number.isInteger(advanceSeconds) || advanceSeconds < 1 || advanceSeconds > MAX_ADVANCE_SECONDS) {
    throw invalidValue(
      'advanceSeconds',
      `advanceSeconds must be a whole number from 1 to ${MAX_ADVANCE_SECONDS}.`,
    );
  }
  const offsetMs = await withTransaction(ctx.db, async (tx) => {
    const offset = await addClockOffsetMs(tx, advanceSeconds * 1000);
    await auditOperatorChange(tx, call, 'sandbox:clock', { advanceSeconds, offsetMs: offset });
    return offset;
  });
  clock.setOffsetMs(offsetMs);
  return { offsetSeconds: offsetMs / 1000, now: clock.nowMs() };
}

/**
 * Reloads the offset another process may have changed; run at start and then every second. Without
 * a sandbox clock (production) there is nothing to move: a stored offset is ignored.
 */
export async function syncSandboxClock(ctx: OperatorDeps): Promise<void> {
  if (!ctx.sandboxClock) return;
  ctx.sandboxClock.setOffsetMs(await readClockOffsetMs(ctx.db));
}

/**
 * What the operator's clock functions are given: the sandbox clock, which the operator may move
 * forward, or none (production's clock is the real one).
 */
export interface OperatorDeps extends AppContext {
  sandboxClock: Clock | undefined;
}

export function sandboxClockState(ctx: AppContext): ClockState {
  return { offsetSeconds: ctx.clock.currentOffsetMs() / 1000, now: ctx.clock.nowMs() };
}
