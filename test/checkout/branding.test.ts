import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contrastWithWhite } from '../../src/checkout/branding.ts';
import { solidPng } from '../browser/images.ts';
import { operatorHeaders, startTestApp, type TestApp } from '../helpers/app.ts';
import { expectEnvelopeResponse } from '../helpers/http.ts';
import { createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import { checkoutBody, checkoutLink, snapshot } from './support.ts';

/**
 * The hosted checkout's branding: set by the partner (POST /v3/checkout/branding) or the
 * operator, every member checked before any is stored, the logo served by Rampart itself and
 * named by its content, the accent colour only where white text on it stays readable.
 */

let t: TestApp;
let partner: PartnerCredentials;
let other: PartnerCredentials;

beforeAll(async () => {
  t = await startTestApp();
  partner = await createPartner(t);
  other = await createPartner(t, { name: 'Other partner' });
});
afterAll(async () => {
  await t?.close();
});

const setBranding = (who: PartnerCredentials, body: unknown) =>
  signedFetch(t, who, { method: 'POST', path: '/v3/checkout/branding', body: JSON.stringify(body) });

const LOGO = solidPng(60, 20, [20, 40, 120]);

describe('contrast', () => {
  it('measures white text on a colour as WCAG does', () => {
    expect(contrastWithWhite('#000000')).toBeCloseTo(21, 5);
    expect(contrastWithWhite('#ffffff')).toBeCloseTo(1, 5);
    expect(contrastWithWhite('#1a56db')).toBeGreaterThan(4.5);
    expect(contrastWithWhite('#ffcc00')).toBeLessThan(4.5);
    // #767676 is the lightest grey that passes on white.
    expect(contrastWithWhite('#767676')).toBeGreaterThanOrEqual(4.5);
    expect(contrastWithWhite('#777777')).toBeLessThan(4.5);
  });
});

describe('POST /v3/checkout/branding', () => {
  it('sets name, colour and logo; the checkout shows them; members left out are kept, null clears', async () => {
    const response = await setBranding(partner, {
      name: 'Acme Wallet',
      accentColor: '#1A56DB',
      logo: LOGO.toString('base64'),
    });
    const answer = (await response.json()) as { name: string; accentColor: string; logoUrl: string };
    expect(response.status).toBe(200);
    expect(answer).toMatchObject({ name: 'Acme Wallet', accentColor: '#1a56db' });
    expect(answer.logoUrl).toMatch(new RegExp(`^/purchase/logos/${partner.accountId}/[0-9a-f]{16}$`));

    const logo = await fetch(`${t.baseUrl}${answer.logoUrl}`);
    expect(logo.status).toBe(200);
    expect(logo.headers.get('content-type')).toBe('image/png');
    expect(logo.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await logo.arrayBuffer()).equals(LOGO)).toBe(true);
    expect((await fetch(`${t.baseUrl}/purchase/logos/${partner.accountId}/0000000000000000`)).status).toBe(
      404,
    );

    const { url } = await checkoutLink(t, partner, checkoutBody(partner));
    const page = await (await fetch(url)).text();
    expect(page).toContain('<title>Pay Acme Wallet</title>');
    expect(page).toContain(`<img class="brand-logo" src="${answer.logoUrl}" alt="Acme Wallet logo">`);
    expect(page).toContain('<link rel="stylesheet" href="/purchase/themes/1a56db.css">');
    const theme = await fetch(`${t.baseUrl}/purchase/themes/1a56db.css`);
    expect(await theme.text()).toBe(':root { --accent: #1a56db; }\n');
    expect((await fetch(`${t.baseUrl}/purchase/themes/red;}.css`)).status).toBe(400);

    const renamed = await setBranding(partner, { name: 'Acme' });
    expect(await renamed.json()).toMatchObject({
      name: 'Acme',
      accentColor: '#1a56db',
      logoUrl: answer.logoUrl,
    });
    const cleared = await setBranding(partner, { logo: null, accentColor: null });
    expect(await cleared.json()).toEqual({ name: 'Acme', accentColor: null, logoUrl: null });
    // Another partner's branding is its own.
    const read = await signedFetch(t, other, { path: '/v3/checkout/branding' });
    expect(await read.json()).toEqual({ name: null, accentColor: null, logoUrl: null });
  });

  it('refuses what would make the page unreadable or unsafe, changing nothing', async () => {
    await setBranding(other, { name: 'Before' });
    const before = await snapshot(t);
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const cases: [unknown, string, string][] = [
      [{ accentColor: '#ffcc00' }, 'accentColor', 'validation.lowContrast'],
      [{ accentColor: 'blue' }, 'accentColor', 'validation.invalidValue'],
      [{ name: 'Fine', accentColor: '#eeeeee' }, 'accentColor', 'validation.lowContrast'],
      [{ logo: svg.toString('base64') }, 'logo', 'validation.logoType'],
      [{ logo: Buffer.from('GIF89a....').toString('base64') }, 'logo', 'validation.logoType'],
      [{ logo: 'not base64!' }, 'logo', 'validation.invalidValue'],
      [
        { logo: Buffer.concat([LOGO, Buffer.alloc(256 * 1024)]).toString('base64') },
        'logo',
        'validation.logoTooLarge',
      ],
      [{ name: '' }, 'name', 'validation.invalidValue'],
      [{ name: 'x'.repeat(81) }, 'name', 'validation.invalidValue'],
    ];
    for (const [body, field, errorCode] of cases) {
      await expectEnvelopeResponse(await setBranding(other, body), 400, 'ValidationException', {
        problematicField: field,
        errorCode,
      });
    }
    const low = (await (await setBranding(other, { accentColor: '#ffcc00' })).json()) as { message: string };
    expect(low.message).toMatch(/contrast of 1\.\d+:1 with white; at least 4\.5:1/);
    expect(await snapshot(t)).toEqual(before);
  });
});

describe('operator', () => {
  it('sets a master account’s branding, audited; an unknown account is 404', async () => {
    const response = await fetch(`${t.baseUrl}/operator/v1/accounts/${other.accountId}/checkout-branding`, {
      method: 'POST',
      headers: operatorHeaders(),
      body: JSON.stringify({ name: 'Other Pay', accentColor: '#14532d' }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ name: 'Other Pay', accentColor: '#14532d' });
    const { rows } = await t.ctx.db.query<{ target: string }>(
      `SELECT target FROM operator_audit WHERE action LIKE '%checkout-branding%' AND outcome = 'ok'`,
    );
    expect(rows.map((row) => row.target)).toContain(other.accountId);
    const unknown = await fetch(`${t.baseUrl}/operator/v1/accounts/AC_NOPE/checkout-branding`, {
      headers: operatorHeaders(),
    });
    expect(unknown.status).toBe(404);
    const noToken = await fetch(`${t.baseUrl}/operator/v1/accounts/${other.accountId}/checkout-branding`);
    expect(noToken.status).toBe(401);
  });
});
