import type { AppContext } from '../platform/context.ts';
import { withTransaction } from '../platform/db/pool.ts';
import { forbidden } from '../platform/errors.ts';
import { auditOperatorChange, type OperatorAct } from './audit.ts';
import { addClockOffsetMs, readClockOffsetMs } from './store.ts';

export interface ClockState {
  offsetSeconds: number;
  now: number;
}

/** Moves the sandbox clock forward; the change and its audit row commit together. */
export async function advanceSandboxClock(
  ctx: AppContext,
  call: OperatorAct,
  advanceSeconds: number,
): Promise<ClockState> {
  if (ctx.config.env !== 'sandbox')
    throw forbidden('The sandbox clock exists only in sandbox.', 'accessDenied.sandboxOnly');
  const offsetMs = await withTransaction(ctx.db, async (tx) => {
    const offset = await addClockOffsetMs(tx, advanceSeconds * 1000);
    await auditOperatorChange(tx, call, 'sandbox:clock', { advanceSeconds, offsetMs: offset });
    return offset;
  });
  ctx.clock.setOffsetMs(offsetMs);
  return { offsetSeconds: offsetMs / 1000, now: ctx.clock.nowMs() };
}

/** Reloads the offset another process may have changed; run at start and then every second. */
export async function syncSandboxClock(ctx: AppContext): Promise<void> {
  if (ctx.config.env !== 'sandbox') return;
  ctx.clock.setOffsetMs(await readClockOffsetMs(ctx.db));
}

export function sandboxClockState(ctx: AppContext): ClockState {
  return { offsetSeconds: ctx.clock.currentOffsetMs() / 1000, now: ctx.clock.nowMs() };
}
