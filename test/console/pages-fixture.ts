import { expect } from 'vitest';
import { newId } from '../../src/platform/ids.ts';
import type { TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import { PNG } from '../users/fixtures.ts';
import { asUser, createUser, TRANSFER_FIELDS } from '../users/support.ts';
import { createOrder, lockedReservation, orderBody, setLimits, workerFor } from '../wallet-orders/support.ts';
import { createWallet } from '../wallets/support.ts';

/** What the console's support pages are tested on: made through the partner API, as in life. */
export interface ConsoleData {
  partner: PartnerCredentials;
  orderId: string;
  reservationId: string;
  transferId: string;
  txHash: string;
  userId: string;
  userEmail: string;
  documentId: string;
  walletId: string;
  failedDeliveryId: string;
}

export const CONSOLE_TEST_ENV = {
  RAMPART_SANDBOX_CHAIN_DELAY_MS: '0',
  RAMPART_SANDBOX_AUTO_APPROVE: 'false',
};

export async function seedConsoleData(t: TestApp): Promise<ConsoleData> {
  const partner = await createPartner(t, { usersApi: true, name: 'Console partner' });
  await setLimits(t, partner.accountId, {
    STANDARD: { daily: '100000', weekly: '100000', yearly: '100000' },
  });
  const { reservation, amount } = await lockedReservation(t, partner);
  const created = await createOrder(
    t,
    partner,
    orderBody(partner, reservation, amount, { email: 'buyer@example.com' }),
  );
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const orderId = String(created.body.id);
  await workerFor(t).drain();
  const { rows } = await t.database.db.query<{ transfer_id: string; hash: string }>(
    `SELECT o.transfer_id, t.blockchain_tx ->> 'networkTxId' AS hash FROM wallet_orders o
     JOIN transfers t ON t.id = o.transfer_id WHERE o.id = $1`,
    [orderId],
  );
  const userEmail = 'Grace.Hopper@example.com';
  const { userId, documentId } = await pendingUserWithDocument(t, partner, userEmail);
  const wallet = await createWallet(t, partner, { name: 'console-wallet' });
  const failedDeliveryId = await insertDelivery(
    t,
    partner.accountId,
    `order:${orderId}`,
    'FAILED',
    new Date(Date.now() - 60_000),
  );
  await t.database.db.query(
    `INSERT INTO callback_attempts (delivery_id, started_at, status_code, latency_ms, error)
     VALUES ($1, now(), 500, 12, 'HTTP 500')`,
    [failedDeliveryId],
  );
  return {
    partner,
    orderId,
    reservationId: reservation,
    transferId: rows[0]!.transfer_id,
    txHash: rows[0]!.hash,
    userId,
    userEmail,
    documentId,
    walletId: (wallet as unknown as { id: string }).id,
    failedDeliveryId,
  };
}

/** A user whose TRANSFER scope awaits review, with a passport photo uploaded. */
export async function pendingUserWithDocument(
  t: TestApp,
  partner: PartnerCredentials,
  email: string,
  image: Buffer = PNG,
) {
  const user = await createUser(t, partner, { fields: { ...TRANSFER_FIELDS, email } });
  const uploaded = await asUser(
    t,
    partner,
    user.id,
    'POST',
    `/v3/users/${user.id}/governmentIdFront?docType=PASSPORT`,
    image,
    {
      contentType: 'image/png',
    },
  );
  expect(uploaded.status, await uploaded.clone().text()).toBe(204);
  const document = await t.database.db.query<{ id: string }>(
    'SELECT id FROM user_documents WHERE user_id = $1',
    [user.id],
  );
  return { userId: user.id, documentId: document.rows[0]!.id };
}

/** A delivery row as the callbacks worker leaves it (the worker itself is tested in test/callbacks). */
export async function insertDelivery(
  t: TestApp,
  partnerId: string,
  trigger: string,
  status: 'PENDING' | 'DELIVERED' | 'FAILED',
  createdAt: Date,
): Promise<string> {
  const id = newId('CB');
  await t.database.db.query(
    `INSERT INTO callback_deliveries (id, partner_id, trigger, url, body, status, attempts, max_attempts, created_at,
       last_status_code, last_error)
     VALUES ($1, $2, $3, 'https://partner.example/hooks', $4, $5, 1, 1, $6, $7, $8)`,
    [
      id,
      partnerId,
      trigger,
      JSON.stringify({ trigger, orderStatus: 'COMPLETE' }),
      status,
      createdAt,
      status === 'FAILED' ? 500 : 200,
      status === 'FAILED' ? 'HTTP 500' : null,
    ],
  );
  return id;
}
