import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { operatorHeaders, startTestApp, TEST_OPERATOR_TOKEN, type TestApp } from '../helpers/app.ts';
import { expectEnvelopeResponse } from '../helpers/http.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

interface AuditRow {
  id: number;
  actor: string;
  action: string;
  target: string | null;
  outcome: string;
  status: number;
  remote_ip: string | null;
}

async function auditRows(): Promise<AuditRow[]> {
  const { rows } = await t.database.db.query<AuditRow>(
    'SELECT id, actor, action, target, outcome, status, remote_ip FROM operator_audit ORDER BY id',
  );
  return rows;
}

/** The audit row of a refused call is written once the answer is out: wait for it to appear. */
async function nextAuditRow(countBefore: number): Promise<AuditRow> {
  return vi.waitFor(
    async () => {
      const rows = await auditRows();
      if (rows.length <= countBefore) throw new Error('audit row not written yet');
      expect(rows).toHaveLength(countBefore + 1);
      return rows.at(-1)!;
    },
    { timeout: 10_000, interval: 20 },
  );
}

const wrongSameLength = `${TEST_OPERATOR_TOKEN.slice(0, -1)}${TEST_OPERATOR_TOKEN.endsWith('x') ? 'y' : 'x'}`;

const refusals: [string, Record<string, string>][] = [
  ['no Authorization header', { 'content-type': 'application/json' }],
  ['a wrong token of the same length', operatorHeaders(wrongSameLength)],
  ['a wrong short token', operatorHeaders('nope')],
  ['the right token with a suffix', operatorHeaders(`${TEST_OPERATOR_TOKEN}x`)],
  ['a prefix of the right token', operatorHeaders(TEST_OPERATOR_TOKEN.slice(0, 10))],
  [
    'Basic credentials',
    { authorization: `Basic ${Buffer.from(`op:${TEST_OPERATOR_TOKEN}`).toString('base64')}` },
  ],
  ['Bearer without a token', { authorization: 'Bearer ' }],
  ['the bare token without a scheme', { authorization: TEST_OPERATOR_TOKEN }],
  ['a token followed by a space and more', { authorization: `Bearer ${TEST_OPERATOR_TOKEN} extra` }],
];

describe('operator authentication', () => {
  for (const [name, headers] of refusals) {
    it(`refuses ${name} with a 401 envelope and an audit row 'denied'`, async () => {
      const count = (await auditRows()).length;
      const response = await fetch(`${t.baseUrl}/operator/v1/sandbox/clock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{"advanceSeconds":3600}',
      });
      await expectEnvelopeResponse(response, 401, 'AccessDeniedException', {
        errorCode: 'accessDenied.invalidOperatorToken',
      });
      const row = await nextAuditRow(count);
      expect(row).toMatchObject({
        actor: 'anonymous',
        action: 'POST /operator/v1/sandbox/clock',
        outcome: 'denied',
        status: 401,
        remote_ip: '127.0.0.1',
      });
      expect(t.ctx.clock.currentOffsetMs()).toBe(0);
      const settings = await t.database.db.query('SELECT * FROM runtime_settings');
      expect(settings.rows).toEqual([]);
    });
  }

  it('refuses reads without the token too, audited', async () => {
    const count = (await auditRows()).length;
    const response = await fetch(`${t.baseUrl}/operator/v1/sandbox/clock`);
    await expectEnvelopeResponse(response, 401, 'AccessDeniedException');
    expect(await nextAuditRow(count)).toMatchObject({
      action: 'GET /operator/v1/sandbox/clock',
      outcome: 'denied',
      status: 401,
    });
  });

  it('lets the right token read, audited as ok', async () => {
    const count = (await auditRows()).length;
    const response = await fetch(`${t.baseUrl}/operator/v1/sandbox/clock`, { headers: operatorHeaders() });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ offsetSeconds: 0, now: expect.any(Number) });
    expect(await nextAuditRow(count)).toMatchObject({
      actor: 'operator-token',
      action: 'GET /operator/v1/sandbox/clock',
      outcome: 'ok',
      status: 200,
    });
  });

  it('audits a call with the right token but a bad body as rejected', async () => {
    const count = (await auditRows()).length;
    const response = await fetch(`${t.baseUrl}/operator/v1/sandbox/clock`, {
      method: 'POST',
      headers: operatorHeaders(),
      body: '{}',
    });
    await expectEnvelopeResponse(response, 400, 'FieldRequiredException', {
      problematicField: 'advanceSeconds',
    });
    expect(await nextAuditRow(count)).toMatchObject({
      actor: 'operator-token',
      outcome: 'rejected',
      status: 400,
    });
  });

  it('takes the scheme name in any case (RFC 9110), the token only exactly', async () => {
    for (const scheme of ['bearer', 'BEARER']) {
      const response = await fetch(`${t.baseUrl}/operator/v1/sandbox/clock`, {
        headers: { authorization: `${scheme} ${TEST_OPERATOR_TOKEN}` },
      });
      expect(response.status).toBe(200);
    }
    const response = await fetch(`${t.baseUrl}/operator/v1/sandbox/clock`, {
      headers: { authorization: `Bearer ${TEST_OPERATOR_TOKEN.toUpperCase()}` },
    });
    expect(response.status).toBe(401);
  });

  it('answers an unknown operator path 401 without the token, so routes cannot be enumerated; 404/405 with it', async () => {
    for (const [method, path] of [
      ['GET', '/operator/v1/nothing-here'],
      ['DELETE', '/operator/v1/sandbox/clock'],
      ['GET', '/operator/'],
    ] as const) {
      const anonymous = await fetch(`${t.baseUrl}${path}`, { method });
      await expectEnvelopeResponse(anonymous, 401, 'AccessDeniedException', {
        errorCode: 'accessDenied.invalidOperatorToken',
      });
      const withToken = await fetch(`${t.baseUrl}${path}`, { method, headers: operatorHeaders() });
      expect([404, 405]).toContain(withToken.status);
    }
  });
});
