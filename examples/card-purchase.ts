/**
 * Example (b): a rate-locked purchase completed through white-label card processing: check the
 * buyer's limits, reserve (the quote is locked for 15 minutes), charge a debit card that asks for
 * SMS and card 2FA codes, submit the codes and follow the order until the crypto is delivered.
 *
 *   node --conditions=rampart-source --import tsx examples/card-purchase.ts
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { WalletOrder } from '@rampart/sdk';
import { partnerClient, requireEnv } from './sandbox-env.ts';

// The sandbox card that asks for both codes; docs/sandbox-cards.md lists the others.
const CARD = { number: '4000000000001018', year: '2030', month: '01', cvv: '123' };
// In sandbox both codes are always 000000; in production the buyer reads them from an SMS and
// from the card statement.
const SANDBOX_CODE = '000000';
const BILLING = {
  street1: '123 Test Ave',
  city: 'Portland',
  state: 'OR',
  postalCode: '97209',
  country: 'US',
};
const WALLET = 'ethereum:0xBB9bc244D798123fDe783fCc1C72d3Bb8C189413';

async function main() {
  const rampart = partnerClient();
  const accountId = requireEnv('RAMPART_ACCOUNT_ID');

  // #region limits
  const limits = await rampart.widget.calculateLimits({
    accountId,
    address: BILLING,
    walletType: 'DEBIT_CARD',
  });
  console.log(`limits: ${limits.dailyRemaining} of ${limits.dailyTotal} USD left today`);
  // #endregion limits

  // #region reserve
  const { reservation, url } = await rampart.orders.reserve({
    sourceAmount: '25',
    amountIncludeFees: false,
    paymentMethod: 'debit-card',
    sourceCurrency: 'USD',
    destCurrency: 'ETH',
    dest: WALLET,
    referrerAccountId: accountId,
    country: 'US',
  });
  const { quote, expiresAt } = await rampart.orders.getReservation(reservation);
  if (!quote) throw new Error('a reservation with sourceAmount is always rate-locked');
  console.log(`reserved ${reservation}: ${quote.destAmount} ETH for ${quote.sourceAmount} USD`);
  console.log(`locked until ${new Date(expiresAt).toISOString()}; hosted checkout: ${url}`);
  // #endregion reserve

  // #region process
  const order = await rampart.cards.process({
    debitCard: CARD,
    reservationId: reservation,
    amount: quote.sourceAmount, // the quote's total, fees included
    sourceCurrency: 'USD',
    destCurrency: 'ETH',
    dest: WALLET,
    referrerAccountId: accountId,
    givenName: 'Ada',
    familyName: 'Lovelace',
    email: 'ada@example.com',
    phone: '+14155550100',
    address: BILLING,
    ipAddress: '203.0.113.7',
  });
  console.log(`order ${order.id}: ${order.status}, codes requested: ${order.authCodesRequested}`);
  // #endregion process

  // #region codes
  const needs = await rampart.cards.authorization(order.id);
  console.log(`authorization: sms ${needs.smsNeeded}, card2fa ${needs.card2faNeeded}`);
  if (needs.smsNeeded || needs.card2faNeeded) {
    const result = await rampart.cards.authorize({
      type: needs.smsNeeded && needs.card2faNeeded ? 'ALL' : needs.smsNeeded ? 'SMS' : 'CARD2FA',
      walletOrderId: order.id,
      reservation,
      ...(needs.smsNeeded ? { sms: SANDBOX_CODE } : {}),
      ...(needs.card2faNeeded ? { card2fa: SANDBOX_CODE } : {}),
    });
    console.log(`codes accepted: ${result.success}`);
  }
  // #endregion codes

  // #region follow
  // RUNNING_CHECKS → PROCESSING → COMPLETE (or FAILED). A webhook set with
  // rampart.orders.setWebhook() tells a server the same without polling.
  let current: WalletOrder = order;
  for (let i = 0; i < 60 && (current.status === 'RUNNING_CHECKS' || current.status === 'PROCESSING'); i++) {
    await sleep(500);
    current = await rampart.orders.get(order.id);
  }
  console.log(`order ${current.id}: ${current.status}, transfer ${current.transferId}`);
  if (current.status !== 'COMPLETE')
    throw new Error(`order ended ${current.status}: ${current.errorMessage}`);
  // #endregion follow
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
