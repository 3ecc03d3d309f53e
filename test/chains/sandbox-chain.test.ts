import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChainOutcome,
  type ChainsDeps,
  registerChainSettlers,
  requestChainSend,
  requestChainSends,
} from '../../src/chains/port.ts';
import { SANDBOX_FAILING_ADDRESSES, settleSandboxSends } from '../../src/chains/sandbox-chain.ts';
import { type Tx, withTransaction } from '../../src/platform/db/pool.ts';
import { JobRunner } from '../../src/platform/jobs/runner.ts';
import { Money } from '../../src/platform/money.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let runner: JobRunner;
/** The app's services with one more outcome handler, for the test's own `probe:` sends. */
let ctx: ChainsDeps;
const seen: ChainOutcome[] = [];
beforeAll(async () => {
  t = await startTestApp({ env: { RAMPART_SANDBOX_CHAIN_DELAY_MS: '0' } });
  runner = new JobRunner(t.database.db, pino({ level: 'silent' }), 1000);
  const probe = {
    one: async (tx: Tx, outcome: ChainOutcome) => {
      // Runs inside the settling transaction: a row written here commits with the outcome.
      await tx.query('SELECT 1');
      seen.push(outcome);
    },
  };
  ctx = { ...t.ctx, chains: { ...t.ctx.chains, outcomes: { ...t.ctx.chains.outcomes, probe } } };
  registerChainSettlers(runner, ctx);
});
afterAll(async () => t.close());

const send = (reference: string, address: string, chain: 'ethereum' | 'bitcoin' = 'ethereum') =>
  withTransaction(t.database.db, (tx) =>
    requestChainSend(ctx, tx, {
      reference,
      chain,
      address,
      currency: chain === 'bitcoin' ? 'BTC' : 'ETH',
      amount: new Money('0.25'),
      networkFee: new Money('0.0004'),
    }),
  );

const sendRow = async (reference: string) =>
  (
    await t.database.db.query(
      'SELECT status, blockchain_tx, failure_reason FROM chain_sends WHERE reference = $1',
      [reference],
    )
  ).rows[0];

describe('the sandbox chain', () => {
  it('confirms a send with a generated BlockchainTx, reported exactly once', async () => {
    await send('probe:ONE', '0x52908400098527886E0F7030069857D2E4169EE7');
    expect(await runner.drain()).toBe(1);
    await settleSandboxSends(ctx, ['probe:ONE']); // a repeated job
    const outcomes = seen.filter((o) => o.reference === 'probe:ONE');
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({
      status: 'CONFIRMED',
      blockchainTx: {
        id: expect.stringMatching(/^TR_[2-9A-HJ-NP-Z]{11}$/),
        networkTxId: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        blockhash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        direction: 'OUTGOING',
        amount: '0.25',
        networkFee: '0.0004',
        address: '0x52908400098527886E0F7030069857D2E4169EE7',
        currency: 'ETH',
        confirmations: 1,
        twinTxId: null,
      },
    });
    expect((await sendRow('probe:ONE')).status).toBe('CONFIRMED');
  });

  it.each([
    ['ethereum', SANDBOX_FAILING_ADDRESSES.ethereum],
    ['bitcoin', SANDBOX_FAILING_ADDRESSES.bitcoin],
  ] as const)('fails a send to the documented %s failing address', async (chain, address) => {
    const reference = `probe:FAIL${chain}`;
    await send(reference, address, chain);
    await runner.drain();
    expect(seen.find((o) => o.reference === reference)).toMatchObject({
      status: 'FAILED',
      failureReason: expect.any(String),
    });
    expect((await sendRow(reference)).status).toBe('FAILED');
  });

  it('keeps a send queued (and retries) when no module handles its reference type', async () => {
    await send('nobody:X1', '0x52908400098527886E0F7030069857D2E4169EE7');
    await runner.drain();
    expect((await sendRow('nobody:X1')).status).toBe('QUEUED');
    const { rows } = await t.database.db.query(
      `SELECT state, last_error FROM jobs WHERE kind = 'chains.sandboxSettle' AND payload->'references' ? 'nobody:X1'`,
    );
    expect(rows[0]).toMatchObject({
      state: 'pending',
      last_error: expect.stringContaining('no chain outcome handler'),
    });
  });

  it('queues one settle job for sends requested together; a send no module takes stays queued alone', async () => {
    const sends = ['probe:B1', 'nobody:B2', 'probe:B3'].map((reference) => ({
      reference,
      chain: 'ethereum' as const,
      address: '0x52908400098527886E0F7030069857D2E4169EE7',
      currency: 'ETH',
      amount: new Money('0.5'),
    }));
    await withTransaction(t.database.db, (tx) => requestChainSends(ctx, tx, sends));
    const queued = await t.database.db.query(
      `SELECT payload FROM jobs WHERE kind = 'chains.sandboxSettle' AND payload->'references' ? 'probe:B1'`,
    );
    expect(queued.rows).toEqual([{ payload: { references: ['nobody:B2', 'probe:B1', 'probe:B3'] } }]);
    await runner.drain();
    // Together they fail (nobody takes nobody:B2); alone, the two probes settle and the job is retried for the third.
    expect((await sendRow('probe:B1')).status).toBe('CONFIRMED');
    expect((await sendRow('probe:B3')).status).toBe('CONFIRMED');
    expect((await sendRow('nobody:B2')).status).toBe('QUEUED');
    expect(seen.filter((o) => o.reference === 'probe:B1' || o.reference === 'probe:B3')).toHaveLength(2);
    const retried = await t.database.db.query(
      `SELECT state, last_error FROM jobs WHERE kind = 'chains.sandboxSettle' AND payload->'references' ? 'probe:B1'`,
    );
    expect(retried.rows).toEqual([
      { state: 'pending', last_error: expect.stringContaining('no chain outcome handler for nobody:B2') },
    ]);
  });

  it('settles a job queued before sends were batched (payload `reference`)', async () => {
    await withTransaction(t.database.db, async (tx) => {
      await requestChainSends({ ...ctx, chains: { ...ctx.chains, backends: {} } }, tx, [
        {
          reference: 'probe:OLD',
          chain: 'ethereum',
          address: '0x52908400098527886E0F7030069857D2E4169EE7',
          currency: 'ETH',
          amount: new Money('0.1'),
        },
      ]);
      await tx.query(
        `INSERT INTO jobs (kind, payload, max_attempts) VALUES ('chains.sandboxSettle', '{"reference": "probe:OLD"}', 5)`,
      );
    });
    await runner.drain();
    expect((await sendRow('probe:OLD')).status).toBe('CONFIRMED');
  });

  it('refuses a second send for the same reference', async () => {
    await send('probe:TWICE', '0x52908400098527886E0F7030069857D2E4169EE7');
    await expect(send('probe:TWICE', '0x52908400098527886E0F7030069857D2E4169EE7')).rejects.toThrow();
  });

  it('queues no simulated settlement in production', async () => {
    const prod = await startTestApp({ env: { RAMPART_ENV: 'production' } });
    try {
      await withTransaction(prod.database.db, (tx) =>
        requestChainSend(prod.ctx, tx, {
          reference: 'probe:PROD',
          chain: 'ethereum',
          address: '0x52908400098527886E0F7030069857D2E4169EE7',
          currency: 'ETH',
          amount: new Money(1),
        }),
      );
      const jobs = await prod.database.db.query(`SELECT 1 FROM jobs WHERE kind = 'chains.sandboxSettle'`);
      expect(jobs.rows).toEqual([]);
      expect((await prod.database.db.query('SELECT status FROM chain_sends')).rows).toEqual([
        { status: 'QUEUED' },
      ]);
    } finally {
      await prod.close();
    }
  });
});
