import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import type { PartnerCredentials } from '../helpers/partner.ts';
import { expectError, expectOk } from '../identity/support.ts';
import {
  asUser,
  createUser,
  operatorCall,
  readUser,
  startUsersApp,
  TRANSFER_FIELDS,
  type UsersFixture,
  userState,
} from './support.ts';

interface LinkBody {
  userId: string;
  verificationLinkUrl: string;
  status: string;
  expiresAt: number;
}

async function linkFor(t: TestApp, partner: PartnerCredentials, userId: string) {
  return expectOk<LinkBody>(await asUser(t, partner, userId, 'GET', `/v3/users/${userId}/onboarding`));
}

const local = (t: TestApp, url: string) => `${t.baseUrl}${new URL(url).pathname}`;

describe('sandbox onboarding', () => {
  let f: UsersFixture;
  beforeAll(async () => {
    f = await startUsersApp();
  });
  afterAll(async () => f?.t.close());

  it('hands out a signed link to the hosted page under the public URL', async () => {
    const user = await createUser(f.t, f.partner, { scopes: ['DEBIT_CARD_L2'] });
    const link = await linkFor(f.t, f.partner, user.id);
    expect(link).toMatchObject({ userId: user.id, status: 'OPEN' });
    expect(link.verificationLinkUrl.startsWith(`${f.t.ctx.config.publicUrls[0]}/onboarding/`)).toBe(true);
    const page = await fetch(local(f.t, link.verificationLinkUrl));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    // A mail tool or link tracker decorating the link does not break it.
    const decorated = await fetch(`${local(f.t, link.verificationLinkUrl)}?utm_source=mail&fbclid=x1`);
    expect(decorated.status).toBe(200);
    expect(await decorated.text()).toBe(await (await fetch(local(f.t, link.verificationLinkUrl))).text());
  });

  it('the simulated check completes onboarding; DEBIT_CARD_L2 is then approved with the TRANSFER data', async () => {
    const user = await createUser(f.t, f.partner, {
      fields: TRANSFER_FIELDS,
      scopes: ['TRANSFER', 'DEBIT_CARD_L2'],
    });
    expect(user.scopes.DEBIT_CARD_L2?.status).toBe('OPEN');
    const link = await linkFor(f.t, f.partner, user.id);
    const done = await fetch(local(f.t, link.verificationLinkUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Identity verification complete.');
    const read = await readUser(f.t, f.partner, user.id, 'DEBIT_CARD_L2');
    expect(read.scopes.DEBIT_CARD_L2).toMatchObject({ status: 'APPROVED', onboardingRequired: false });
    expect((await linkFor(f.t, f.partner, user.id)).status).toBe('COMPLETE');
  });

  it('never says complete while a field is OPEN: it lists what each scope still needs', async () => {
    const user = await createUser(f.t, f.partner, {
      fields: { firstName: 'Ada' },
      scopes: ['TRANSFER', 'DEBIT_CARD_L2'],
    });
    const link = await linkFor(f.t, f.partner, user.id);
    const done = await fetch(local(f.t, link.verificationLinkUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    const text = await done.text();
    // What the page says (its markup has autocomplete attributes): never "complete".
    expect(text.replace(/<[^>]*>/g, '')).not.toMatch(/complete/i);
    expect(text).toContain(
      'Identity check passed. Still needed: Last name, Residence address, Date of birth.',
    );
    expect(text).toMatch(
      /data-scope="TRANSFER">Transfers:\s*<span class="status">still needs Last name, Residence address, Date of birth</,
    );
    expect(text).toMatch(
      /data-scope="DEBIT_CARD_L2">Higher card limits:\s*<span class="status">still needs Last name/,
    );
    // Read again later, the page says the same.
    const read = await (await fetch(local(f.t, link.verificationLinkUrl))).text();
    expect(read).toContain('Still needed: Last name, Residence address, Date of birth.');
  });

  it('ACH without a bank account: the page asks for one, even with every field provided', async () => {
    const user = await createUser(f.t, f.partner, { fields: TRANSFER_FIELDS, scopes: ['TRANSFER', 'ACH'] });
    const link = await linkFor(f.t, f.partner, user.id);
    const text = await (
      await fetch(local(f.t, link.verificationLinkUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
      })
    ).text();
    expect(text).toContain('Identity check passed. Still needed: Bank account.');
    expect(text).toMatch(/data-scope="TRANSFER">Transfers:\s*<span class="status">approved</);
    expect(text).toMatch(/data-scope="ACH">Bank payments:\s*<span class="status">still needs Bank account</);
  });

  it('a tampered link is an HTML 404 page and changes nothing', async () => {
    const user = await createUser(f.t, f.partner, {});
    const link = await linkFor(f.t, f.partner, user.id);
    const url = local(f.t, link.verificationLinkUrl);
    const tampered = `${url.slice(0, -2)}${url.endsWith('AA') ? 'BB' : 'AA'}`;
    const before = await userState(f.t);
    const answer = await fetch(tampered, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(answer.status).toBe(404);
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await answer.text()).toContain('Link not valid');
    expect(await userState(f.t)).toEqual(before);
  });

  it('a link expires after an hour of the service clock: HTML 410', async () => {
    const user = await createUser(f.t, f.partner, {});
    const link = await linkFor(f.t, f.partner, user.id);
    expect(
      (await operatorCall(f.t, 'POST', '/operator/v1/sandbox/clock', { advanceSeconds: 3601 })).status,
    ).toBe(200);
    const answer = await fetch(local(f.t, link.verificationLinkUrl));
    expect(answer.status).toBe(410);
    expect(await answer.text()).toContain('Link expired');
  });

  it('the link needs the masquerade of the same user', async () => {
    const user = await createUser(f.t, f.partner, {});
    await expectError(
      await asUser(f.t, f.other, user.id, 'GET', `/v3/users/${user.id}/onboarding`),
      403,
      'AccessDeniedException',
    );
  });
});

describe('production onboarding', () => {
  let f: UsersFixture;
  beforeAll(async () => {
    f = await startUsersApp({ env: { RAMPART_ENV: 'production' } });
  });
  afterAll(async () => f?.t.close());

  it('records the submission for review; the operator approval completes it', async () => {
    const user = await createUser(f.t, f.partner, {
      fields: TRANSFER_FIELDS,
      scopes: ['TRANSFER', 'DEBIT_CARD_L2'],
    });
    expect(user.scopes.TRANSFER?.status).toBe('PENDING');
    const link = await linkFor(f.t, f.partner, user.id);
    const page = await fetch(local(f.t, link.verificationLinkUrl));
    expect(await page.text()).toContain('Submit for verification');
    const submitted = await fetch(local(f.t, link.verificationLinkUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(await submitted.text()).toContain('Submitted. Your details are under review.');
    const read = await readUser(f.t, f.partner, user.id);
    expect(read.scopes.DEBIT_CARD_L2).toMatchObject({ status: 'PENDING', onboardingStatus: 'SUBMITTED' });
    await expectOk(
      await operatorCall(f.t, 'POST', `/operator/v1/users/${user.id}/scopes/TRANSFER/review`, {
        decision: 'APPROVE',
      }),
    );
    await expectOk(
      await operatorCall(f.t, 'POST', `/operator/v1/users/${user.id}/scopes/DEBIT_CARD_L2/review`, {
        decision: 'APPROVE',
      }),
    );
    const approved = await readUser(f.t, f.partner, user.id);
    expect(approved.status).toBe('APPROVED');
    expect(approved.scopes.DEBIT_CARD_L2?.onboardingStatus).toBe('COMPLETE');
  });

  it('does not auto-approve even if the sandbox setting says so', () => {
    expect(f.t.ctx.config.sandboxAutoApprove).toBe(false);
  });
});
