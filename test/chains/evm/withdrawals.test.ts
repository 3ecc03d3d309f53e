import pino from 'pino';
import { parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { custodyKeys } from '../../../src/chains/evm/custody-keys.ts';
import { fromBaseUnits } from '../../../src/chains/evm/units.ts';
import { registerChainSettlers } from '../../../src/chains/port.ts';
import { JobRunner } from '../../../src/platform/jobs/runner.ts';
import { Money } from '../../../src/platform/money.ts';
import { type EvmNode, startEvmNode } from '../../helpers/evm-node.ts';
import { type RpcProxy, startRpcProxy } from '../../helpers/rpc-proxy.ts';
import { balances, expectLedgerSound, moneyState } from '../../transfers/support.ts';
import {
  type ChainApp,
  chainEnv,
  fundHotWallet,
  getTransfer,
  HOT_WALLET,
  RECIPIENT,
  rounds,
  SEED,
  sendRows,
  settle,
  startChainApp,
  withdraw,
} from './support.ts';

let node: EvmNode;
let proxy: RpcProxy;
let app: ChainApp;
/** USDC: a 6-decimal token; DAI: a token whose contract has only 6 decimals (the ledger keeps 18). */
let usdc: `0x${string}`;
let dai: `0x${string}`;
/** A token the hot wallet holds none of (ledger code MATIC, carried here as an ERC-20). */
let scarce: `0x${string}`;

beforeAll(async () => {
  node = await startEvmNode();
  proxy = await startRpcProxy(node.rpcUrl);
  usdc = await node.deployToken('Test USD', 'USDC', 6);
  dai = await node.deployToken('Six-decimal DAI', 'DAI', 6);
  scarce = await node.deployToken('Scarce', 'MATIC', 18);
  app = await startChainApp(
    chainEnv(
      proxy.url,
      { USDC: usdc, DAI: dai, MATIC: scarce },
      { RAMPART_EVM_FEE_BUMP_AFTER_MS: '300', RAMPART_EVM_FUNDS_WAIT_MS: '1500' },
    ),
    { ETH: '1000', USDC: '100000', DAI: '100', MATIC: '50', AVAX: '5' },
  );
  await fundHotWallet(node, parseEther('20'));
  await node.mintToken(usdc, HOT_WALLET, 1_000_000_000_000n);
  await node.mintToken(dai, HOT_WALLET, 1_000_000_000n);
}, 120_000);
afterAll(async () => {
  await app?.t.close();
  await proxy?.close();
  await node?.stop();
});

async function hotNonce() {
  return node.client.getTransactionCount({ address: HOT_WALLET, blockTag: 'latest' });
}

describe('a withdrawal to an EVM chain', () => {
  it('pays native coin from the hot wallet: stored before broadcast, followed to confirmations, then COMPLETED', async () => {
    const before = await node.client.getBalance({ address: RECIPIENT });
    const nonceBefore = await hotNonce();
    const created = await withdraw(app, 'ETH', '1.5', RECIPIENT);
    expect(created.status).toBe(200);
    expect(created.body.status).toBe('PENDING');
    const done = await settle(app, node, created.body.id);
    expect(done.status).toBe('COMPLETED');
    const [stored] = await sendRows(app, `transfer:${created.body.id}`);
    expect(stored).toMatchObject({ nonce: nonceBefore, broadcast: true });
    expect(stored!.raw).toMatch(/^0x02/);
    const receipt = await node.client.getTransactionReceipt({ hash: stored!.hash });
    expect(receipt.status).toBe('success');
    expect(receipt.from.toLowerCase()).toBe(HOT_WALLET.toLowerCase());
    expect(receipt.to?.toLowerCase()).toBe(RECIPIENT.toLowerCase());
    const paid = parseEther(String(done.destAmount));
    expect(await node.client.getBalance({ address: RECIPIENT })).toBe(before + paid);
    expect(await hotNonce()).toBe(nonceBefore + 1);
    expect(done.blockchainTx).toMatchObject({
      networkTxId: stored!.hash,
      blockhash: receipt.blockHash,
      direction: 'OUTGOING',
      address: RECIPIENT,
      sourceAddress: HOT_WALLET,
      currency: 'ETH',
      amount: done.destAmount,
    });
    expect((done.blockchainTx as { confirmations: number }).confirmations).toBeGreaterThanOrEqual(2);
    // The gas is the house's: booked from house:fees to the chain, exactly what the receipt says.
    const gas = fromBaseUnits(receipt.gasUsed * receipt.effectiveGasPrice, 18);
    expect((done.blockchainTx as { networkFee: number }).networkFee).toBe(Number(gas));
    const { rows } = await app.t.database.db.query(
      `SELECT p.amount::text AS amount FROM ledger_entries e JOIN ledger_postings p ON p.entry_id = e.id
       WHERE e.kind = 'chain.gas' AND e.reference = $1 AND p.owner = 'house:fees'`,
      [`transfer:${created.body.id}`],
    );
    expect(rows.map((row) => new Money(row.amount).toFixed())).toEqual([`-${gas}`]);
    await expectLedgerSound(app.t);
  }, 60_000);

  it('pays an ERC-20 with transfer(to, amount), converted exactly with the decimals the contract reports', async () => {
    const before = await node.tokenBalance(usdc, RECIPIENT);
    const created = await withdraw(app, 'USDC', '12.345678', RECIPIENT);
    expect(created.status).toBe(200);
    const done = await settle(app, node, created.body.id);
    expect(done.status).toBe('COMPLETED');
    const destUnits = BigInt(Math.round(done.destAmount * 1e6));
    expect(await node.tokenBalance(usdc, RECIPIENT)).toBe(before + destUnits);
    const [stored] = await sendRows(app, `transfer:${created.body.id}`);
    const receipt = await node.client.getTransactionReceipt({ hash: stored!.hash });
    expect(receipt.to?.toLowerCase()).toBe(usdc.toLowerCase());
    expect(done.blockchainTx).toMatchObject({ networkTxId: stored!.hash, currency: 'USDC' });
    await expectLedgerSound(app.t);
  }, 60_000);

  it("refuses an amount finer than the token contract's decimals: FAILED, funds returned, nothing sent", async () => {
    const before = await balances(app.t, `account:${app.partner.accountId}`);
    const nonceBefore = await hotNonce();
    const created = await withdraw(app, 'DAI', '3.0000005', RECIPIENT);
    expect(created.status).toBe(200);
    const done = await settle(app, node, created.body.id);
    expect(done.status).toBe('FAILED');
    expect(done.failureReason).toContain("finer than the token's 6 decimals");
    expect(await balances(app.t, `account:${app.partner.accountId}`)).toEqual(before);
    expect(await sendRows(app, `transfer:${created.body.id}`)).toEqual([]);
    expect(await hotNonce()).toBe(nonceBefore);
  }, 60_000);

  it('replaces a transaction stuck below the market fee: same nonce, higher fee, exactly one mined', async () => {
    await node.rpc('evm_setAutomine', [false]);
    try {
      const nonceBefore = await hotNonce();
      const created = await withdraw(app, 'ETH', '0.25', RECIPIENT);
      const reference = `transfer:${created.body.id}`;
      await rounds(app, 3);
      const [first] = await sendRows(app, reference);
      expect(first).toMatchObject({ nonce: nonceBefore, broadcast: true });
      // The market moves past the transaction's fee cap: it stays in the mempool.
      await node.rpc('hardhat_setNextBlockBaseFeePerGas', ['0x174876e800']); // 100 gwei
      await node.mine(1);
      expect(await hotNonce()).toBe(nonceBefore);
      await new Promise((resolve) => setTimeout(resolve, 400));
      await rounds(app, 3);
      const txs = await sendRows(app, reference);
      expect(txs.length).toBeGreaterThanOrEqual(2);
      expect(new Set(txs.map((tx) => tx.nonce))).toEqual(new Set([nonceBefore]));
      await node.rpc('evm_setAutomine', [true]);
      const done = await settle(app, node, created.body.id);
      expect(done.status).toBe('COMPLETED');
      const minedHashes: string[] = [];
      for (const tx of txs) {
        const receipt = await node.client.getTransactionReceipt({ hash: tx.hash }).catch(() => undefined);
        if (receipt) minedHashes.push(tx.hash);
      }
      expect(minedHashes).toHaveLength(1);
      expect(minedHashes[0]).not.toBe(first!.hash);
      expect((done.blockchainTx as { networkTxId: string }).networkTxId).toBe(minedHashes[0]);
      expect(await hotNonce()).toBe(nonceBefore + 1);
      await expectLedgerSound(app.t);
    } finally {
      await node.rpc('evm_setAutomine', [true]);
    }
  }, 90_000);
});

describe('two workers', () => {
  it('work one chain one at a time: every send its own nonce, each paid once', async () => {
    const second = new JobRunner(app.t.database.db, pino({ level: 'silent' }), 50);
    await registerChainSettlers(second, app.t.ctx);
    const nonceBefore = await hotNonce();
    const paidBefore = await node.client.getBalance({ address: RECIPIENT });
    const ids: string[] = [];
    for (let index = 0; index < 4; index++) ids.push((await withdraw(app, 'ETH', '0.1', RECIPIENT)).body.id);
    for (let round = 0; round < 40; round++) {
      await Promise.all([app.runner.drain(), second.drain()]);
      const statuses = await Promise.all(ids.map(async (id) => (await getTransfer(app, id)).status));
      if (statuses.every((status) => status !== 'PENDING')) break;
      await node.mine(1);
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    const done = await Promise.all(ids.map((id) => getTransfer(app, id)));
    expect(done.map((transfer) => transfer.status)).toEqual([
      'COMPLETED',
      'COMPLETED',
      'COMPLETED',
      'COMPLETED',
    ]);
    const nonces = (await Promise.all(ids.map((id) => sendRows(app, `transfer:${id}`)))).map(
      (rows) => rows[0]!.nonce,
    );
    expect(nonces.sort((a, b) => a - b)).toEqual([0, 1, 2, 3].map((offset) => nonceBefore + offset));
    expect(await hotNonce()).toBe(nonceBefore + 4);
    const paid = done.reduce((sum, transfer) => sum + parseEther(String(transfer.destAmount)), 0n);
    expect(await node.client.getBalance({ address: RECIPIENT })).toBe(paidBefore + paid);
  }, 60_000);
});

describe('faults of a send', () => {
  it('a token contract that reverts when asked: FAILED at once with the funds returned, no nonce used', async () => {
    const before = await balances(app.t, `account:${app.partner.accountId}`);
    const nonceBefore = await hotNonce();
    const receipt = await node.client.waitForTransactionReceipt({ hash: await node.pauseToken(usdc, true) });
    expect(receipt.status).toBe('success');
    try {
      const created = await withdraw(app, 'USDC', '5', RECIPIENT);
      const done = await settle(app, node, created.body.id);
      expect(done.status).toBe('FAILED');
      expect(done.failureReason).toBe('The token contract refused the transfer.');
      expect(await balances(app.t, `account:${app.partner.accountId}`)).toEqual(before);
      expect(await hotNonce()).toBe(nonceBefore);
    } finally {
      await node.client.waitForTransactionReceipt({ hash: await node.pauseToken(usdc, false) });
    }
  }, 60_000);

  it('a token transfer that reverts on chain: FAILED with the funds returned, its gas booked to the house', async () => {
    const before = await balances(app.t, `account:${app.partner.accountId}`);
    const tokensBefore = await node.tokenBalance(usdc, RECIPIENT);
    await node.rpc('evm_setAutomine', [false]);
    try {
      const created = await withdraw(app, 'USDC', '7', RECIPIENT);
      await rounds(app, 3);
      const [sent] = await sendRows(app, `transfer:${created.body.id}`);
      expect(sent?.broadcast).toBe(true);
      // The token is paused in the same block, ahead of the send (a higher tip goes first).
      await node.pauseToken(usdc, true, { priorityFeeWei: 50_000_000_000n });
      await node.mine(1);
      await node.rpc('evm_setAutomine', [true]);
      const done = await settle(app, node, created.body.id);
      expect(done.status).toBe('FAILED');
      expect(done.failureReason).toMatch(/^The transaction 0x[0-9a-f]{64} reverted on ethereum\.$/);
      expect((await node.client.getTransactionReceipt({ hash: sent!.hash })).status).toBe('reverted');
      expect(await node.tokenBalance(usdc, RECIPIENT)).toBe(tokensBefore);
      expect(await balances(app.t, `account:${app.partner.accountId}`)).toEqual(before);
      await expectLedgerSound(app.t);
    } finally {
      await node.rpc('evm_setAutomine', [true]);
      await node.client.waitForTransactionReceipt({ hash: await node.pauseToken(usdc, false) });
    }
  }, 60_000);

  it('an empty hot wallet: the send waits for funds, and is paid once they come', async () => {
    const nonceBefore = await hotNonce();
    const created = await withdraw(app, 'ETH', '30', RECIPIENT);
    await rounds(app, 3);
    expect((await getTransfer(app, created.body.id)).status).toBe('PENDING');
    expect(await sendRows(app, `transfer:${created.body.id}`)).toEqual([]);
    await fundHotWallet(node, parseEther('40'));
    const done = await settle(app, node, created.body.id);
    expect(done.status).toBe('COMPLETED');
    expect(await hotNonce()).toBe(nonceBefore + 1);
  }, 60_000);

  it('an empty hot wallet past the wait: FAILED clearly with the funds returned, nothing negative', async () => {
    const before = await balances(app.t, `account:${app.partner.accountId}`);
    const hotBefore = await node.client.getBalance({ address: HOT_WALLET });
    const created = await withdraw(app, 'ETH', '900', RECIPIENT);
    expect(created.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    const done = await settle(app, node, created.body.id);
    expect(done.status).toBe('FAILED');
    expect(done.failureReason).toMatch(
      /^The ethereum hot wallet could not cover [0-9.]+ ETH and its gas in time\.$/,
    );
    expect(await balances(app.t, `account:${app.partner.accountId}`)).toEqual(before);
    expect(await node.client.getBalance({ address: HOT_WALLET })).toBe(hotBefore);
    await expectLedgerSound(app.t);
  }, 60_000);

  it('a token the hot wallet lacks: the send waits, then FAILED with the funds returned, no nonce used', async () => {
    const before = await balances(app.t, `account:${app.partner.accountId}`);
    const nonceBefore = await hotNonce();
    const created = await withdraw(app, 'MATIC', '20', RECIPIENT);
    expect(created.status).toBe(200);
    await rounds(app, 3);
    expect((await getTransfer(app, created.body.id)).status).toBe('PENDING');
    await new Promise((resolve) => setTimeout(resolve, 1600));
    const done = await settle(app, node, created.body.id);
    expect(done.status).toBe('FAILED');
    expect(done.failureReason).toMatch(
      /^The ethereum hot wallet could not cover [0-9.]+ MATIC and its gas in time\.$/,
    );
    expect(await balances(app.t, `account:${app.partner.accountId}`)).toEqual(before);
    expect(await hotNonce()).toBe(nonceBefore);
    expect(await node.tokenBalance(scarce, RECIPIENT)).toBe(0n);
  }, 60_000);

  it('native coin to a contract is refused at the request: 400, nothing written', async () => {
    const forwarder = await node.deployForwarder();
    const before = await moneyState(app.t);
    const refused = await withdraw(app, 'ETH', '0.1', forwarder);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      errorCode: 'validation.contractAddress',
      problematicField: 'dest',
      message: `${forwarder} is a contract: ETH is not sent to contracts (RAMPART_EVM_NATIVE_TO_CONTRACTS).`,
    });
    expect(await moneyState(app.t)).toEqual(before);
    // A token is no native coin: its transfer to a contract is the token's business.
    expect((await withdraw(app, 'USDC', '2', forwarder)).status).toBe(200);
  }, 60_000);

  it('native coin to an address that became a contract after the request: FAILED, funds returned', async () => {
    const address = custodyKeys(SEED).depositAccount(8).address;
    const before = await balances(app.t, `account:${app.partner.accountId}`);
    const created = await withdraw(app, 'ETH', '0.1', address);
    expect(created.status).toBe(200);
    await node.rpc('hardhat_setCode', [address, '0x00']);
    const done = await settle(app, node, created.body.id);
    expect(done.status).toBe('FAILED');
    expect(done.failureReason).toContain('is a contract');
    expect(await node.client.getBalance({ address })).toBe(0n);
    expect(await balances(app.t, `account:${app.partner.accountId}`)).toEqual(before);
  }, 60_000);

  it('native coin to a contract goes out when RAMPART_EVM_NATIVE_TO_CONTRACTS allows it', async () => {
    const forwarder = await node.deployForwarder();
    const allowing = await startChainApp(
      chainEnv(proxy.url, { USDC: usdc, DAI: dai }, { RAMPART_EVM_NATIVE_TO_CONTRACTS: 'true' }),
      { ETH: '10' },
    );
    try {
      const created = await withdraw(allowing, 'ETH', '0.5', forwarder);
      expect(created.status).toBe(200);
      const done = await settle(allowing, node, created.body.id);
      expect(done.status).toBe('COMPLETED');
      expect(await node.client.getBalance({ address: forwarder })).toBe(parseEther(String(done.destAmount)));
    } finally {
      await allowing.t.close();
    }
  }, 60_000);

  it('an address of the wrong chain, or a currency the chain does not carry: 400, nothing written', async () => {
    const bitcoin = await withdraw(
      app,
      'ETH',
      '1',
      'tb1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq',
    );
    expect(bitcoin.status).toBe(400);
    expect(bitcoin.body).toMatchObject({ errorCode: 'validation.invalidAddress', problematicField: 'dest' });
    const avax = await withdraw(app, 'AVAX', '1', RECIPIENT);
    expect(avax.status).toBe(400);
    expect(avax.body).toMatchObject({ errorCode: 'validation.invalidAddress', problematicField: 'dest' });
  });

  it('the node down, answering errors or garbage: queued sends wait and go out once it answers', async () => {
    for (const mode of ['down', 'error', 'garbage'] as const) {
      const nonceBefore = await hotNonce();
      const created = await withdraw(app, 'ETH', '0.01', RECIPIENT);
      expect(created.status).toBe(200);
      proxy.mode = mode;
      try {
        await rounds(app, 4);
        expect((await getTransfer(app, created.body.id)).status, mode).toBe('PENDING');
      } finally {
        proxy.mode = 'forward';
      }
      const done = await settle(app, node, created.body.id);
      expect(done.status, mode).toBe('COMPLETED');
      expect(await hotNonce(), mode).toBe(nonceBefore + 1);
    }
  }, 90_000);

  it('the node unreachable: new sends on that chain answer 503 (transient), nothing written', async () => {
    proxy.mode = 'down';
    try {
      await new Promise((resolve) => setTimeout(resolve, 2500)); // the backend's probe notices
      const before = await balances(app.t, `account:${app.partner.accountId}`);
      const refused = await withdraw(app, 'ETH', '1', RECIPIENT);
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({
        errorCode: 'transfer.chainUnavailable',
        type: 'ServiceUnavailableException',
        transient: true,
      });
      expect(await balances(app.t, `account:${app.partner.accountId}`)).toEqual(before);
    } finally {
      proxy.mode = 'forward';
    }
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await withdraw(app, 'ETH', '0.01', RECIPIENT)).status).toBe(200);
  }, 30_000);
});
