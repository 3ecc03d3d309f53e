import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { syncSandboxClock } from '../../src/operator/service.ts';
import { Clock } from '../../src/platform/clock.ts';
import { operatorHeaders, startTestApp, type TestApp } from '../helpers/app.ts';
import { expectEnvelopeResponse } from '../helpers/http.ts';

const REAL_NOW_MS = 1_700_000_000_000;
const HOUR_MS = 3_600_000;

let t: TestApp;
beforeAll(async () => {
  // A frozen real clock makes "now moved by exactly the amount" checkable without timing.
  t = await startTestApp({ ports: { clock: new Clock(() => REAL_NOW_MS) } });
});
afterAll(async () => t.close());

function advance(app: TestApp, advanceSeconds: number) {
  return fetch(`${app.baseUrl}/operator/v1/sandbox/clock`, {
    method: 'POST',
    headers: operatorHeaders(),
    body: JSON.stringify({ advanceSeconds }),
  });
}

async function storedOffsetMs(app: TestApp): Promise<number | undefined> {
  const { rows } = await app.database.db.query<{ value: number }>(
    `SELECT value FROM runtime_settings WHERE name = 'sandbox_clock_offset_ms'`,
  );
  return rows[0]?.value;
}

interface AuditRow {
  actor: string;
  action: string;
  target: string | null;
  outcome: string;
  status: number;
  detail: Record<string, unknown>;
}

async function clockAuditRows(app: TestApp): Promise<AuditRow[]> {
  const { rows } = await app.database.db.query<AuditRow>(
    `SELECT actor, action, target, outcome, status, detail FROM operator_audit
     WHERE action = 'POST /operator/v1/sandbox/clock' ORDER BY id`,
  );
  return rows;
}

describe('POST /operator/v1/sandbox/clock', () => {
  it('moves the clock forward by the amount and audits it in the same transaction', async () => {
    expect(t.ctx.clock.nowMs()).toBe(REAL_NOW_MS);
    const response = await advance(t, 3600);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ offsetSeconds: 3600, now: REAL_NOW_MS + HOUR_MS });
    expect(t.ctx.clock.nowMs()).toBe(REAL_NOW_MS + HOUR_MS);
    expect(t.ctx.clock.now().getTime()).toBe(REAL_NOW_MS + HOUR_MS);
    expect(t.ctx.clock.realNow()).toBe(REAL_NOW_MS);
    expect(await storedOffsetMs(t)).toBe(HOUR_MS);

    // The audit row is committed with the change, so it is there as soon as the answer is.
    const rows = await clockAuditRows(t);
    expect(rows).toEqual([
      {
        actor: 'operator-token',
        action: 'POST /operator/v1/sandbox/clock',
        target: 'sandbox:clock',
        outcome: 'ok',
        status: 200,
        detail: { advanceSeconds: 3600, offsetMs: HOUR_MS },
      },
    ]);
  });

  it('accumulates across calls', async () => {
    const response = await advance(t, 90);
    expect(await response.json()).toEqual({ offsetSeconds: 3690, now: REAL_NOW_MS + HOUR_MS + 90_000 });
    expect(t.ctx.clock.currentOffsetMs()).toBe(HOUR_MS + 90_000);
    expect(await storedOffsetMs(t)).toBe(HOUR_MS + 90_000);
    expect((await clockAuditRows(t)).map((row) => row.outcome)).toEqual(['ok', 'ok']);
  });

  it('adds concurrent advances atomically', async () => {
    const before = (await storedOffsetMs(t)) ?? 0;
    const responses = await Promise.all([advance(t, 10), advance(t, 20), advance(t, 30), advance(t, 40)]);
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200]);
    expect(await storedOffsetMs(t)).toBe(before + 100_000);
  });

  it('reads back through GET', async () => {
    const offset = (await storedOffsetMs(t))!;
    const response = await fetch(`${t.baseUrl}/operator/v1/sandbox/clock`, { headers: operatorHeaders() });
    expect(await response.json()).toEqual({ offsetSeconds: offset / 1000, now: REAL_NOW_MS + offset });
  });

  it('is picked up by a second app on the same database through syncSandboxClock', async () => {
    const second = await startTestApp({ database: t.database });
    try {
      expect(second.ctx.clock.currentOffsetMs()).toBe(0);
      await syncSandboxClock(second.ctx);
      const offset = (await storedOffsetMs(t))!;
      expect(offset).toBeGreaterThan(HOUR_MS);
      expect(second.ctx.clock.currentOffsetMs()).toBe(offset);

      // And the other way round: an advance through the second app reaches the first on sync.
      await advance(second, 5);
      await syncSandboxClock(t.ctx);
      expect(t.ctx.clock.currentOffsetMs()).toBe(offset + 5000);
    } finally {
      await second.close();
    }
  });
});

describe('the sandbox clock in production', () => {
  it('is refused with 403 accessDenied.sandboxOnly and leaves the clock alone', async () => {
    const prod = await startTestApp({ env: { RAMPART_ENV: 'production' } });
    try {
      const response = await advance(prod, 3600);
      await expectEnvelopeResponse(response, 403, 'AccessDeniedException', {
        errorCode: 'accessDenied.sandboxOnly',
        production: true,
      });
      expect(prod.ctx.clock.currentOffsetMs()).toBe(0);
      expect(await storedOffsetMs(prod)).toBeUndefined();
      await vi.waitFor(
        async () => expect(await clockAuditRows(prod)).toMatchObject([{ outcome: 'denied', status: 403 }]),
        {
          timeout: 10_000,
          interval: 20,
        },
      );
      // A production process ignores any stored offset.
      await prod.database.db.query(
        `INSERT INTO runtime_settings (name, value) VALUES ('sandbox_clock_offset_ms', '999000')`,
      );
      await syncSandboxClock(prod.ctx);
      expect(prod.ctx.clock.currentOffsetMs()).toBe(0);
    } finally {
      await prod.close();
    }
  });
});
