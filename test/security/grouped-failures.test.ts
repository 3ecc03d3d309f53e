import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import {
  aliceAndBob,
  balances,
  expectLedgerSound,
  startTransfersApp,
  type TransfersFixture,
} from '../transfers/support.ts';
import { whileRefusingInserts } from '../wallet-orders/support.ts';

/**
 * Concurrent requests share statements (platform/db/grouped-writer.ts): the masquerade audit rows
 * of every partner, user reads, signature records, settled transfers. One partner's request that
 * PostgreSQL refuses must fail alone: every other partner's request of the same group is answered
 * as it would have been without it.
 */

let f: TransfersFixture;
let poisoner: PartnerCredentials;
let alice: string;
let bob: string;

beforeAll(async () => {
  f = await startTransfersApp();
  poisoner = await createPartner(f.t, { name: 'Poisoner' });
  ({ alice, bob } = await aliceAndBob(f.t, f.partner, '1000'));
});
afterAll(async () => f.t.close());

const asAlice = () => encodeURIComponent(`user:${alice}`);

/**
 * 30 masqueraded reads and 10 masqueraded transfers of the partner's, all at once, with `poisoned`
 * (the other partner's requests) among them. Distinct timestamps: identical signed requests would
 * be replays.
 */
async function burstWith(poisoned: (index: number, timestamp: number) => Promise<Response>) {
  const now = Date.now();
  const reads = Array.from({ length: 30 }, (_, index) =>
    signedFetch(f.t, f.partner, {
      path: `/v3/users/${alice}?masqueradeAs=${asAlice()}`,
      timestamp: now - index,
    }),
  );
  const writes = Array.from({ length: 10 }, (_, index) =>
    signedFetch(f.t, f.partner, {
      method: 'POST',
      path: `/v3/transfers?masqueradeAs=${asAlice()}`,
      body: JSON.stringify({
        sourceCurrency: 'USD',
        sourceAmount: index + 1,
        dest: `user:${bob}`,
        autoConfirm: true,
      }),
      timestamp: now - index,
    }),
  );
  const poisonedAnswers = Array.from({ length: 3 }, (_, index) => poisoned(index, now - index));
  const [readAnswers, writeAnswers, refused] = await Promise.all([
    Promise.all(reads),
    Promise.all(writes),
    Promise.all(poisonedAnswers),
  ]);
  return { readAnswers, writeAnswers, refused };
}

async function expectHealthy(readAnswers: Response[], writeAnswers: Response[]) {
  for (const answer of readAnswers) {
    const body = await answer.json();
    expect(answer.status, JSON.stringify(body)).toBe(200);
    expect(body.id).toBe(alice);
  }
  for (const answer of writeAnswers) {
    const body = await answer.json();
    expect(answer.status, JSON.stringify(body)).toBe(200);
    expect(body.status).toBe('COMPLETED');
  }
}

async function auditedTargets(apiKey: string): Promise<string[]> {
  const { rows } = await f.t.database.db.query<{ target: string }>(
    'SELECT target FROM access_audit WHERE api_key = $1',
    [apiKey],
  );
  return rows.map((row) => row.target);
}

describe('one partner’s request that PostgreSQL refuses, grouped with another partner’s', () => {
  it('fails alone: the other partner’s masqueraded reads and transfers all succeed', async () => {
    const before = await balances(f.t, `user:${alice}`);
    const audited = (await auditedTargets(f.partner.apiKey)).length;
    // A rule the service does not know: PostgreSQL refuses the audit row of one masquerade target.
    const poison = 'account:AC_POISONED2222';
    await whileRefusingInserts(f.t, 'access_audit', `NEW.target = '${poison}'`, async () => {
      const { readAnswers, writeAnswers, refused } = await burstWith((_index, timestamp) =>
        signedFetch(f.t, poisoner, {
          path: `/v3/accounts/${poisoner.accountId}?masqueradeAs=${encodeURIComponent(poison)}`,
          timestamp,
        }),
      );
      await expectHealthy(readAnswers, writeAnswers);
      // Only the requests at fault get the refusal (an unforeseen database rule: a fault of ours).
      for (const answer of refused) expect(answer.status).toBe(500);
    });
    expect(await auditedTargets(f.partner.apiKey)).toHaveLength(audited + 40);
    expect(await auditedTargets(poisoner.apiKey)).toEqual([]);
    expect((await balances(f.t, `user:${alice}`)).total.USD).toBe(String(Number(before.total.USD) - 55));
    await expectLedgerSound(f.t);
  });

  it('refuses masqueradeAs holding U+0000 at the door (400), and the other partner’s requests all succeed', async () => {
    const { readAnswers, writeAnswers, refused } = await burstWith((_index, timestamp) =>
      signedFetch(f.t, poisoner, {
        path: `/v3/accounts/${poisoner.accountId}?masqueradeAs=x%00`,
        timestamp,
      }),
    );
    await expectHealthy(readAnswers, writeAnswers);
    for (const answer of refused) {
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({
        type: 'ValidationException',
        errorCode: 'validation.invalidCharacter',
        problematicField: 'masqueradeAs',
      });
    }
  });
});
