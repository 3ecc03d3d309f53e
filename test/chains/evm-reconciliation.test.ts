import { type Address, createWalletClient, erc20Abi, http, parseEther, parseUnits } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { custodyKeys } from '../../src/chains/evm/custody-keys.ts';
import { evmDepositSide } from '../../src/chains/evm/deposit-side.ts';
import { parseEvmChains } from '../../src/chains/evm/settings.ts';
import { type SweptChain, sweepOnce } from '../../src/chains/evm/sweeper.ts';
import { checkChainIds } from '../../src/chains/port.ts';
import { reconciliationText } from '../../src/cli.ts';
import { sleep } from '../../src/platform/clock.ts';
import type { JobRunner } from '../../src/platform/jobs/runner.ts';
import { Money } from '../../src/platform/money.ts';
import { DEFAULT_FEE_SCHEDULE } from '../../src/pricing/fees.ts';
import type { TestApp } from '../helpers/app.ts';
import { type EvmNode, startEvmNode } from '../helpers/evm-node.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import {
  approvedUser,
  balances,
  call,
  credit,
  depositAddresses,
  expectLedgerSound,
  operator,
} from '../transfers/support.ts';
import {
  createOrder,
  lockedReservation,
  orderBody,
  readOrder,
  startCardOrderApp,
  workerFor,
} from '../wallet-orders/support.ts';
import { chainEnv, RECIPIENT, SEED } from './evm/support.ts';

/**
 * Reconciliation after a mixed run on the real node, with non-zero network fees: the house's
 * inventory deposit, customers' native and token deposits, native and token withdrawals, a send
 * that fails, a card order's delivery, sweeps;
 * then custody balances per currency, and a planted discrepancy is reported.
 */
let node: EvmNode;
let t: TestApp;
let cardPartner: PartnerCredentials;
let partner: PartnerCredentials;
let worker: JobRunner;
let token: Address;
let payer: ReturnType<typeof privateKeyToAccount>;
let swept: SweptChain;

beforeAll(async () => {
  node = await startEvmNode();
  token = await node.deployToken('Test USD', 'USDC', 6);
  const env = chainEnv(node.rpcUrl, { USDC: token }, { RAMPART_EVM_FUNDS_WAIT_MS: '120000' });
  ({ t, partner: cardPartner } = await startCardOrderApp({ env }));
  swept = evmDepositSide(parseEvmChains(env).ethereum!, custodyKeys(SEED), node.client).swept;
  await checkChainIds(t.ctx.chains.backends, { warn: () => undefined });
  partner = await createPartner(t, { usersApi: true });
  // Non-zero network fees (contract decision 73): the partner pays them to the house, while the
  // gas the hot wallet pays leaves custody once, from house:fees.
  const fees = await operator(t, 'PUT', '/operator/v1/fees', {
    ...DEFAULT_FEE_SCHEDULE,
    networkFees: { ...DEFAULT_FEE_SCHEDULE.networkFees, ETH: '0.0004', USDC: '1' },
  });
  expect(fees.status).toBe(200);
  worker = workerFor(t);
  await t.ctx.chains.backends.ethereum!.registerWatcher!(worker, t.ctx);
  payer = privateKeyToAccount(node.fundedKeys[1]!);
  await node.mintToken(token, payer.address, parseUnits('1000', 6));
  await sleep(100);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await node?.stop();
});

const wallet = () => createWalletClient({ account: payer, transport: http(node.rpcUrl) });

async function pay(to: string, ether: string) {
  const hash = await wallet().sendTransaction({ to: to as Address, value: parseEther(ether), chain: null });
  await node.client.waitForTransactionReceipt({ hash });
}

async function payToken(to: string, amount: string) {
  const hash = await wallet().writeContract({
    address: token,
    abi: erc20Abi,
    functionName: 'transfer',
    args: [to as Address, parseUnits(amount, 6)],
    chain: null,
  });
  await node.client.waitForTransactionReceipt({ hash });
}

/**
 * Runs the workers (watcher, sender, card orders) and the sweeper (its job comes every 15 s),
 * mining a block between rounds.
 */
async function work(rounds: number) {
  for (let round = 0; round < rounds; round++) {
    await worker.drain();
    await sweepOnce(t.ctx, swept);
    await node.mine(1);
    await sleep(40);
  }
}

async function reconciliation() {
  const response = await operator(t, 'GET', '/operator/v1/chains/ethereum/reconciliation');
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body as {
    balanced: boolean;
    houseDepositAddress: string;
    currencies: Record<string, number | string | boolean>[];
  };
}

async function transferStatus(userId: string, id: string) {
  const response = await call(t, partner, userId, 'GET', `/v3/transfers/${id}`);
  return ((await response.json()) as { status: string }).status;
}

describe('the reconciliation of a real chain', () => {
  it('balances after deposits, native and token withdrawals with network fees, a failed send, a card delivery and sweeps; reports a planted discrepancy', async () => {
    // A card order before the house has any coin: its delivery waits, and the operator sees why.
    const { reservation, amount } = await lockedReservation(t, cardPartner);
    const order = await createOrder(t, cardPartner, orderBody(cardPartner, reservation, amount));
    expect(order.status, JSON.stringify(order.body)).toBe(200);
    await work(5);
    const waiting = await reconciliation();
    const short = waiting.currencies.find((line) => line.currency === 'ETH')!;
    expect(Number(short.shortfall)).toBeGreaterThan(0);
    expect(short.shortfall).toBe(short.queuedSends);
    expect((await readOrder(t, cardPartner, String(order.body.id))).status).toBe('PROCESSING');

    const { houseDepositAddress } = waiting;
    await pay(houseDepositAddress, '20');
    const userId = await approvedUser(t, partner);
    const { ETH: address } = await depositAddresses(t, partner, userId);
    await pay(address!, '4');
    await payToken(address!, '120');
    await work(40);
    expect((await balances(t, `user:${userId}`)).total).toEqual({ ETH: '4', USDC: '120' });

    const sent = await call(t, partner, userId, 'POST', '/v3/transfers', {
      source: `user:${userId}`,
      sourceCurrency: 'ETH',
      destCurrency: 'ETH',
      sourceAmount: '1',
      dest: `ethereum:${RECIPIENT}`,
      autoConfirm: true,
    });
    const withdrawal = (await sent.json()) as { id: string };
    expect(sent.status, JSON.stringify(withdrawal)).toBe(200);
    await work(20);
    // A token that refuses every transfer (paused): the send fails, its funds come back.
    await node.client.waitForTransactionReceipt({ hash: await node.pauseToken(token, true) });
    const refused = await call(t, partner, userId, 'POST', '/v3/transfers', {
      source: `user:${userId}`,
      sourceCurrency: 'USDC',
      destCurrency: 'USDC',
      sourceAmount: '10',
      dest: `ethereum:${RECIPIENT}`,
      autoConfirm: true,
    });
    const failing = (await refused.json()) as { id: string };
    expect(refused.status, JSON.stringify(failing)).toBe(200);
    for (let round = 0; round < 40 && (await transferStatus(userId, failing.id)) === 'PENDING'; round++)
      await work(1);
    expect(await transferStatus(userId, failing.id)).toBe('FAILED');
    await node.client.waitForTransactionReceipt({ hash: await node.pauseToken(token, false) });
    const tokenSent = await call(t, partner, userId, 'POST', '/v3/transfers', {
      source: `user:${userId}`,
      sourceCurrency: 'USDC',
      destCurrency: 'USDC',
      sourceAmount: '30',
      dest: `ethereum:${RECIPIENT}`,
      autoConfirm: true,
    });
    const tokenWithdrawal = (await tokenSent.json()) as { id: string };
    expect(tokenSent.status, JSON.stringify(tokenWithdrawal)).toBe(200);
    await work(40);
    expect(await transferStatus(userId, withdrawal.id)).toBe('COMPLETED');
    expect(await transferStatus(userId, tokenWithdrawal.id)).toBe('COMPLETED');
    // The quoted network fees are the house's: the withdrawal's entry gives the chain only the
    // amount sent; the gas the hot wallet paid is its own entry (chain.gas) from house:fees.
    const charged = await t.database.db.query<{ network_fee: string }>(
      'SELECT network_fee::text FROM transfers WHERE id = ANY($1) ORDER BY dest_currency',
      [[withdrawal.id, tokenWithdrawal.id]],
    );
    expect(charged.rows.map((row) => Number(row.network_fee))).toEqual([0.0004, 1]);
    for (const id of [withdrawal.id, tokenWithdrawal.id]) {
      const { rows } = await t.database.db.query<{
        kind: string;
        owner: string;
        amount: string;
        sent: string;
      }>(
        `SELECT e.kind, p.owner, p.amount::text, s.amount::text AS sent
           FROM ledger_entries e JOIN ledger_postings p ON p.entry_id = e.id
           JOIN chain_sends s ON s.reference = e.reference
          WHERE e.reference = $1 AND p.owner = 'external:chain:ethereum' ORDER BY e.id`,
        [`transfer:${id}`],
      );
      expect(rows.map((row) => row.kind)).toEqual(['transfer', 'chain.gas']);
      expect(new Money(rows[0]!.amount).eq(new Money(rows[0]!.sent))).toBe(true);
    }
    const delivered = await readOrder(t, cardPartner, String(order.body.id));
    expect(delivered.status).toBe('COMPLETE');
    // The delivery drew on the inventory the operator deposited.
    const { rows: sends } = await t.database.db.query<{ amount: string }>(
      'SELECT amount FROM chain_sends WHERE reference = $1',
      [`order:${order.body.id}`],
    );
    const inventory = new Money(20).minus(sends[0]!.amount);
    expect((await balances(t, 'house:inventory')).total).toEqual({ ETH: inventory.toFixed() });
    const { rows: open } = await t.database.db.query("SELECT id FROM evm_sweeps WHERE status = 'SENT'");
    expect(open).toEqual([]);
    await expectLedgerSound(t);

    const report = await reconciliation();
    expect(report.balanced, JSON.stringify(report)).toBe(true);
    expect(report.currencies.every((line) => line.shortfall === 0)).toBe(true);
    expect(report.currencies.map((line) => line.currency)).toEqual(['ETH', 'USDC']);
    const text = reconciliationText(report as never);
    expect(text).toContain(`house deposit address (inventory): ${houseDepositAddress}`);
    expect(text).toContain('balanced');

    // Planted: a liability the chain does not hold (an operator credit of coin nobody deposited).
    await credit(t, `user:${userId}`, 'USDC', '7.25');
    const planted = await reconciliation();
    expect(planted.balanced).toBe(false);
    expect(planted.currencies.find((line) => line.currency === 'USDC')).toMatchObject({
      balanced: false,
      difference: -7.25,
    });
    expect(reconciliationText(planted as never)).toContain('USDC: NOT BALANCED');
  }, 180_000);
});
