import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { EXE } from '../users/fixtures.ts';
import { CONSOLE_TEST_ENV, type ConsoleData, insertDelivery, seedConsoleData } from './pages-fixture.ts';
import {
  type Browser,
  dashboardCookie,
  getPage,
  linksOf,
  OPERATOR_IDS,
  postForm,
  sessionProbe,
  signIn,
} from './pages-support.ts';

/**
 * The console's support pages over real HTTP on a real database: search, timelines, the KYC
 * review with its documents, callback deliveries and their resend (docs/contract.md, decisions
 * 145 to 151).
 */

let t: TestApp;
let data: ConsoleData;
let support: Browser;
let reviewer: Browser;
let admin: Browser;

beforeAll(async () => {
  t = await startTestApp({ env: CONSOLE_TEST_ENV, extend: sessionProbe });
  data = await seedConsoleData(t);
  [support, reviewer, admin] = await Promise.all([
    signIn(t, 'support'),
    signIn(t, 'reviewer'),
    signIn(t, 'admin'),
  ]);
}, 60_000);
afterAll(async () => t?.close());

async function search(q: string) {
  const page = await getPage(t, support, `/console/search?q=${encodeURIComponent(q)}`);
  expect(page.status).toBe(200);
  return page.text;
}

async function auditRows(target: string) {
  const { rows } = await t.database.db.query<{ actor: string; action: string }>(
    'SELECT actor, action FROM operator_audit WHERE target = $1 ORDER BY id',
    [target],
  );
  return rows;
}

describe('search', () => {
  it('finds each kind of id, linking to its page', async () => {
    const cases: [string, string][] = [
      [data.partner.accountId, `/console/accounts/${data.partner.accountId}`],
      [data.userId, `/console/users/${data.userId}`],
      [data.orderId, `/console/orders/${data.orderId}`],
      [data.orderId.toLowerCase(), `/console/orders/${data.orderId}`],
      [data.transferId, `/console/transfers/${data.transferId}`],
      [data.walletId, `/console/accounts/${data.partner.accountId}`],
      [data.reservationId, `/console/orders/${data.orderId}`],
      [data.partner.apiKey, `/console/accounts/${data.partner.accountId}`],
      [data.failedDeliveryId, `/console/callbacks/${data.failedDeliveryId}`],
    ];
    for (const [query, href] of cases) {
      const page = await search(query);
      expect(
        linksOf(page, '/console/').filter((h) => !h.startsWith('/console/assets')),
        query,
      ).toContain(href);
      expect(page).toContain('found for');
    }
  });

  it('finds users and card orders by e-mail, whatever the case', async () => {
    const byUser = await search(data.userEmail.toLowerCase());
    expect(linksOf(byUser, '/console/users/')).toEqual([`/console/users/${data.userId}`]);
    const byBuyer = await search('BUYER@example.com');
    expect(linksOf(byBuyer, '/console/orders/')).toEqual([`/console/orders/${data.orderId}`]);
  });

  it('finds the transfer that sent a chain transaction, by its hash with or without 0x', async () => {
    expect(data.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(linksOf(await search(data.txHash), '/console/transfers/')).toEqual([
      `/console/transfers/${data.transferId}`,
    ]);
    expect(linksOf(await search(data.txHash.slice(2)), '/console/transfers/')).toEqual([
      `/console/transfers/${data.transferId}`,
    ]);
  });

  it('finds nothing for an unknown id or text of no known shape, and escapes what it echoes', async () => {
    expect(await search('US_22222222222')).toContain('Nothing matches');
    const page = await search('<script>alert(1)</script>');
    expect(page).toContain('Nothing matches');
    expect(page).not.toContain('<script>alert');
  });

  it('is behind a console session: none, or a dashboard session, is sent to sign in', async () => {
    const none = await getPage(t, undefined, '/console/search?q=x');
    expect(none.status).toBe(303);
    expect(none.headers.get('location')).toBe('/console/sign-in');
    const dashboard = await getPage(t, { cookie: await dashboardCookie(t), csrf: '' }, '/console/search?q=x');
    expect(dashboard.status).toBe(303);
  });
});

describe('timelines', () => {
  it("an order's page shows its status history, card payment, ledger entries with postings and callbacks with their answers", async () => {
    const page = await getPage(t, support, `/console/orders/${data.orderId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Status history');
    expect(page.text).toMatch(/<span class="badge ok">COMPLETE<\/span>/);
    expect(page.text).toContain('order.capture');
    expect(page.text).toContain('external:card');
    expect(page.text).toContain(data.failedDeliveryId);
    expect(page.text).toContain('HTTP 500');
    expect(page.text).toContain(`/console/transfers/${data.transferId}`);
    // Amounts exactly as stored, times in UTC ISO.
    const { rows } = await t.database.db.query<{ source_amount: string }>(
      'SELECT source_amount::text FROM wallet_orders WHERE id = $1',
      [data.orderId],
    );
    expect(page.text).toContain(rows[0]!.source_amount);
    expect(page.text).toMatch(/<time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z">/);
  });

  it("a transfer's page shows its status history and the chain transaction", async () => {
    const page = await getPage(t, support, `/console/transfers/${data.transferId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Transfer Completed');
    expect(page.text).toContain(data.txHash);
  });

  it("an account's and a user's pages list what is theirs", async () => {
    const account = await getPage(t, support, `/console/accounts/${data.partner.accountId}`);
    expect(account.text).toContain(`/console/orders/${data.orderId}`);
    expect(account.text).toContain(`/console/users/${data.userId}`);
    const user = await getPage(t, support, `/console/users/${data.userId}`);
    expect(user.text).toContain('TRANSFER');
    expect(user.text).toContain(`/console/documents/${data.documentId}`);
    expect(user.text).toContain('Deandre');
  });

  it('an unknown id is a 404 page', async () => {
    const page = await getPage(t, support, '/console/orders/WO_22222222222');
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toContain('text/html');
  });
});

describe('documents', () => {
  const path = () => `/console/documents/${data.documentId}`;

  it('are served to a console session with the sandbox CSP, nosniff and an inline disposition', async () => {
    const response = await fetch(`${t.baseUrl}${path()}`, { headers: { cookie: support.cookie } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('content-security-policy')).toBe('sandbox');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-disposition')).toBe(`inline; filename="${data.documentId}.png"`);
  });

  it('are refused to a request without a console session, a dashboard session included', async () => {
    expect((await getPage(t, undefined, path())).status).toBe(303);
    const dashboard = await getPage(t, { cookie: await dashboardCookie(t), csrf: '' }, path());
    expect(dashboard.status).toBe(303);
    expect(dashboard.headers.get('content-type') ?? '').not.toContain('image/png');
  });

  it('are refused when the stored bytes are not the type they were stored as', async () => {
    const { rows } = await t.database.db.query<{ content: Buffer }>(
      'SELECT content FROM user_documents WHERE id = $1',
      [data.documentId],
    );
    const original = rows[0]!.content;
    try {
      await t.database.db.query('UPDATE user_documents SET content = $2 WHERE id = $1', [
        data.documentId,
        EXE,
      ]);
      const page = await getPage(t, support, path());
      expect(page.status).toBe(415);
      expect(page.headers.get('content-type')).toContain('text/html');
      await t.database.db.query(
        `UPDATE user_documents SET content = $2, media_type = 'application/pdf' WHERE id = $1`,
        [data.documentId, original],
      );
      expect((await getPage(t, support, path())).status).toBe(415);
    } finally {
      await t.database.db.query(
        `UPDATE user_documents SET content = $2, media_type = 'image/png' WHERE id = $1`,
        [data.documentId, original],
      );
    }
  });
});

describe('KYC review', () => {
  async function scopeStatus(userId: string) {
    const { rows } = await t.database.db.query<{ status: string }>(
      `SELECT status FROM user_scopes WHERE user_id = $1 AND scope = 'TRANSFER'`,
      [userId],
    );
    return rows[0]?.status;
  }

  it('queues the pending user and shows its fields and document inline', async () => {
    const queue = await getPage(t, support, '/console/reviews');
    expect(queue.text).toContain(`/console/reviews/${data.userId}`);
    const page = await getPage(t, support, `/console/reviews/${data.userId}`);
    expect(page.text).toContain(`<img src="/console/documents/${data.documentId}"`);
    expect(page.text).toContain('residenceAddress');
    expect(page.text).toContain('Decisions need the reviewer role.');
  });

  it('refuses a support operator (403, nothing changes) and a post without the form token', async () => {
    const refused = await postForm(t, support, `/console/reviews/${data.userId}/TRANSFER/approve`);
    expect(refused.status).toBe(403);
    const forged = await postForm(
      t,
      { ...reviewer, csrf: 'forged' },
      `/console/reviews/${data.userId}/TRANSFER/approve`,
    );
    expect(forged.status).toBe(403);
    expect(await scopeStatus(data.userId)).toBe('PENDING');
    expect(await auditRows(`user:${data.userId}`)).toEqual([]);
  });

  it('returns a field with a reason, then approves, each audited with the reviewer', async () => {
    const returned = await postForm(t, reviewer, `/console/reviews/${data.userId}/TRANSFER/return`, {
      field: 'dateOfBirth',
      reason: 'Does not match the passport.',
    });
    expect(returned.status).toBe(303);
    expect(returned.location).toBe(`/console/reviews/${data.userId}?done=return`);
    expect(await scopeStatus(data.userId)).toBe('OPEN');
    const { rows } = await t.database.db.query<{ error: string }>(
      `SELECT fields -> 'dateOfBirth' ->> 'error' AS error FROM users WHERE id = $1`,
      [data.userId],
    );
    expect(rows[0]!.error).toBe('Does not match the passport.');
    // The user corrects it through the API; the scope is PENDING again and the reviewer approves.
    await t.database.db.query(
      `UPDATE user_scopes SET status = 'PENDING', submitted_at = now() WHERE user_id = $1`,
      [data.userId],
    );
    const approved = await postForm(t, reviewer, `/console/reviews/${data.userId}/TRANSFER/approve`);
    expect(approved.status).toBe(303);
    expect(await scopeStatus(data.userId)).toBe('APPROVED');
    const audit = await auditRows(`user:${data.userId}`);
    expect(audit).toHaveLength(2);
    for (const row of audit) expect(row.actor).toContain(OPERATOR_IDS.reviewer);
    const done = await getPage(t, reviewer, approved.location!);
    expect(done.text).toContain('Approved.');
  });

  it('refuses a return without a reason, naming it, and changes nothing', async () => {
    const page = await postForm(t, reviewer, `/console/reviews/${data.userId}/TRANSFER/return`, {
      field: 'dateOfBirth',
      reason: '',
    });
    expect(page.status).toBe(400);
    expect(page.text).toContain('Say what the user must correct.');
    expect(await scopeStatus(data.userId)).toBe('APPROVED');
  });
});

describe('callback deliveries', () => {
  it('lists failed first, then the newest, and pagination walks the whole list once', async () => {
    const base = Date.now() - 3_600_000;
    const made: string[] = [];
    for (let i = 0; i < 70; i += 1) {
      const status = i % 10 === 0 ? 'FAILED' : 'DELIVERED';
      made.push(
        await insertDelivery(
          t,
          data.partner.accountId,
          `transfer:${data.transferId}`,
          status,
          new Date(base + i * 1000),
        ),
      );
    }
    const { rows } = await t.database.db.query<{ id: string; status: string }>(
      `SELECT id, status FROM callback_deliveries WHERE partner_id = $1
       ORDER BY (status <> 'FAILED'), created_at DESC, id DESC`,
      [data.partner.accountId],
    );
    const seen: string[] = [];
    let path: string | undefined = `/console/callbacks?account=${data.partner.accountId}`;
    let pages = 0;
    while (path) {
      const page = await getPage(t, support, path);
      expect(page.status).toBe(200);
      seen.push(
        ...new Set(
          linksOf(page.text, '/console/callbacks/CB_').map((h) => h.slice('/console/callbacks/'.length)),
        ),
      );
      path = linksOf(page.text, '/console/callbacks?').at(0);
      pages += 1;
      expect(pages).toBeLessThan(10);
    }
    expect(pages).toBeGreaterThan(1);
    expect(seen).toEqual(rows.map((row) => row.id));
    expect(made.every((id) => seen.includes(id))).toBe(true);
  });

  it('filters by status', async () => {
    const page = await getPage(
      t,
      support,
      `/console/callbacks?status=FAILED&account=${data.partner.accountId}`,
    );
    const ids = linksOf(page.text, '/console/callbacks/CB_');
    const { rows } = await t.database.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM callback_deliveries WHERE status = 'FAILED' AND partner_id = $1`,
      [data.partner.accountId],
    );
    expect(new Set(ids).size).toBe(rows[0]!.n);
  });

  it('shows a delivery with its attempts; resend needs admin, and is audited with the operator', async () => {
    const id = data.failedDeliveryId;
    const detail = await getPage(t, support, `/console/callbacks/${id}`);
    expect(detail.text).toContain('HTTP 500 in 12 ms');
    expect(detail.text).toContain('Resending needs the admin role.');
    for (const who of [support, reviewer]) {
      expect((await postForm(t, who, `/console/callbacks/${id}/resend`)).status).toBe(403);
    }
    const statusOf = async () =>
      (
        await t.database.db.query<{ status: string }>(
          'SELECT status FROM callback_deliveries WHERE id = $1',
          [id],
        )
      ).rows[0]!.status;
    expect(await statusOf()).toBe('FAILED');
    const resent = await postForm(t, admin, `/console/callbacks/${id}/resend`);
    expect(resent.status).toBe(303);
    expect(resent.location).toBe(`/console/callbacks/${id}?done=resent`);
    expect(await statusOf()).toBe('PENDING');
    const audit = await auditRows(`callback:${id}`);
    expect(audit).toHaveLength(1);
    expect(audit[0]!.actor).toContain(OPERATOR_IDS.admin);
  });
});
