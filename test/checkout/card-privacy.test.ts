import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { Clock } from '../../src/platform/clock.ts';
import type { AppContext } from '../../src/platform/context.ts';
import { readMigrations } from '../../src/platform/db/migrate.ts';
import { type TestApp, testConfig } from '../helpers/app.ts';
import { freshDatabase } from '../helpers/db.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import { checkoutBody, checkoutLink, postJson } from './support.ts';

/**
 * Card numbers through the checkout page never reach a log line (at trace level, every request
 * logged) or a database row, whether the card is approved, declined or malformed.
 */
const CARDS = { approved: '4000056655665556', declined: '4000000000000002', malformed: '4111111111111112' };
const CVV = '987';

let t: TestApp;
let partner: PartnerCredentials;
const lines: string[] = [];

beforeAll(async () => {
  const database = await freshDatabase();
  const config = testConfig({ LOG_LEVEL: 'trace' });
  const ctx: AppContext = {
    config: { ...config, masterKey: config.masterKey!, operatorToken: config.operatorToken! },
    db: database.db,
    asyncCommitDb: database.asyncCommitDb,
    clock: new Clock(),
  };
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const migrations = await readMigrations();
  const app = await buildApp(ctx, { latestMigration: migrations.at(-1)?.version ?? '', logStream });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  ctx.config.publicUrls.push(baseUrl);
  t = {
    app,
    ctx,
    database,
    baseUrl,
    close: async () => {
      await app.close();
      await database.drop();
    },
  };
  partner = await createPartner(t);
});
afterAll(async () => t?.close());

describe('card data through the checkout page', () => {
  it('reaches no log line and no table', async () => {
    let street = 0;
    for (const number of Object.values(CARDS)) {
      street += 1;
      const body = checkoutBody(partner, { sourceAmount: '20', street1: `${street} Elm St` });
      const { reservation, path } = await checkoutLink(t, partner, body);
      expect((await fetch(`${t.baseUrl}${path}`)).status).toBe(200);
      const quote = (await (
        await postJson(t, '/purchase/quote', {
          accountId: partner.accountId,
          reservation,
          sourceCurrency: 'USD',
          destCurrency: 'ETH',
        })
      ).json()) as { sourceAmount: string };
      const response = await postJson(t, '/purchase/orders', {
        reservationId: reservation,
        amount: quote.sourceAmount,
        sourceCurrency: 'USD',
        destCurrency: 'ETH',
        dest: body.dest,
        referrerAccountId: partner.accountId,
        givenName: 'Ada',
        familyName: 'Lovelace',
        email: 'ada@example.com',
        phone: '+14155550100',
        address: {
          street1: body.street1,
          city: 'San Francisco',
          state: 'CA',
          postalCode: '94105',
          country: 'US',
        },
        debitCard: { number, year: '2030', month: '12', cvv: CVV },
      });
      const text = await response.text();
      expect(response.status, text).toBe(number === CARDS.approved ? 200 : 400);
      expect(text).not.toContain(number);
    }
    const log = lines.join('');
    expect(log).toContain('/purchase/orders');
    for (const number of Object.values(CARDS)) expect(log).not.toContain(number);
    expect(log).not.toContain(`"cvv":"${CVV}"`);

    const { rows } = await t.database.db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    for (const { table_name } of rows) {
      for (const number of Object.values(CARDS)) {
        const found = await t.database.db.query(
          `SELECT 1 FROM "${table_name}" AS r WHERE r::text LIKE '%' || $1 || '%' LIMIT 1`,
          [number],
        );
        expect(found.rowCount, `${table_name} holds ${number}`).toBe(0);
      }
    }
  });
});
