import { parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkChainIds } from '../../../src/chains/port.ts';
import { sleep } from '../../../src/platform/clock.ts';
import type { JobRunner } from '../../../src/platform/jobs/runner.ts';
import type { TestApp } from '../../helpers/app.ts';
import { type EvmNode, startEvmNode } from '../../helpers/evm-node.ts';
import type { PartnerCredentials } from '../../helpers/partner.ts';
import { type RpcProxy, startRpcProxy } from '../../helpers/rpc-proxy.ts';
import {
  createOrder,
  ETH_ADDRESS,
  lockedBody,
  lockedReservation,
  nonZeroBalances,
  orderBody,
  postSigned,
  readOrder,
  startCardOrderApp,
  workerFor,
} from '../../wallet-orders/support.ts';
import { chainEnv, fundHotWallet, HOT_WALLET } from './support.ts';

/** A completed card order's crypto, delivered by a real transaction from the hot wallet. */
let node: EvmNode;
let proxy: RpcProxy;
let t: TestApp;
let partner: PartnerCredentials;
let worker: JobRunner;

beforeAll(async () => {
  node = await startEvmNode();
  proxy = await startRpcProxy(node.rpcUrl);
  ({ t, partner } = await startCardOrderApp({
    env: chainEnv(proxy.url, {}, { RAMPART_EVM_FUNDS_WAIT_MS: '500' }),
  }));
  await checkChainIds(t.ctx.chains.backends, { warn: () => undefined });
  worker = workerFor(t);
  await sleep(100); // workerFor registers the chain's sender without waiting for its first round's job
}, 120_000);
afterAll(async () => {
  await t?.close();
  await proxy?.close();
  await node?.stop();
});

async function untilSettled(orderId: string) {
  for (let round = 0; round < 80; round++) {
    await worker.drain();
    const order = await readOrder(t, partner, orderId);
    if (order.status === 'COMPLETE' || order.status === 'FAILED') return order;
    await node.mine(1);
    await sleep(60);
  }
  throw new Error(`order ${orderId} not settled`);
}

async function deliveryTx(orderId: string) {
  const { rows } = await t.database.db.query<{
    blockchain_tx: Record<string, unknown> | null;
    status: string;
  }>('SELECT blockchain_tx, status FROM chain_sends WHERE reference = $1', [`order:${orderId}`]);
  return rows[0]!;
}

describe('a card order delivered on a real chain', () => {
  it('is refused for a currency the chain does not carry (400), and while its node is down (503)', async () => {
    const usdc = await postSigned(
      t,
      partner,
      '/v3/orders/reserve',
      lockedBody(partner, { destCurrency: 'USDC' }),
    );
    expect(usdc.status).toBe(400);
    expect(await usdc.json()).toMatchObject({
      errorCode: 'validation.invalidAddress',
      problematicField: 'dest',
    });
    proxy.mode = 'down';
    try {
      await sleep(2500); // the backend's probe notices
      const refused = await postSigned(t, partner, '/v3/orders/reserve', lockedBody(partner));
      expect(refused.status).toBe(503);
      expect(await refused.json()).toMatchObject({ errorCode: 'transfer.chainUnavailable', transient: true });
    } finally {
      proxy.mode = 'forward';
    }
    await sleep(2500);
    expect((await postSigned(t, partner, '/v3/orders/reserve', lockedBody(partner))).status).toBe(200);
  }, 60_000);

  it('fails with the card refunded when the hot wallet cannot cover it in time', async () => {
    const { reservation, amount } = await lockedReservation(t, partner);
    const before = await nonZeroBalances(t);
    const created = await createOrder(t, partner, orderBody(partner, reservation, amount));
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    await sleep(600);
    const failed = await untilSettled(String(created.body.id));
    expect(failed).toMatchObject({ status: 'FAILED', errorCode: 'transfer.deliveryFailed' });
    expect(String(failed.errorMessage ?? JSON.stringify(failed))).toContain('hot wallet could not cover');
    expect(await nonZeroBalances(t)).toEqual(before);
  }, 60_000);

  it('goes COMPLETE once the transaction has its confirmations, with the real hash', async () => {
    await fundHotWallet(node, parseEther('10'));
    const paidBefore = await node.client.getBalance({ address: ETH_ADDRESS });
    const { reservation, amount } = await lockedReservation(t, partner);
    const created = await createOrder(t, partner, orderBody(partner, reservation, amount));
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const done = await untilSettled(String(created.body.id));
    expect(done.status).toBe('COMPLETE');
    const send = await deliveryTx(String(created.body.id));
    expect(send.status).toBe('CONFIRMED');
    const hash = send.blockchain_tx!.networkTxId as `0x${string}`;
    const receipt = await node.client.getTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    expect(receipt.from.toLowerCase()).toBe(HOT_WALLET.toLowerCase());
    // Exactly the order's destAmount (its decimal text: 18 decimals do not fit a JSON number).
    const delivered = String(send.blockchain_tx!.amount);
    expect(Number(delivered)).toBe(done.destAmount);
    expect(await node.client.getBalance({ address: ETH_ADDRESS })).toBe(paidBefore + parseEther(delivered));
  }, 60_000);
});
