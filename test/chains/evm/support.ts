import pino from 'pino';
import { expect } from 'vitest';
import { custodyKeys } from '../../../src/chains/evm/custody-keys.ts';
import { checkChainIds, registerChainSettlers } from '../../../src/chains/port.ts';
import { sleep } from '../../../src/platform/clock.ts';
import { JobRunner } from '../../../src/platform/jobs/runner.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import type { EvmNode } from '../../helpers/evm-node.ts';
import { createPartner, type PartnerCredentials } from '../../helpers/partner.ts';
import { call, credit, type TransferBody } from '../../transfers/support.ts';

/** The custody seed of the EVM tests: BIP-39's first test vector (not the node's own mnemonic). */
export const SEED =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
export const HOT_WALLET = custodyKeys(SEED).hotWallet().address;
/** An address with no code on the test node (the custody's deposit index 7: nobody else uses it). */
export const RECIPIENT = custodyKeys(SEED).depositAccount(7).address;

export interface ChainApp {
  t: TestApp;
  partner: PartnerCredentials;
  runner: JobRunner;
}

/** The env of an app whose `ethereum` chain is the test node behind `rpcUrl`. */
export function chainEnv(rpcUrl: string, tokens: Record<string, string>, extra: Record<string, string> = {}) {
  return {
    RAMPART_CHAIN_ETHEREUM_RPC_URL: rpcUrl,
    RAMPART_CHAIN_ETHEREUM_CHAIN_ID: '31337',
    RAMPART_CHAIN_ETHEREUM_CONFIRMATIONS: '2',
    RAMPART_CHAIN_ETHEREUM_TOKENS: Object.entries(tokens)
      .map(([code, contract]) => `${code}=${contract}`)
      .join(','),
    RAMPART_CUSTODY_SEED: SEED,
    RAMPART_EVM_POLL_MS: '50',
    ...extra,
  };
}

/** A sandbox app on the chain, a partner holding `credits`, and a job runner to work its sends. */
export async function startChainApp(
  env: Record<string, string>,
  credits: Record<string, string>,
): Promise<ChainApp> {
  const t = await startTestApp({ env });
  await checkChainIds(t.ctx.chains.backends, { warn: () => undefined });
  const partner = await createPartner(t, { usersApi: true });
  for (const [currency, amount] of Object.entries(credits))
    await credit(t, `account:${partner.accountId}`, currency, amount);
  const runner = new JobRunner(t.database.db, pino({ level: 'silent' }), 50);
  await registerChainSettlers(runner, t.ctx);
  return { t, partner, runner };
}

/** Funds the hot wallet from the node's first account. */
export async function fundHotWallet(node: EvmNode, wei: bigint) {
  const hash = await node.sendEth(HOT_WALLET, wei);
  await node.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
}

export async function withdraw(app: ChainApp, currency: string, amount: string, address: string) {
  const response = await call(app.t, app.partner, null, 'POST', '/v3/transfers', {
    source: `account:${app.partner.accountId}`,
    sourceCurrency: currency,
    destCurrency: currency,
    sourceAmount: amount,
    dest: `ethereum:${address}`,
    autoConfirm: true,
  });
  const body = (await response.json()) as TransferBody & Record<string, unknown>;
  return { status: response.status, body };
}

export async function getTransfer(app: ChainApp, id: string): Promise<TransferBody> {
  const response = await call(app.t, app.partner, null, 'GET', `/v3/transfers/${id}`);
  expect(response.status).toBe(200);
  return (await response.json()) as TransferBody;
}

/** Works the sends (mining a block between rounds) until the transfer leaves PENDING. */
export async function settle(app: ChainApp, node: EvmNode, id: string, rounds = 60): Promise<TransferBody> {
  for (let round = 0; round < rounds; round++) {
    await app.runner.drain();
    const current = await getTransfer(app, id);
    if (current.status !== 'PENDING') return current;
    await node.mine(1);
    await sleep(60);
  }
  throw new Error(`transfer ${id} still PENDING after ${rounds} rounds`);
}

/** Runs the sender for a while without mining: whatever it does on its own. */
export async function rounds(app: ChainApp, count: number) {
  for (let round = 0; round < count; round++) {
    await app.runner.drain();
    await sleep(60);
  }
}

export async function sendRows(app: ChainApp, reference: string) {
  const { rows } = await app.t.database.db.query(
    `SELECT e.nonce::int AS nonce, t.hash, t.raw, t.broadcast_at IS NOT NULL AS broadcast
     FROM evm_sends e JOIN evm_send_txs t USING (reference) WHERE e.reference = $1 ORDER BY t.signed_at`,
    [reference],
  );
  return rows as { nonce: number; hash: `0x${string}`; raw: string; broadcast: boolean }[];
}
