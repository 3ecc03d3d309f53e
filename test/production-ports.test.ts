import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeCards } from '../src/cards/service.ts';
import { chainSendsAvailable } from '../src/chains/port.ts';
import { Money } from '../src/platform/money.ts';
import { assignDepositAddresses } from '../src/users/deposit-addresses.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';

/**
 * What production is wired with while no real system is configured (compose.ts portsFor): each
 * outside system refuses or waits, and none pretends, so nothing is charged, sent or verified
 * that did not happen.
 */

let prod: TestApp;
beforeAll(async () => {
  prod = await startTestApp({ env: { RAMPART_ENV: 'production' } });
});
afterAll(async () => prod.close());

const request = {
  orderId: 'WO_AAAAAAAAAAA',
  card: { pan: '4111111111111111', bin: '411111', last4: '1111', month: 1, year: 2030, cvv: '123' },
  fingerprint: 'f',
  amount: new Money(100),
  currency: 'USD',
  billing: { street1: '1 Main St', postalCode: '97209', country: 'US' },
  nowMs: Date.now(),
};

describe('production without real outside systems', () => {
  it('refuses to authorise a card: 503 card.noProcessor, not transient', async () => {
    const authorizing = authorizeCards(prod.ctx, prod.database.db, [request as never], 1000);
    await expect(authorizing).rejects.toMatchObject({
      status: 503,
      errorCode: 'card.noProcessor',
      transient: false,
    });
  });

  it('has no chain backend: payouts unavailable, deposit addresses refused', async () => {
    for (const chain of ['ethereum', 'matic', 'avalanche', 'bitcoin'] as const) {
      expect(chainSendsAvailable(prod.ctx, chain)).toBe(false);
    }
    const assigning = assignDepositAddresses(prod.ctx, prod.database.db, 'AC_AAAAAAAAAAA', 'user:US_X', [
      'ETH',
    ]);
    await expect(assigning).rejects.toMatchObject({
      status: 400,
      errorCode: 'validation.unsupportedBlockchain',
    });
    expect((await prod.database.db.query('SELECT 1 FROM deposit_addresses')).rowCount).toBe(0);
  });

  it('delivers no code (an order needing one is refused) and draws random six-digit codes, never the sandbox one', () => {
    expect(prod.ctx.codeSender.delivers).toEqual([]);
    expect(prod.ctx.codeSender.channel).toBeUndefined();
    const codes = Array.from({ length: 20 }, () => prod.ctx.codeSender.issue('WO_AAAAAAAAAAA', 'SMS'));
    for (const code of codes) expect(code).toMatch(/^\d{6}$/);
    expect(new Set(codes).size).toBeGreaterThan(1);
  });

  it('verifies no bank account, sends submissions to operator review and has no movable clock', () => {
    expect(prod.ctx.bankAccounts).toBeUndefined();
    expect(prod.ctx.bankTransfers.rail).toBeUndefined();
    expect(prod.ctx.identityCheck.onSubmission()).toBe('SUBMITTED');
    expect(prod.ctx.sandboxClock).toBeUndefined();
    expect(prod.ctx.exceptionIdPrefix).toBe('');
    expect(prod.ctx.callbackUrls).toEqual({ allowLoopback: false, schemes: ['https:'] });
  });
});
