import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allocateNonce } from '../../../src/chains/evm/send-store.ts';
import { insertSends } from '../../../src/chains/store.ts';
import { withTransaction } from '../../../src/platform/db/pool.ts';
import { freshDatabase, type TestDatabase } from '../../helpers/db.ts';

/** The nonce allocator of a hot wallet, in PostgreSQL: what keeps two workers off one nonce. */
let database: TestDatabase;
const HOT = '0x1111111111111111111111111111111111111111';

beforeAll(async () => {
  database = await freshDatabase();
  const sends = ['A', 'B', 'C', 'D', 'E', 'F'].map((name) => ({
    reference: `transfer:TF_${name}`,
    chain: 'ethereum',
    address: '0x52908400098527886E0F7030069857D2E4169EE7',
    currency: 'ETH',
    amount: '1',
    networkFee: '0',
  }));
  await insertSends(database.db, sends, undefined);
});
afterAll(async () => database.drop());

const allocate = (reference: string, nodeNext = 0) =>
  withTransaction(database.db, (tx) =>
    allocateNonce(tx, { reference, chain: 'ethereum', from: HOT, nodeNext }),
  );

describe('the nonce allocator', () => {
  it('gives two transactions at once two nonces: the second waits for the first to commit', async () => {
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    let firstAllocated!: () => void;
    const allocatedOnce = new Promise<void>((resolve) => {
      firstAllocated = resolve;
    });
    const first = withTransaction(database.db, async (tx) => {
      const nonce = await allocateNonce(tx, {
        reference: 'transfer:TF_A',
        chain: 'ethereum',
        from: HOT,
        nodeNext: 0,
      });
      firstAllocated();
      await firstHolds;
      return nonce;
    });
    await allocatedOnce;
    let secondDone = false;
    const second = allocate('transfer:TF_B').then((nonce) => {
      secondDone = true;
      return nonce;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(secondDone).toBe(false);
    releaseFirst();
    expect(await first).toBe(0);
    expect(await second).toBe(1);
  });

  it('gives a send its nonce once: asking again for it takes none', async () => {
    expect(await allocate('transfer:TF_A')).toBeUndefined();
    expect(await allocate('transfer:TF_C')).toBe(2);
  });

  it("skips to the node's count when the wallet was used elsewhere", async () => {
    expect(await allocate('transfer:TF_D', 10)).toBe(10);
    expect(await allocate('transfer:TF_E', 3)).toBe(11);
  });

  it('gives a nonce back when the transaction that took it rolls back (nothing signed is lost)', async () => {
    const failed = withTransaction(database.db, async (tx) => {
      expect(
        await allocateNonce(tx, { reference: 'transfer:TF_F', chain: 'ethereum', from: HOT, nodeNext: 0 }),
      ).toBe(12);
      throw new Error('signing failed');
    });
    await expect(failed).rejects.toThrow('signing failed');
    expect(await allocate('transfer:TF_F')).toBe(12);
  });
});
