import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../src/operator/password.ts';
import { matchTotp, totpCode } from '../../src/operator/totp.ts';
import { operatorHeaders, startTestApp, type TestApp } from '../helpers/app.ts';
import {
  bootstrapAdmin,
  codeFor,
  cookieOf,
  csrfOf,
  getPage,
  nextStep,
  PASSWORD,
  postForm,
  signIn,
} from './support.ts';

let t: TestApp;
let adminSeed: Buffer;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('passwords', () => {
  it('hashes with scrypt, its own salt and parameters, and verifies only the same password', async () => {
    const one = await hashPassword('correct horse battery staple');
    const two = await hashPassword('correct horse battery staple');
    expect(one).toMatch(/^scrypt\$15\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(one).not.toBe(two);
    expect(await verifyPassword('correct horse battery staple', one)).toBe(true);
    expect(await verifyPassword('correct horse battery stapler', one)).toBe(false);
    expect(await verifyPassword('correct horse battery staple', one.replace('$15$', '$30$'))).toBe(false);
  });
});

describe('TOTP (RFC 6238)', () => {
  // Appendix B: the SHA-1 seed "12345678901234567890", 8 digits.
  const seed = Buffer.from('12345678901234567890');
  const vectors: [number, string][] = [
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ];
  for (const [seconds, code] of vectors) {
    it(`gives ${code} at T=${seconds}`, () => {
      expect(totpCode(seed, Math.floor(seconds / 30), 8)).toBe(code);
    });
  }

  it('takes the steps either side of now, never one already used, and nothing further', () => {
    const now = 1_234_567_890_000;
    const step = Math.floor(now / 30_000);
    const code = (offset: number) => totpCode(seed, step + offset);
    expect(matchTotp(seed, code(0), now, 0)).toBe(step);
    expect(matchTotp(seed, code(-1), now, 0)).toBe(step - 1);
    expect(matchTotp(seed, code(1), now, 0)).toBe(step + 1);
    expect(matchTotp(seed, code(2), now, 0)).toBeUndefined();
    expect(matchTotp(seed, code(0), now, step)).toBeUndefined();
    expect(matchTotp(seed, 'abcdef', now, 0)).toBeUndefined();
  });
});

describe('the first admin', () => {
  it('is made once with the operator token; 409 after, and the console setup page is gone', async () => {
    const setup = await getPage(t, '/console/setup');
    expect(setup.status).toBe(200);
    const made = await bootstrapAdmin(t);
    expect(made.status).toBe(201);
    const body = (await made.json()) as { operatorId: string; role: string };
    expect(body.role).toBe('admin');
    const again = await bootstrapAdmin(t, 'eve@example.com');
    expect(again.status).toBe(409);
    expect(((await again.json()) as { errorCode: string }).errorCode).toBe('operator.alreadyBootstrapped');
    const { rows } = await t.database.db.query('SELECT email FROM operators');
    expect(rows).toEqual([{ email: 'ada@example.com' }]);
    expect((await getPage(t, '/console/setup')).headers.get('location')).toBe('/console/sign-in');
    const { rows: audit } = await t.database.db.query(
      "SELECT actor, target FROM operator_audit WHERE action = 'POST /operator/v1/operators/bootstrap' AND outcome = 'ok'",
    );
    expect(audit).toEqual([{ actor: 'operator-token', target: `operator:${body.operatorId}` }]);
  });
});

describe('signing in', () => {
  it('enrols TOTP at the first sign-in, then asks for a code; a replayed code is refused', async () => {
    const first = await signIn(t, 'ada@example.com', PASSWORD);
    adminSeed = first.seed;
    const { rows } = await t.database.db.query<{ totp_sealed: Buffer; totp_enabled: boolean }>(
      'SELECT totp_sealed, totp_enabled FROM operators',
    );
    expect(rows[0]!.totp_enabled).toBe(true);
    expect(rows[0]!.totp_sealed.includes(first.seed)).toBe(false);

    // The code just used, at once, on a fresh sign-in: refused.
    const password = await postForm(t, '/console/sign-in', { email: 'ada@example.com', password: PASSWORD });
    expect(password.headers.get('location')).toBe('/console/sign-in/code');
    const cookie = cookieOf(password)!;
    const page = await (await getPage(t, '/console/sign-in/code', cookie)).text();
    const replay = await postForm(
      t,
      '/console/sign-in/code',
      { _csrf: csrfOf(page), code: codeFor(t, first.seed) },
      cookie,
    );
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('not right, or was used already');
    // The next step's code works once.
    const next = await postForm(
      t,
      '/console/sign-in/code',
      { _csrf: csrfOf(page), code: codeFor(t, first.seed, 1) },
      cookie,
    );
    expect(next.status).toBe(303);
    expect(next.headers.get('location')).toBe('/console');
    // The pending session's token does not open the console: a new one was issued.
    expect((await getPage(t, '/console', cookie)).status).toBe(303);
    expect((await getPage(t, '/console', cookieOf(next)!)).status).toBe(200);
  });

  it('answers the same for an unknown e-mail and a wrong password', async () => {
    const unknown = await postForm(t, '/console/sign-in', {
      email: 'nobody@example.com',
      password: PASSWORD,
    });
    const wrong = await postForm(t, '/console/sign-in', {
      email: 'ada@example.com',
      password: 'not the password',
    });
    expect(unknown.status).toBe(400);
    expect(wrong.status).toBe(400);
    const text = (body: string) => body.replace(/value="[^"]*"/g, '');
    expect(text(await unknown.text())).toBe(text(await wrong.text()));
    expect(cookieOf(unknown)).toBeUndefined();
  });

  it('locks an e-mail after repeated failures, even for the right password, and audits it', async () => {
    const email = 'locked@example.com';
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const refused = await postForm(t, '/console/sign-in', { email, password: 'wrong password!!' });
      expect(refused.status).toBe(400);
    }
    const locked = await postForm(t, '/console/sign-in', { email, password: 'wrong password!!' });
    expect(locked.status).toBe(429);
    expect(await locked.text()).toContain('Too many failed sign-ins');
    const { rows } = await t.database.db.query(
      "SELECT count(*)::int AS n FROM operator_audit WHERE action = 'POST /console/sign-in' AND detail->>'reason' = 'locked'",
    );
    expect(rows[0]!.n).toBeGreaterThanOrEqual(1);
    // Another e-mail from the same address still gets its answer (the per-address limit is higher).
    const other = await postForm(t, '/console/sign-in', {
      email: 'ada@example.com',
      password: 'still wrong!!',
    });
    expect(other.status).toBe(400);
    await t.database.db.query('DELETE FROM operator_sign_in_failures');
  });

  it('refuses a sign-in posted from another site', async () => {
    const forged = await postForm(
      t,
      '/console/sign-in',
      { email: 'ada@example.com', password: PASSWORD },
      undefined,
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    );
    expect(forged.status).toBe(403);
    expect(cookieOf(forged)).toBeUndefined();
  });
});

describe('operators and roles', () => {
  it('lets an admin create a reviewer, who must change the first password; a reviewer cannot create operators', async () => {
    await t.database.db.query('DELETE FROM operator_sign_in_failures');
    await nextStep(t);
    const admin = await signIn(t, 'ada@example.com', PASSWORD, { seed: adminSeed });
    const created = await postForm(
      t,
      '/console/operators',
      {
        _csrf: admin.csrf,
        name: 'Rita Reviewer',
        email: 'Rita@Example.com',
        role: 'reviewer',
        password: 'first password 123',
      },
      admin.cookie,
    );
    expect(created.status).toBe(303);
    const reviewer = await signIn(t, 'rita@example.com', 'first password 123', {
      newPassword: 'rita own password 1',
    });
    const before = await t.database.db.query('SELECT count(*)::int AS n FROM operators');
    const refused = await postForm(
      t,
      '/console/operators',
      {
        _csrf: reviewer.csrf,
        name: 'Mallory',
        email: 'mallory@example.com',
        role: 'admin',
        password: 'mallory password 1',
      },
      reviewer.cookie,
    );
    expect(refused.status).toBe(403);
    expect((await getPage(t, '/console/operators', reviewer.cookie)).status).toBe(403);
    const after = await t.database.db.query('SELECT count(*)::int AS n FROM operators');
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
    const { rows } = await t.database.db.query(
      "SELECT actor, operator_id FROM operator_audit WHERE action = 'POST /console/operators' AND outcome = 'ok'",
    );
    expect(rows).toEqual([
      {
        actor: expect.stringMatching(/^OP_\w{11} ada@example\.com$/),
        operator_id: expect.stringMatching(/^OP_/),
      },
    ]);
  });

  it('ends the sessions of an operator who is disabled', async () => {
    await t.database.db.query('DELETE FROM operator_sign_in_failures');
    await nextStep(t);
    const admin = await signIn(t, 'ada@example.com', PASSWORD, { seed: adminSeed });
    const support = await makeAndSignIn(admin, 'sam@example.com', 'support');
    expect((await getPage(t, '/console', support.cookie)).status).toBe(200);
    const id = await operatorId('sam@example.com');
    const disabled = await postForm(
      t,
      `/console/operators/${id}`,
      { _csrf: admin.csrf, action: 'disable' },
      admin.cookie,
    );
    expect(disabled.status).toBe(303);
    expect((await getPage(t, '/console', support.cookie)).status).toBe(303);
    const again = await postForm(t, '/console/sign-in', {
      email: 'sam@example.com',
      password: 'sam own password 1',
    });
    expect(again.status).toBe(400);
  });
});

describe('personal operator API tokens', () => {
  it('act with their operator’s role on the operator API and are audited with the operator', async () => {
    await t.database.db.query('DELETE FROM operator_sign_in_failures');
    await nextStep(t);
    const admin = await signIn(t, 'ada@example.com', PASSWORD, { seed: adminSeed });
    const support = await makeAndSignIn(admin, 'sue@example.com', 'support');
    const made = await postForm(
      t,
      '/console/tokens',
      { _csrf: support.csrf, label: 'script' },
      support.cookie,
    );
    expect(made.status).toBe(201);
    const token = /id="new-token-value">(rop_[A-Za-z0-9_-]{43})</.exec(await made.text())![1]!;
    const { rows: stored } = await t.database.db.query<{ token_hash: string }>(
      'SELECT token_hash FROM operator_api_tokens',
    );
    expect(stored.map((row) => row.token_hash)).not.toContain(token);

    const read = await fetch(`${t.baseUrl}/operator/v1/sandbox/clock`, { headers: operatorHeaders(token) });
    expect(read.status).toBe(200);
    const write = await fetch(`${t.baseUrl}/operator/v1/sandbox/clock`, {
      method: 'POST',
      headers: operatorHeaders(token),
      body: JSON.stringify({ advanceSeconds: 1 }),
    });
    expect(write.status).toBe(403);
    // A read that books fees is an admin's (decision 139).
    const fees = await fetch(
      `${t.baseUrl}/operator/v1/cards/reconciliation?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z`,
      {
        headers: operatorHeaders(token),
      },
    );
    expect(fees.status).toBe(403);
    const suId = await operatorId('sue@example.com');
    const { rows } = await t.database.db.query(
      `SELECT action, outcome, operator_id FROM operator_audit WHERE operator_id = $1 AND action LIKE '% /operator/v1/sandbox/clock' ORDER BY id`,
      [suId],
    );
    expect(rows).toEqual([
      { action: 'GET /operator/v1/sandbox/clock', outcome: 'ok', operator_id: suId },
      { action: 'POST /operator/v1/sandbox/clock', outcome: 'denied', operator_id: suId },
    ]);

    // An admin's token moves the clock, and the change's own audit row names the admin.
    const adminToken = await tokenOf(admin);
    const moved = await fetch(`${t.baseUrl}/operator/v1/sandbox/clock`, {
      method: 'POST',
      headers: operatorHeaders(adminToken),
      body: JSON.stringify({ advanceSeconds: 1 }),
    });
    expect(moved.status).toBe(200);
    const { rows: change } = await t.database.db.query(
      "SELECT actor, operator_id FROM operator_audit WHERE action = 'POST /operator/v1/sandbox/clock' AND outcome = 'ok' AND target = 'sandbox:clock'",
    );
    expect(change.at(-1)).toEqual({
      actor: expect.stringContaining('ada@example.com'),
      operator_id: expect.stringMatching(/^OP_/),
    });

    // Revoked, it fails at once.
    const { rows: ids } = await t.database.db.query<{ id: string }>(
      'SELECT id::text AS id FROM operator_api_tokens WHERE operator_id = $1',
      [suId],
    );
    const revoked = await postForm(
      t,
      `/console/tokens/${ids[0]!.id}/revoke`,
      { _csrf: support.csrf },
      support.cookie,
    );
    expect(revoked.status).toBe(303);
    expect(
      (await fetch(`${t.baseUrl}/operator/v1/sandbox/clock`, { headers: operatorHeaders(token) })).status,
    ).toBe(401);
  });
});

async function operatorId(email: string): Promise<string> {
  const { rows } = await t.database.db.query<{ id: string }>('SELECT id FROM operators WHERE email = $1', [
    email,
  ]);
  return rows[0]!.id;
}

async function makeAndSignIn(admin: { cookie: string; csrf: string }, email: string, role: string) {
  const local = email.split('@')[0]!;
  const made = await postForm(
    t,
    '/console/operators',
    { _csrf: admin.csrf, name: local, email, role, password: `${local} first password` },
    admin.cookie,
  );
  expect(made.status).toBe(303);
  return signIn(t, email, `${local} first password`, { newPassword: `${local} own password 1` });
}

async function tokenOf(session: { cookie: string; csrf: string }): Promise<string> {
  const made = await postForm(
    t,
    '/console/tokens',
    { _csrf: session.csrf, label: 'admin script' },
    session.cookie,
  );
  return /id="new-token-value">(rop_[A-Za-z0-9_-]{43})</.exec(await made.text())![1]!;
}
