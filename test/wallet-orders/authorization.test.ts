import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import { CARDS, orderWithCard, postSigned, readOrder, startCardOrderApp, workerFor } from './support.ts';

let t: TestApp;
let partner: PartnerCredentials;

beforeAll(async () => {
  ({ t, partner } = await startCardOrderApp());
});
afterAll(async () => t.close());

async function orderWith(number: string, extra: Record<string, unknown> = {}) {
  const created = await orderWithCard(t, partner, number, extra);
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return { orderId: String(created.body.id), reservation: created.reservation, order: created.body };
}

const authorization = (orderId: string) =>
  signedFetch(t, partner, { path: `/v3/debitcard/authorization/${orderId}` });
const submit = (body: Record<string, unknown>) =>
  postSigned(t, partner, '/v3/debitcard/authorize/partner', body);

async function holdAndSpendOf(orderId: string) {
  const holds = await t.database.db.query('SELECT state FROM ledger_holds WHERE reference = $1', [
    `order:${orderId}`,
  ]);
  const spend = await t.database.db.query('SELECT spend_key FROM card_spend WHERE order_id = $1', [orderId]);
  return { holds: holds.rows.map((row) => row.state), spend: spend.rowCount };
}

/** What the endpoint answers while no step waits: Wyre clients poll it right after creating the order. */
const nothingAsked = (orderId: string) => ({
  walletOrderId: orderId,
  smsNeeded: false,
  card2faNeeded: false,
  authorization3dsUrl: null,
});

async function noStepAnswer(orderId: string) {
  const answer = await authorization(orderId);
  expect(answer.status).toBe(200);
  return answer.json();
}

describe('polling GET /v3/debitcard/authorization/{orderId} while no step waits', () => {
  it('answers 200 with nothing asked while the checks run, and once the order is COMPLETE', async () => {
    const { orderId } = await orderWith(CARDS.approve);
    expect((await readOrder(t, partner, orderId)).status).toBe('RUNNING_CHECKS');
    expect(await noStepAnswer(orderId)).toEqual(nothingAsked(orderId));
    await workerFor(t).drain();
    expect((await readOrder(t, partner, orderId)).status).toBe('COMPLETE');
    expect(await noStepAnswer(orderId)).toEqual(nothingAsked(orderId));
  });

  it('answers 200 with nothing asked once the order FAILED; an unknown order is 404', async () => {
    const { orderId, reservation } = await orderWith(CARDS.codes);
    t.ctx.clock.setOffsetMs(t.ctx.clock.currentOffsetMs() + 10 * 60 * 1000 + 1000);
    // The expired step fails the order as this very read looks at it.
    expect(await noStepAnswer(orderId)).toEqual(nothingAsked(orderId));
    expect(await readOrder(t, partner, orderId)).toMatchObject({ status: 'FAILED' });
    const late = await submit({
      type: 'ALL',
      walletOrderId: orderId,
      reservation,
      sms: '000000',
      card2fa: '000000',
    });
    expect(await late.json()).toMatchObject({
      errorCode: 'validation.orderAuthorizationDetailsNotAvailable',
    });
    const unknown = await authorization('WO_ABCDEFGHJKL');
    expect(unknown.status).toBe(404);
  });
});

describe('SMS and CARD2FA codes', () => {
  it('asks for both codes and proceeds once both match (sandbox code 000000)', async () => {
    const { orderId, reservation, order } = await orderWith(CARDS.codes);
    expect(order.authCodesRequested).toBe(true);
    const state = await authorization(orderId);
    expect(await state.json()).toEqual({
      walletOrderId: orderId,
      smsNeeded: true,
      card2faNeeded: true,
      authorization3dsUrl: null,
    });
    await workerFor(t).drain();
    expect((await readOrder(t, partner, orderId)).status).toBe('RUNNING_CHECKS');
    const sms = await submit({ type: 'SMS', walletOrderId: orderId, reservation, sms: '000000' });
    expect(await sms.json()).toEqual({ walletOrderId: orderId, success: true });
    expect(await (await authorization(orderId)).json()).toMatchObject({
      smsNeeded: false,
      card2faNeeded: true,
    });
    const card2fa = await submit({ type: 'CARD2FA', walletOrderId: orderId, reservation, card2fa: '000000' });
    expect(card2fa.status).toBe(200);
    await workerFor(t).drain();
    expect((await readOrder(t, partner, orderId)).status).toBe('COMPLETE');
    expect(await noStepAnswer(orderId)).toEqual(nothingAsked(orderId));
  });

  it('counts wrong codes and fails the order on the fifth, releasing hold and spend', async () => {
    const { orderId, reservation } = await orderWith(CARDS.codes);
    for (let attempt = 1; attempt <= 4; attempt++) {
      const wrong = await submit({
        type: 'ALL',
        walletOrderId: orderId,
        reservation,
        sms: '000000',
        card2fa: '123456',
      });
      expect(wrong.status).toBe(400);
      expect(await wrong.json()).toMatchObject({ errorCode: 'validation.authorizationCodeMismatch' });
    }
    expect((await readOrder(t, partner, orderId)).status).toBe('RUNNING_CHECKS');
    const fifth = await submit({ type: 'SMS', walletOrderId: orderId, reservation, sms: '999999' });
    expect(await fifth.json()).toMatchObject({ errorCode: 'validation.authorizationMaxAttempts' });
    const failed = await readOrder(t, partner, orderId);
    expect(failed).toMatchObject({ status: 'FAILED', errorCode: 'validation.authorizationMaxAttempts' });
    expect(await holdAndSpendOf(orderId)).toEqual({ holds: ['voided'], spend: 0 });
    const after = await submit({
      type: 'ALL',
      walletOrderId: orderId,
      reservation,
      sms: '000000',
      card2fa: '000000',
    });
    expect(await after.json()).toMatchObject({
      errorCode: 'validation.orderAuthorizationDetailsNotAvailable',
    });
  });

  it('fails the order when the codes are submitted after 10 minutes (service clock)', async () => {
    const { orderId, reservation } = await orderWith(CARDS.codes);
    t.ctx.clock.setOffsetMs(t.ctx.clock.currentOffsetMs() + 10 * 60 * 1000 + 1000);
    const late = await submit({
      type: 'ALL',
      walletOrderId: orderId,
      reservation,
      sms: '000000',
      card2fa: '000000',
    });
    expect(await late.json()).toMatchObject({ errorCode: 'validation.authorizationCodeExpired' });
    expect(await readOrder(t, partner, orderId)).toMatchObject({ status: 'FAILED' });
    expect(await holdAndSpendOf(orderId)).toEqual({ holds: ['voided'], spend: 0 });
  });

  it('refuses malformed codes and a wrong reservation without counting an attempt', async () => {
    const { orderId, reservation } = await orderWith(CARDS.codes);
    for (const body of [
      { type: 'SMS', walletOrderId: orderId, reservation, sms: '12345' },
      { type: 'SMS', walletOrderId: orderId, reservation, sms: 123456 },
      { type: 'SMS', walletOrderId: orderId, reservation },
      { type: 'CARD2FA', walletOrderId: orderId, reservation, sms: '000000' },
      { type: 'EMAIL', walletOrderId: orderId, reservation, sms: '000000' },
      { type: 'SMS', walletOrderId: orderId, reservation: 'ABCDEFGHJKLMNPQRSTUV', sms: '000000' },
    ]) {
      const answer = await submit(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
    }
    const { rows } = await t.database.db.query(
      'SELECT attempts FROM wallet_order_authorizations WHERE order_id = $1',
      [orderId],
    );
    expect(rows).toEqual([{ attempts: 0 }]);
  });
});

describe('3-D Secure on the simulated issuer page', () => {
  async function threeDsUrl(orderId: string) {
    const state = (await (await authorization(orderId)).json()) as Record<string, unknown>;
    expect(state).toMatchObject({ smsNeeded: false, card2faNeeded: false });
    return new URL(String(state.authorization3dsUrl));
  }

  it('serves a script-free page under a strict CSP and approves to a same-origin path', async () => {
    const { orderId } = await orderWith(CARDS.threeDs);
    const url = await threeDsUrl(orderId);
    expect(url.pathname).toMatch(new RegExp(`^/sandbox/3ds/${orderId}/[A-Za-z0-9_-]+$`));
    const page = await fetch(`${t.baseUrl}${url.pathname}?returnUrl=/purchase/done`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const text = await page.text();
    expect(text).not.toMatch(/<script|https?:\/\//i);
    expect(text).toContain('Visa ending 3220');
    const approve = await fetch(`${t.baseUrl}${url.pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'decision=approve&returnUrl=%2Fpurchase%2Fdone',
      redirect: 'manual',
    });
    expect(approve.status).toBe(303);
    expect(approve.headers.get('location')).toBe('/purchase/done');
    await workerFor(t).drain();
    expect((await readOrder(t, partner, orderId)).status).toBe('COMPLETE');
  });

  it('declines: the order fails with nothing held or counted', async () => {
    const { orderId } = await orderWith(CARDS.approve, { trigger3ds: true });
    const url = await threeDsUrl(orderId);
    const decline = await fetch(`${t.baseUrl}${url.pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'decision=decline',
    });
    expect(decline.status).toBe(200);
    expect(await decline.text()).toContain('declined');
    expect(await readOrder(t, partner, orderId)).toMatchObject({
      status: 'FAILED',
      errorCode: 'validation.authorization3dsDeclined',
    });
    expect(await holdAndSpendOf(orderId)).toEqual({ holds: ['voided'], spend: 0 });
  });

  it('never redirects off-site and refuses a forged token', async () => {
    const { orderId } = await orderWith(CARDS.threeDs);
    const url = await threeDsUrl(orderId);
    for (const hostile of [
      'https://evil.example/',
      '//evil.example/x',
      '/\\evil.example',
      'javascript:alert(1)',
      '/ok\r\nX: y',
    ]) {
      const answer = await fetch(`${t.baseUrl}${url.pathname}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ decision: 'approve', returnUrl: hostile }).toString(),
        redirect: 'manual',
      });
      expect(answer.status, hostile).toBe(200);
      expect(answer.headers.get('location')).toBeNull();
    }
    const forged = await fetch(`${t.baseUrl}/sandbox/3ds/${orderId}/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`);
    expect(forged.status).toBe(404);
    expect(forged.headers.get('content-type')).toContain('text/html');
  });
});
