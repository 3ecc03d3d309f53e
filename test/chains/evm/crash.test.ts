import { parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../../../src/platform/clock.ts';
import { TEST_MASTER_KEY, TEST_OPERATOR_TOKEN } from '../../helpers/app.ts';
import { type EvmNode, startEvmNode } from '../../helpers/evm-node.ts';
import { type RampartProcess, spawnRampart } from '../../helpers/process.ts';
import { type RpcCall, type RpcProxy, startRpcProxy } from '../../helpers/rpc-proxy.ts';
import { expectLedgerSound } from '../../transfers/support.ts';
import {
  type ChainApp,
  chainEnv,
  fundHotWallet,
  getTransfer,
  HOT_WALLET,
  RECIPIENT,
  sendRows,
  startChainApp,
  withdraw,
} from './support.ts';

/**
 * Crash safety of a withdrawal against the real node: a `rampart worker` process is killed
 * (SIGKILL) at each step of a send, then started again. No hook in the worker: the kill comes
 * from the RPC proxy between it and the node, at the moment the worker asks the node for the
 * step's call (before it reaches the node, or once the node answered).
 */
let node: EvmNode;
let proxy: RpcProxy;
let app: ChainApp;
let env: Record<string, string>;

beforeAll(async () => {
  node = await startEvmNode();
  proxy = await startRpcProxy(node.rpcUrl);
  const chain = chainEnv(proxy.url, {}, { RAMPART_EVM_FEE_BUMP_AFTER_MS: '300', RAMPART_EVM_POLL_MS: '100' });
  app = await startChainApp(chain, { ETH: '1000' });
  await fundHotWallet(node, parseEther('50'));
  env = {
    ...chain,
    DATABASE_URL: app.t.database.url,
    RAMPART_MASTER_KEY: TEST_MASTER_KEY,
    RAMPART_OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
    RAMPART_DATA_DIR: 'data/test-unused',
    RAMPART_JOB_LEASE_SECONDS: '3',
    RAMPART_WORKER_POLL_MS: '50',
    LOG_LEVEL: 'silent',
  };
}, 120_000);
afterAll(async () => {
  await app?.t.close();
  await proxy?.close();
  await node?.stop();
});

type Step =
  | 'after the hold'
  | 'after signing'
  | 'after broadcast'
  | 'after a fee-bump replacement'
  | 'after inclusion';

/** Where the proxy kills the worker: before forwarding a call, or once the node answered it. */
function killAt(step: Step, kill: () => void) {
  let broadcasts = 0;
  proxy.before = (call: RpcCall) => {
    const stopHere =
      (step === 'after the hold' && call.method === 'eth_estimateGas') ||
      (step === 'after signing' && call.method === 'eth_sendRawTransaction');
    if (!stopHere) return 'forward';
    kill();
    return 'hang';
  };
  proxy.after = (call: RpcCall, result: unknown) => {
    if (call.method === 'eth_sendRawTransaction') broadcasts += 1;
    if (step === 'after broadcast' && call.method === 'eth_sendRawTransaction') kill();
    if (
      step === 'after a fee-bump replacement' &&
      call.method === 'eth_sendRawTransaction' &&
      broadcasts === 2
    )
      kill();
    if (step === 'after inclusion' && call.method === 'eth_getTransactionReceipt' && result) kill();
  };
}

async function untilStatus(id: string, mine: boolean, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const current = await getTransfer(app, id);
    if (current.status !== 'PENDING') return current;
    if (mine) await node.mine(1);
    await sleep(150);
  }
  throw new Error(`transfer ${id} still PENDING`);
}

/** What the dead worker left: the step it was killed at, and nothing further. */
async function expectStateAtKill(step: Step, reference: string) {
  const txs = await sendRows(app, reference);
  const known = async (hash: `0x${string}`) =>
    node.client.getTransaction({ hash }).then(
      () => true,
      () => false,
    );
  if (step === 'after the hold') {
    expect(txs).toEqual([]);
    return;
  }
  const last = txs.at(-1)!;
  // Killed before it could record the broadcast, or (after inclusion) long after it did.
  expect(last.broadcast, step).toBe(step === 'after inclusion');
  if (step === 'after signing') {
    expect(txs).toHaveLength(1);
    expect(await known(last.hash)).toBe(false);
  }
  if (step === 'after broadcast') expect(await known(last.hash)).toBe(true);
  if (step === 'after a fee-bump replacement') {
    expect(txs).toHaveLength(2);
    expect(await known(last.hash)).toBe(true);
  }
  if (step === 'after inclusion') {
    expect(txs.some((tx) => tx.broadcast)).toBe(true);
    const { rows } = await app.t.database.db.query('SELECT status FROM chain_sends WHERE reference = $1', [
      reference,
    ]);
    expect(rows).toEqual([{ status: 'QUEUED' }]);
  }
}

const STEPS: Step[] = [
  'after the hold',
  'after signing',
  'after broadcast',
  'after a fee-bump replacement',
  'after inclusion',
];

describe('a worker killed during a withdrawal', () => {
  for (const step of STEPS) {
    it(`${step}: after a restart, exactly one transaction on chain and the ledger matching it`, async () => {
      const nonceBefore = await node.client.getTransactionCount({ address: HOT_WALLET, blockTag: 'latest' });
      const paidBefore = await node.client.getBalance({ address: RECIPIENT });
      const bump = step === 'after a fee-bump replacement';
      if (bump) await node.rpc('evm_setAutomine', [false]);
      let worker: RampartProcess | undefined;
      let killed = false;
      try {
        worker = spawnRampart(['worker'], env);
        const dead = worker;
        killAt(step, () => {
          killed = true;
          dead.child.kill('SIGKILL');
        });
        const created = await withdraw(app, 'ETH', '2', RECIPIENT);
        expect(created.status).toBe(200);
        const reference = `transfer:${created.body.id}`;
        if (bump) {
          // Broadcast with today's fee, then the market moves past it: the sender replaces it.
          const until = Date.now() + 60_000;
          while ((await sendRows(app, reference)).length === 0 && Date.now() < until) await sleep(100);
          await sleep(300);
          await node.rpc('hardhat_setNextBlockBaseFeePerGas', ['0x174876e800']);
          await node.mine(1);
        }
        const until = Date.now() + 60_000;
        while (!killed && Date.now() < until) {
          if (step === 'after inclusion' || step === 'after broadcast') await node.mine(1);
          await sleep(100);
        }
        expect(killed, step).toBe(true);
        expect((await dead.exited).signal).toBe('SIGKILL');
        expect((await getTransfer(app, created.body.id)).status).toBe('PENDING');
        await expectStateAtKill(step, reference);

        proxy.before = undefined;
        proxy.after = undefined;
        if (bump) await node.rpc('evm_setAutomine', [true]);
        worker = spawnRampart(['worker'], env);
        const done = await untilStatus(created.body.id, true);
        expect(done.status).toBe('COMPLETED');

        const txs = await sendRows(app, reference);
        const mined: string[] = [];
        for (const tx of txs) {
          if (await node.client.getTransactionReceipt({ hash: tx.hash }).catch(() => undefined))
            mined.push(tx.hash);
        }
        expect(mined).toHaveLength(1);
        if (bump) expect(txs.length).toBeGreaterThanOrEqual(2);
        expect((done.blockchainTx as { networkTxId: string }).networkTxId).toBe(mined[0]);
        expect(await node.client.getTransactionCount({ address: HOT_WALLET, blockTag: 'latest' })).toBe(
          nonceBefore + 1,
        );
        expect(await node.client.getBalance({ address: RECIPIENT })).toBe(
          paidBefore + parseEther(String(done.destAmount)),
        );
        await expectLedgerSound(app.t);
      } finally {
        proxy.before = undefined;
        proxy.after = undefined;
        await node.rpc('evm_setAutomine', [true]);
        worker?.child.kill('SIGKILL');
        await worker?.exited;
      }
    }, 180_000);
  }
});
