import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AccessDeniedException,
  createDecentralizedSession,
  FieldRequiredException,
  IdempotencyConflictException,
  NotFoundException,
  RampartClient,
  UnsupportedMediaTypeException,
  ValidationException,
} from '../../sdk/src/index.js';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import { lockedBody } from '../orders/support.ts';
import { PNG } from '../users/fixtures.ts';
import { TRANSFER_FIELDS, US_BANK_ACCOUNT } from '../users/support.ts';

/** The SDK against a real Rampart: every request is built, signed and sent by the SDK itself. */
let t: TestApp;
let partner: PartnerCredentials;
let signed: RampartClient;
/** Raw bodies of the answers, to compare the SDK's amounts with the exact text sent. */
const rawAnswers: string[] = [];

beforeAll(async () => {
  t = await startTestApp();
  partner = await createPartner(t, { usersApi: true });
  signed = new RampartClient({
    baseUrl: t.baseUrl,
    auth: { type: 'signature', apiKey: partner.apiKey, secretKey: partner.secretKey },
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      rawAnswers.push(await response.clone().text());
      return response;
    },
  });
});

afterAll(async () => t?.close());

describe('SDK against the server: authentication', () => {
  it('signs requests the server accepts, including identical ones in the same instant', async () => {
    const reads = await Promise.all([1, 2, 3].map(() => signed.accounts.get(partner.accountId)));
    for (const account of reads) expect(account.id).toBe(partner.accountId);
  });

  it('authenticates with a bearer secret', async () => {
    const bearer = new RampartClient({
      baseUrl: t.baseUrl,
      auth: { type: 'bearer', token: partner.secretKey },
    });
    expect((await bearer.accounts.get(partner.accountId)).id).toBe(partner.accountId);
  });

  it('surfaces bad credentials as AccessDeniedException 401', async () => {
    const wrong = new RampartClient({
      baseUrl: t.baseUrl,
      auth: { type: 'signature', apiKey: partner.apiKey, secretKey: `${partner.secretKey}x` },
    });
    const error = await wrong.accounts.get(partner.accountId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AccessDeniedException);
    expect(error).toMatchObject({ status: 401 });
    expect((error as AccessDeniedException).exceptionId).toMatch(/^test_/);
  });

  it('creates and deletes an API key; the new key signs, the deleted one no longer does', async () => {
    const key = await signed.apiKeys.create({ desc: 'sdk test', type: 'READONLY' });
    expect(key).toMatchObject({ type: 'READONLY', desc: 'sdk test', owner: `account:${partner.accountId}` });
    const readOnly = new RampartClient({
      baseUrl: t.baseUrl,
      auth: { type: 'signature', apiKey: key.apiKey, secretKey: key.secretKey },
    });
    expect((await readOnly.accounts.get(partner.accountId)).id).toBe(partner.accountId);
    await signed.apiKeys.delete(key.apiKey);
    await expect(readOnly.accounts.get(partner.accountId)).rejects.toBeInstanceOf(AccessDeniedException);
  });

  it('runs a decentralized session: CSPRNG secret, account, bearer and signed calls', async () => {
    const session = await createDecentralizedSession({ baseUrl: t.baseUrl });
    expect(session.secretKey).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(session.authenticatedAs).toBeNull();
    await expect(session.client.accounts.get(partner.accountId)).rejects.toMatchObject({
      errorCode: 'accessDenied.noAccount',
    });
    const account = await session.client.accounts.create({ country: 'US' });
    expect((await session.signingClient.accounts.get(account.id)).id).toBe(account.id);
    const again = await session.client.accounts.create({ country: 'US' }).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ValidationException);
    expect(again).toMatchObject({ errorCode: 'validation.accountAlreadyExists' });
  });
});

describe('SDK against the server: masquerading', () => {
  it('acts for a sub-account through the signed masqueradeAs parameter', async () => {
    const sub = await signed.accounts.create({ country: 'US', subaccount: true });
    const asSub = signed.masquerade(sub.id);
    expect((await asSub.accounts.get(sub.id)).id).toBe(sub.id);
    const updated = await asSub.accounts.update(sub.id, {
      profileFields: [{ fieldId: 'individualLegalName', value: 'Ada Lovelace' }],
    });
    expect(updated.profileFields.find((f) => f.fieldId === 'individualLegalName')?.value).toBe(
      'Ada Lovelace',
    );
  });

  it('runs the Users API: create, read, update, binary upload, onboarding link, payment methods', async () => {
    const user = await signed.users.create({ fields: TRANSFER_FIELDS, scopes: ['TRANSFER'] });
    expect(user.id).toMatch(/^US_/);
    expect((await signed.users.get(user.id, { scopes: ['TRANSFER'] })).scopes.TRANSFER?.status).toBe(
      'APPROVED',
    );
    const asUser = signed.masquerade(`user:${user.id}`);
    const updated = await asUser.users.update(user.id, { fields: { email: 'ada@example.com' } });
    expect(updated.fields.email?.status).toBe('SUBMITTED');

    await signed.users.uploadDocument(user.id, 'governmentIdFront', {
      docType: 'PASSPORT',
      contentType: 'image/png',
      data: PNG,
    });
    const afterUpload = await signed.users.get(user.id);
    expect(afterUpload.fields.governmentIdFront?.status).toBe('SUBMITTED');
    const bad = await signed.users
      .uploadDocument(user.id, 'governmentIdFront', {
        docType: 'PASSPORT',
        contentType: 'text/plain',
        data: PNG,
      })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(UnsupportedMediaTypeException);

    const link = await signed.users.onboardingLink(user.id);
    expect(link.verificationLinkUrl).toContain('/onboarding/');

    const method = await asUser.paymentMethods.create(US_BANK_ACCOUNT);
    expect((await asUser.paymentMethods.get(method.id)).last4Digits).toBe('6789');
    const page = await asUser.paymentMethods.list({ limit: 10 });
    expect(page.data.map((m) => m.id)).toEqual([method.id]);
    expect((await asUser.paymentMethods.delete(method.id)).status).toBe('DISABLED');
  });

  it('is refused when the masquerade target is not the caller’s', async () => {
    const other = await createPartner(t, { name: 'Other partner' });
    const error = await signed
      .masquerade(other.accountId)
      .accounts.get(other.accountId)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AccessDeniedException);
    expect(error).toMatchObject({ status: 403 });
  });
});

describe('SDK against the server: orders, amounts, idempotency, errors', () => {
  it('reads rates without credentials, every value an exact decimal string', async () => {
    const anonymous = new RampartClient({ baseUrl: t.baseUrl });
    const divisor = await anonymous.rates.get();
    expect(typeof divisor.USDBTC).toBe('string');
    const priced = await anonymous.rates.get({ as: 'PRICED' });
    expect(priced.BTCUSD).toMatchObject({ BTC: expect.any(String), USD: expect.any(String) });
  });

  it('returns quote amounts digit for digit as the server wrote them', async () => {
    rawAnswers.length = 0;
    const quote = await signed.orders.quote({
      sourceAmount: '100',
      amountIncludeFees: true,
      sourceCurrency: 'USD',
      destCurrency: 'ETH',
      country: 'US',
    });
    const raw = rawAnswers.at(-1) ?? '';
    for (const field of ['sourceAmount', 'sourceAmountWithoutFees', 'destAmount', 'exchangeRate'] as const) {
      expect(raw).toContain(`"${field}":${quote[field]}`);
    }
    // The rate has 18 significant digits: a double (JSON.parse) could not have kept it.
    expect(String(Number(quote.exchangeRate))).not.toBe(quote.exchangeRate);
    expect(quote.fees.ETH).toMatch(/^\d+(\.\d+)?$/);
    expect(raw).toContain(`"ETH":${quote.fees.ETH}`);
  });

  it('reserves and reads back a rate-locked reservation', async () => {
    const reserved = await signed.orders.reserve(lockedBody(partner));
    const reservation = await signed.orders.getReservation(reserved.reservation);
    expect(reservation.quoteLockRequest).toBe(true);
    expect(reservation.sourceAmount).toBe('100');
    expect(typeof reservation.expiresAt).toBe('number');
  });

  it('replays the first answer for a reused Idempotency-Key, and refuses it for another body', async () => {
    const first = await signed.orders.reserve(lockedBody(partner), { idempotencyKey: 'sdk-order-1' });
    const again = await signed.orders.reserve(lockedBody(partner), { idempotencyKey: 'sdk-order-1' });
    expect(again.reservation).toBe(first.reservation);
    const other = await signed.orders
      .reserve(lockedBody(partner, { sourceAmount: '101' }), { idempotencyKey: 'sdk-order-1' })
      .catch((e: unknown) => e);
    expect(other).toBeInstanceOf(IdempotencyConflictException);
    expect(other).toMatchObject({ status: 422 });
    const fresh = await signed.orders.reserve(lockedBody(partner));
    expect(fresh.reservation).not.toBe(first.reservation);
  });

  it('turns envelopes into typed errors with errorCode and problematicField', async () => {
    const missing = await signed.orders
      .reserve({ sourceAmount: '100', sourceCurrency: 'USD' })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(FieldRequiredException);
    expect(missing).toMatchObject({ status: 400, errorCode: 'validation.fieldRequired' });
    expect((missing as FieldRequiredException).problematicField).toBeTruthy();

    const invalid = await signed.accounts
      .create({ country: 'usa', subaccount: true })
      .catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ValidationException);
    expect(invalid).toMatchObject({ problematicField: 'country', transient: false });

    const unknown = await signed.orders.getReservation('ABCDEFGHJKLMNPQRSTUV').catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(NotFoundException);
    expect(unknown).toMatchObject({ status: 404 });
  });

  it('rejects with the abort reason when the caller aborts', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled by caller'));
    await expect(signed.accounts.get(partner.accountId, { signal: controller.signal })).rejects.toThrow(
      'cancelled by caller',
    );
  });
});
