import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorHeaders, startTestApp, type TestApp } from '../helpers/app.ts';
import { snapshotTables } from '../helpers/db.ts';
import { expectEnvelope } from '../helpers/http.ts';
import { createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import { lockedBody } from '../orders/support.ts';
import { asUser, TRANSFER_FIELDS, US_BANK_ACCOUNT } from '../users/support.ts';
import { lockedReservation, orderBody } from '../wallet-orders/support.ts';

/**
 * Every way partner B could reach partner A's things (issue 9, security battery): A's ids in
 * the path, in the query, in the body and through masqueradeAs. Each attempt is refused with the
 * envelope (401/403/404: never a hint of what exists beyond that) and changes nothing.
 */
interface Owned {
  accountId: string;
  subaccountId: string;
  userId: string;
  reservationId: string;
  transferId: string;
  subscriptionId: string;
  paymentMethodId: string;
  orderId: string;
  /** A wallet of A's user, holding money. */
  wallet: { id: string; srn: string; name: string };
  /** A rate-locked reservation of A's that is still unused, with its exact total. */
  freshReservation: { reservation: string; amount: string };
}

interface Attempt {
  name: string;
  method: string;
  path: string;
  body?: unknown;
  /** B acts as this SRN (masqueradeAs), which belongs to A. */
  masqueradeAs?: string;
  /** A non-JSON body (document uploads). */
  raw?: { bytes: Buffer; contentType: string };
}

let t: TestApp;
let a: PartnerCredentials;
let b: PartnerCredentials;
let owned: Owned;
let bUserId: string;

async function ok<T>(response: Response): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as T;
}

async function approvedUser(partner: PartnerCredentials) {
  const user = await ok<{ id: string }>(
    await signedFetch(t, partner, {
      method: 'POST',
      path: '/v3/users',
      body: JSON.stringify({ fields: TRANSFER_FIELDS }),
    }),
  );
  return user.id;
}

async function credit(owner: string, amount: string) {
  await ok(
    await fetch(`${t.baseUrl}/operator/v1/ledger/credits`, {
      method: 'POST',
      headers: { ...operatorHeaders(), 'content-type': 'application/json' },
      body: JSON.stringify({ owner, currency: 'USD', amount }),
    }),
  );
}

async function ownedBy(partner: PartnerCredentials): Promise<Owned> {
  const sub = await ok<{ id: string }>(
    await signedFetch(t, partner, {
      method: 'POST',
      path: '/v3/accounts',
      body: JSON.stringify({ type: 'INDIVIDUAL', country: 'US', subaccount: true }),
    }),
  );
  const userId = await approvedUser(partner);
  await credit(`user:${userId}`, '500');
  const reservation = await ok<{ reservation: string }>(
    await signedFetch(t, partner, {
      method: 'POST',
      path: '/v3/orders/reserve',
      body: JSON.stringify(lockedBody(partner)),
    }),
  );
  const transfer = await ok<{ id: string }>(
    await asUser(t, partner, userId, 'POST', '/v3/transfers', {
      source: `user:${userId}`,
      sourceCurrency: 'USD',
      sourceAmount: '10',
      dest: `account:${partner.accountId}`,
      destCurrency: 'USD',
    }),
  );
  const subscription = await ok<{ id: string }>(
    await signedFetch(t, partner, {
      method: 'POST',
      path: '/v3/subscriptions',
      body: JSON.stringify({
        subscribeTo: `account:${partner.accountId}`,
        notifyTarget: 'http://127.0.0.1:9/hook',
      }),
    }),
  );
  const paymentMethod = await ok<{ id: string }>(
    await asUser(t, partner, userId, 'POST', '/v2/paymentMethods', {
      ...US_BANK_ACCOUNT,
      firstNameOnAccount: 'Deandre',
      lastNameOnAccount: 'Reynolds',
    }),
  );
  const wallet = await ok<{ id: string; srn: string; name: string }>(
    await asUser(t, partner, userId, 'POST', '/v2/wallets', { name: 'savings' }),
  );
  await credit(wallet.srn, '50');
  const paid = await lockedReservation(t, partner);
  const order = await ok<{ id: string }>(
    await signedFetch(t, partner, {
      method: 'POST',
      path: '/v3/debitcard/process/partner',
      body: JSON.stringify(orderBody(partner, paid.reservation, paid.amount)),
    }),
  );
  return {
    orderId: order.id,
    freshReservation: await lockedReservation(t, partner),
    accountId: partner.accountId,
    subaccountId: sub.id,
    userId,
    reservationId: reservation.reservation,
    transferId: transfer.id,
    subscriptionId: subscription.id,
    paymentMethodId: paymentMethod.id,
    wallet,
  };
}

beforeAll(async () => {
  t = await startTestApp();
  a = await createPartner(t, { usersApi: true, name: 'A' });
  b = await createPartner(t, { usersApi: true, name: 'B' });
  owned = await ownedBy(a);
  bUserId = await approvedUser(b);
  await credit(`user:${bUserId}`, '500');
}, 60_000);
afterAll(async () => t.close());

/** A confirmed transfer of 1 USD: what B would send to move A's money to itself. */
const oneDollar = (source: string, dest: string) => ({
  source,
  sourceCurrency: 'USD',
  sourceAmount: '1',
  dest,
  destCurrency: 'USD',
  autoConfirm: true,
});

function attempts(): Attempt[] {
  const userPath = `/v3/users/${owned.userId}`;
  const asAUser = `user:${owned.userId}`;
  return [
    // Path
    { name: "read A's account", method: 'GET', path: `/v3/accounts/${owned.accountId}` },
    { name: "read A's sub-account", method: 'GET', path: `/v3/accounts/${owned.subaccountId}` },
    {
      name: "update A's sub-account",
      method: 'POST',
      path: `/v3/accounts/${owned.subaccountId}`,
      body: { profileFields: [{ fieldId: 'individualLegalName', value: 'Mallory' }] },
    },
    { name: "read A's user", method: 'GET', path: userPath, masqueradeAs: `user:${bUserId}` },
    { name: "read A's reservation", method: 'GET', path: `/v3/orders/reservation/${owned.reservationId}` },
    { name: "read A's transfer", method: 'GET', path: `/v3/transfers/${owned.transferId}` },
    {
      name: "confirm A's transfer",
      method: 'POST',
      path: `/v3/transfers/${owned.transferId}/confirm`,
      body: {},
    },
    { name: "delete A's subscription", method: 'DELETE', path: `/v3/subscriptions/${owned.subscriptionId}` },
    {
      name: "read A's payment method",
      method: 'GET',
      path: `/v2/paymentMethod/${owned.paymentMethodId}`,
      masqueradeAs: `user:${bUserId}`,
    },
    {
      name: "delete A's payment method",
      method: 'DELETE',
      path: `/v2/paymentMethod/${owned.paymentMethodId}`,
      masqueradeAs: `user:${bUserId}`,
    },
    // Masquerade
    { name: "masquerade as A's user to read it", method: 'GET', path: userPath, masqueradeAs: asAUser },
    {
      name: "masquerade as A's user to update it",
      method: 'POST',
      path: userPath,
      body: { fields: { firstName: 'Mallory' } },
      masqueradeAs: asAUser,
    },
    {
      name: "masquerade as A's user to list payment methods",
      method: 'GET',
      path: '/v2/paymentMethods',
      masqueradeAs: asAUser,
    },
    {
      name: "masquerade as A's user to read its onboarding link",
      method: 'GET',
      path: `${userPath}/onboarding`,
      masqueradeAs: asAUser,
    },
    {
      name: "masquerade as A's sub-account",
      method: 'GET',
      path: `/v3/accounts/${owned.subaccountId}`,
      masqueradeAs: owned.subaccountId,
    },
    {
      name: "masquerade as A's master account",
      method: 'GET',
      path: `/v3/accounts/${owned.accountId}`,
      masqueradeAs: `account:${owned.accountId}`,
    },
    {
      name: "masquerade as A's user to move its money",
      method: 'POST',
      path: '/v3/transfers',
      body: oneDollar(asAUser, `user:${bUserId}`),
      masqueradeAs: asAUser,
    },
    // Body
    {
      name: "transfer out of A's user as B's user",
      method: 'POST',
      path: '/v3/transfers',
      body: oneDollar(asAUser, `user:${bUserId}`),
      masqueradeAs: `user:${bUserId}`,
    },
    {
      name: "transfer out of A's account as partner B",
      method: 'POST',
      path: '/v3/transfers',
      body: oneDollar(`account:${owned.accountId}`, `account:${b.accountId}`),
    },
    {
      name: "subscribe to A's account",
      method: 'POST',
      path: '/v3/subscriptions',
      body: { subscribeTo: `account:${owned.accountId}`, notifyTarget: 'http://127.0.0.1:9/b' },
    },
    {
      name: "subscribe to A's transfer",
      method: 'POST',
      path: '/v3/subscriptions',
      body: { subscribeTo: `transfer:${owned.transferId}`, notifyTarget: 'http://127.0.0.1:9/b' },
    },
    {
      name: "reserve on A's behalf (referrerAccountId)",
      method: 'POST',
      path: '/v3/orders/reserve',
      body: lockedBody(b, { referrerAccountId: owned.accountId }),
    },
    { name: "read A's wallet order", method: 'GET', path: `/v3/orders/${owned.orderId}` },
    { name: "read A's wallet order in full", method: 'GET', path: `/v3/orders/${owned.orderId}/full` },
    {
      name: "read A's order authorization with redirection",
      method: 'GET',
      path: `/v3/debitcard/authorization/${owned.orderId}/with-redirection`,
    },
    {
      name: "upload a document to A's sub-account",
      method: 'POST',
      path: `/v3/accounts/${owned.subaccountId}/individualGovernmentId?documentType=PASSPORT`,
      raw: { bytes: Buffer.from('%PDF-1.4\n%%EOF\n'), contentType: 'application/pdf' },
    },
    {
      name: "read A's order authorization",
      method: 'GET',
      path: `/v3/debitcard/authorization/${owned.orderId}`,
    },
    {
      name: "authorize A's order",
      method: 'POST',
      path: '/v3/debitcard/authorize/partner',
      body: {
        type: 'ALL',
        walletOrderId: owned.orderId,
        reservation: owned.freshReservation.reservation,
        sms: '000000',
        card2fa: '000000',
      },
    },
    {
      name: "pay with A's reservation",
      method: 'POST',
      path: '/v3/debitcard/process/partner',
      body: orderBody(b, owned.freshReservation.reservation, owned.freshReservation.amount),
    },
    {
      name: "set the wallet-order webhook of A's account",
      method: 'POST',
      path: '/v2/digitalwallet/webhook',
      body: { owner: `account:${owned.accountId}`, webhook: 'http://127.0.0.1:9/b' },
    },
    {
      name: "upload a document to A's user",
      method: 'POST',
      path: `${userPath}/individualGovernmentId?docType=GOVT_ID`,
      masqueradeAs: asAUser,
      raw: { bytes: Buffer.from('%PDF-1.4\n%%EOF\n'), contentType: 'application/pdf' },
    },
    // Wallets
    { name: "read A's wallet", method: 'GET', path: `/v2/wallet/${owned.wallet.id}` },
    {
      name: "update A's wallet",
      method: 'POST',
      path: `/v2/wallet/${owned.wallet.id}/update`,
      body: { notes: 'Mallory was here' },
    },
    { name: "delete A's wallet", method: 'DELETE', path: `/v2/wallet/${owned.wallet.id}` },
    {
      name: "find A's wallet by name as A's user",
      method: 'GET',
      path: `/v2/wallet?name=${owned.wallet.name}`,
      masqueradeAs: asAUser,
    },
    {
      name: "transfer out of A's wallet as partner B",
      method: 'POST',
      path: '/v3/transfers',
      body: oneDollar(owned.wallet.srn, `account:${b.accountId}`),
    },
    {
      name: "transfer out of A's wallet with the v2 path",
      method: 'POST',
      path: '/v2/transfers',
      body: oneDollar(owned.wallet.srn, `user:${bUserId}`),
      masqueradeAs: `user:${bUserId}`,
    },
    { name: "read A's transfer with the v2 path", method: 'GET', path: `/v2/transfer/${owned.transferId}` },
    { name: "read A's legacy account", method: 'GET', path: `/v2/account/${owned.subaccountId}` },
    // Query
    { name: "list transfers as A's user", method: 'GET', path: '/v3/transfers', masqueradeAs: asAUser },
    { name: "list wallets as A's user", method: 'GET', path: '/v2/wallets', masqueradeAs: asAUser },
  ];
}

function withMasquerade(path: string, srn: string | undefined) {
  if (!srn) return path;
  return `${path}${path.includes('?') ? '&' : '?'}masqueradeAs=${encodeURIComponent(srn)}`;
}

describe("partner B against partner A's resources", () => {
  it('is refused every time with the envelope, changing nothing', async () => {
    const ignore = ['operator_audit', 'signature_replays', 'access_audit'];
    const before = await snapshotTables(t.database.db, ignore);
    const leaks: string[] = [];
    for (const attempt of attempts()) {
      const response = await signedFetch(t, b, {
        method: attempt.method,
        path: withMasquerade(attempt.path, attempt.masqueradeAs),
        ...(attempt.body !== undefined ? { body: JSON.stringify(attempt.body) } : {}),
        ...(attempt.raw ? { body: attempt.raw.bytes, contentType: attempt.raw.contentType } : {}),
      });
      const text = await response.text();
      // A body field naming A's resource may be refused as that field's error (400 naming it),
      // exactly as an id that does not exist would be: no hint that it exists elsewhere.
      const fieldRefusal =
        response.status === 400 && attempt.body !== undefined && text.includes('problematicField');
      if (![401, 403, 404].includes(response.status) && !fieldRefusal) {
        leaks.push(`${attempt.name}: ${response.status} ${text.slice(0, 200)}`);
        continue;
      }
      const envelope = JSON.parse(text) as { type: string };
      expectEnvelope(envelope, envelope.type);
      // A refusal names no detail of A's resource.
      expect(text, attempt.name).not.toContain('Deandre');
    }
    expect(leaks).toEqual([]);
    expect(await snapshotTables(t.database.db, ignore)).toEqual(before);
  });

  it("lists none of A's things in B's lists", async () => {
    const lists = ['/v3/transfers', '/v3/subscriptions'];
    for (const path of lists) {
      const text = await (await signedFetch(t, b, { path })).text();
      for (const id of Object.values(owned)) expect(text, path).not.toContain(id);
    }
    const asBUser = await (await asUser(t, b, bUserId, 'GET', '/v3/transfers')).text();
    expect(asBUser).not.toContain(owned.transferId);
  });
});
