import { generateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english.js';
import {
  type Address,
  createPublicClient,
  createWalletClient,
  erc20Abi,
  http,
  type PublicClient,
  parseEther,
  parseUnits,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { custodyKeys } from '../../src/chains/evm/custody-keys.ts';
import { evmDepositAddress } from '../../src/chains/evm/deposit-addresses.ts';
import { type EvmDepositSide, evmDepositSide } from '../../src/chains/evm/deposit-side.ts';
import { evmRpc } from '../../src/chains/evm/rpc.ts';
import { type EvmChainSettings, parseEvmChains } from '../../src/chains/evm/settings.ts';
import { sweepOnce } from '../../src/chains/evm/sweeper.ts';
import { watchOnce } from '../../src/chains/evm/watcher.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { type EvmNode, startEvmNode } from '../helpers/evm-node.ts';
import type { PartnerCredentials } from '../helpers/partner.ts';
import { freePort } from '../helpers/process.ts';
import { type RpcProxy, startRpcProxy } from '../helpers/rpc-proxy.ts';
import {
  approvedUser,
  balances,
  call,
  depositAddresses,
  expectLedgerSound,
  operator,
  startTransfersApp,
  type TransfersFixture,
} from '../transfers/support.ts';

// Not the node's mnemonic: its deposit keys would be the node's funded accounts.
const SEED = generateMnemonic(english);
const CONFIRMATIONS = 3;

let node: EvmNode;
let f: TransfersFixture;
let t: TestApp;
let partner: PartnerCredentials;
let token: Address;
let side: EvmDepositSide;
let settings: EvmChainSettings;
let client: PublicClient;
/** Between the watcher and the node: counts its HTTP requests and calls. */
let proxy: RpcProxy;
let payer: ReturnType<typeof privateKeyToAccount>;

beforeAll(async () => {
  node = await startEvmNode();
  token = (await node.deployToken('Test USD', 'USDC', 6)) as Address;
  const env = {
    RAMPART_CHAIN_ETHEREUM_RPC_URL: node.rpcUrl,
    RAMPART_CHAIN_ETHEREUM_CHAIN_ID: String(node.chainId),
    RAMPART_CHAIN_ETHEREUM_CONFIRMATIONS: String(CONFIRMATIONS),
    RAMPART_CHAIN_ETHEREUM_TOKENS: `USDC=${token}`,
    RAMPART_CUSTODY_SEED: SEED,
    // The hot wallet's sender runs a round whenever the test runs the due jobs.
    RAMPART_EVM_POLL_MS: '50',
  };
  f = await startTransfersApp({ env });
  ({ t, partner } = f);
  client = createPublicClient({ transport: http(node.rpcUrl) }) as PublicClient;
  settings = parseEvmChains(env).ethereum!;
  proxy = await startRpcProxy(node.rpcUrl);
  side = evmDepositSide(settings, custodyKeys(SEED), watchClient());
  payer = privateKeyToAccount(node.fundedKeys[1]!);
  await node.mintToken(token, payer.address, parseUnits('1000000', 6));
  // The watcher starts at the newest confirmed block: every deposit below comes after it.
  await watchOnce(t.ctx, side.watched);
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await f?.t.close();
  await node?.stop();
});

/** The client the backend gives its watcher and sweeper (batching), through the proxy. */
function watchClient(): PublicClient {
  return evmRpc({ ...settings, rpcUrl: proxy.url }, custodyKeys(SEED).hotWallet()).watchClient;
}

const FORWARDER_ABI = [
  {
    type: 'function',
    name: 'forward',
    stateMutability: 'payable',
    inputs: [{ name: 'to', type: 'address' }],
    outputs: [],
  },
] as const;

const wallet = () => createWalletClient({ account: payer, transport: http(node.rpcUrl), chain: undefined });

async function payNative(to: string, ether: string) {
  const hash = await wallet().sendTransaction({ to: to as Address, value: parseEther(ether), chain: null });
  await client.waitForTransactionReceipt({ hash });
  return hash;
}

async function payToken(to: string, amount: string) {
  const hash = await wallet().writeContract({
    address: token,
    abi: erc20Abi,
    functionName: 'transfer',
    args: [to as Address, parseUnits(amount, 6)],
    chain: null,
  });
  await client.waitForTransactionReceipt({ hash });
  return hash;
}

/** Mines until every block so far has its confirmations, then runs the watcher until caught up. */
async function confirmAndWatch() {
  await node.mine(CONFIRMATIONS);
  for (let pass = 0; pass < 50; pass++) {
    const done = await watchOnce(t.ctx, side.watched);
    if (!done?.behind) return;
  }
}

async function depositTransfers(owner: string) {
  const { rows } = await t.database.db.query<{ id: string }>(
    "SELECT id FROM transfers WHERE dest = $1 AND source = 'external:chain:ethereum' ORDER BY created_at",
    [owner],
  );
  return rows.map((row) => row.id);
}

describe('EVM deposit addresses', () => {
  it('gives every owner one derived address per chain, listed under ETH and each token, index recorded', async () => {
    const alice = await approvedUser(t, partner);
    const bob = await approvedUser(t, partner);
    const aliceAddresses = await depositAddresses(t, partner, alice);
    const bobAddresses = await depositAddresses(t, partner, bob);
    expect(aliceAddresses.ETH).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(aliceAddresses.USDC).toBe(aliceAddresses.ETH);
    expect(bobAddresses.ETH).not.toBe(aliceAddresses.ETH);
    const { rows } = await t.database.db.query<{ derivation_index: number; address: string }>(
      "SELECT derivation_index, address FROM evm_deposit_keys WHERE chain = 'ethereum' AND owner = $1",
      [`user:${alice}`],
    );
    expect(rows).toHaveLength(1);
    expect(custodyKeys(SEED).depositAccount(rows[0]!.derivation_index).address).toBe(aliceAddresses.ETH);
    // Asking again (the same owner) gives the same address.
    const again = await t.ctx.chains.backends.ethereum!.depositAddress(
      t.database.db,
      'ethereum',
      `user:${alice}`,
      'ETH',
    );
    expect(again.address).toBe(aliceAddresses.ETH);
    // The simulated chains keep their addresses.
    expect(aliceAddresses.BTC).toMatch(/^tb1/);
  });
});

describe('the EVM deposit watcher', () => {
  it('credits a native deposit once, only with its confirmations, with a transfer record', async () => {
    const userId = await approvedUser(t, partner);
    const owner = `user:${userId}`;
    const { ETH: address } = await depositAddresses(t, partner, userId);
    const subscribed = await call(t, partner, userId, 'POST', '/v3/subscriptions', {
      subscribeTo: owner,
      notifyTarget: 'http://127.0.0.1:9/hooks',
    });
    expect(subscribed.status, await subscribed.clone().text()).toBe(200);
    const hash = await payNative(address!, '1.5');
    await watchOnce(t.ctx, side.watched);
    expect((await balances(t, owner)).total).toEqual({});
    await confirmAndWatch();
    await confirmAndWatch();
    expect((await balances(t, owner)).total).toEqual({ ETH: '1.5' });
    const [transferId, ...more] = await depositTransfers(owner);
    expect(more).toEqual([]);
    const response = await call(t, partner, userId, 'GET', `/v3/transfers/${transferId}`);
    const body = await response.json();
    expect(body).toMatchObject({
      status: 'COMPLETED',
      source: 'external:chain:ethereum',
      dest: owner,
      sourceCurrency: 'ETH',
      destAmount: 1.5,
      blockchainTx: { networkTxId: hash, direction: 'INCOMING', amount: 1.5, currency: 'ETH', address },
    });
    const { rows: callbacks } = await t.database.db.query(
      'SELECT trigger FROM callback_deliveries WHERE trigger = $1',
      [`transfer:${transferId}`],
    );
    expect(callbacks).toEqual([{ trigger: `transfer:${transferId}` }]);
    await expectLedgerSound(t);
  });

  it('credits an ERC-20 Transfer to a deposit address', async () => {
    const userId = await approvedUser(t, partner);
    const owner = `user:${userId}`;
    const { USDC: address } = await depositAddresses(t, partner, userId);
    const hash = await payToken(address!, '25.5');
    await confirmAndWatch();
    expect((await balances(t, owner)).total).toEqual({ USDC: '25.5' });
    const { rows } = await t.database.db.query(
      'SELECT deposit_key, currency, amount FROM evm_deposits WHERE owner = $1',
      [owner],
    );
    expect(rows).toEqual([
      { deposit_key: expect.stringMatching(`^${hash}:\\d+$`), currency: 'USDC', amount: '25.5' },
    ]);
  });

  it('credits native coin a contract forwards (an internal transfer)', async () => {
    const userId = await approvedUser(t, partner);
    const owner = `user:${userId}`;
    const { ETH: address } = await depositAddresses(t, partner, userId);
    const forwarder = await node.deployForwarder();
    const hash = await wallet().writeContract({
      address: forwarder,
      abi: FORWARDER_ABI,
      functionName: 'forward',
      args: [address as Address],
      value: parseEther('0.25'),
      chain: null,
    });
    expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
    await confirmAndWatch();
    expect((await balances(t, owner)).total).toEqual({ ETH: '0.25' });
    const { rows } = await t.database.db.query<{ deposit_key: string }>(
      'SELECT deposit_key FROM evm_deposits WHERE owner = $1',
      [owner],
    );
    expect(rows.map((row) => row.deposit_key)).toEqual([
      expect.stringMatching(/^internal:0x[0-9a-f]{40}:\d+$/),
    ]);
  });

  it('never credits a deposit whose block a reorg removed', async () => {
    const userId = await approvedUser(t, partner);
    const owner = `user:${userId}`;
    const { ETH: address } = await depositAddresses(t, partner, userId);
    const snapshot = await node.snapshot();
    await payNative(address!, '2');
    await node.mine(CONFIRMATIONS - 2);
    await watchOnce(t.ctx, side.watched);
    await node.revert(snapshot);
    await confirmAndWatch();
    await confirmAndWatch();
    expect((await balances(t, owner)).total).toEqual({});
    expect(await depositTransfers(owner)).toEqual([]);
  });

  it('resumes from its cursor: blocks mined while it was stopped are credited, nothing twice', async () => {
    const userId = await approvedUser(t, partner);
    const owner = `user:${userId}`;
    const { ETH: address } = await depositAddresses(t, partner, userId);
    const before = await t.database.db.query<{ next_block: string }>(
      "SELECT next_block FROM evm_watch_cursors WHERE chain = 'ethereum'",
    );
    await payNative(address!, '0.5');
    await node.mine(250);
    // A new watcher (a restarted worker) with the same settings, reading in bounded ranges.
    const restarted = evmDepositSide(settings, custodyKeys(SEED), watchClient());
    let passes = 0;
    for (; passes < 20; passes++) if (!(await watchOnce(t.ctx, restarted.watched))?.behind) break;
    expect(passes).toBeGreaterThanOrEqual(2);
    const after = await t.database.db.query<{ next_block: string }>(
      "SELECT next_block FROM evm_watch_cursors WHERE chain = 'ethereum'",
    );
    expect(BigInt(after.rows[0]!.next_block)).toBeGreaterThan(BigInt(before.rows[0]!.next_block) + 200n);
    await confirmAndWatch();
    expect((await balances(t, owner)).total).toEqual({ ETH: '0.5' });
  });
});

async function reconciliation() {
  const answer = await operator(t, 'GET', '/operator/v1/chains/ethereum/reconciliation');
  const report = await answer.json();
  expect(answer.status, JSON.stringify(report)).toBe(200);
  return report as {
    balanced: boolean;
    houseDepositAddress: string;
    currencies: { currency: string; balanced: boolean; difference: number; houseInventory: number }[];
  };
}

/**
 * Sweeps, mines and watches until no sweep is open (each address has one at a time); the
 * worker's jobs run the hot wallet's sender, which pays the gas top-ups.
 */
async function sweepUntilSettled() {
  for (let round = 0; round < 10; round++) {
    await sweepOnce(t.ctx, side.swept);
    await f.runJobs();
    await confirmAndWatch();
    await f.runJobs();
    const { rows } = await t.database.db.query("SELECT 1 FROM evm_sweeps WHERE status = 'SENT'");
    const pass = await sweepOnce(t.ctx, side.swept);
    if (rows.length === 0 && pass.sent === 0 && pass.settled === 0 && pass.failed === 0) return;
    await confirmAndWatch();
  }
  const { rows } = await t.database.db.query(
    'SELECT kind, status, address, amount FROM evm_sweeps ORDER BY created_at',
  );
  const sends = await t.database.db.query('SELECT reference, status, failure_reason FROM chain_sends');
  throw new Error(`sweeps did not settle: ${JSON.stringify(rows)} ${JSON.stringify(sends.rows)}`);
}

describe('sweeping, inventory and reconciliation', () => {
  it('credits the house inventory from its deposit address (a ledger entry, no transfer)', async () => {
    const { houseDepositAddress } = await reconciliation();
    await payNative(houseDepositAddress, '5');
    await confirmAndWatch();
    expect((await balances(t, 'house:inventory')).total).toEqual({ ETH: '5' });
    expect(await depositTransfers('house:inventory')).toEqual([]);
  });

  it('sweeps native and token deposits into the hot wallet, gas to house:fees, owners untouched, and balances', async () => {
    const userId = await approvedUser(t, partner);
    const owner = `user:${userId}`;
    const { ETH: address } = await depositAddresses(t, partner, userId);
    await payNative(address!, '3');
    await payToken(address!, '40');
    await confirmAndWatch();
    const credited = await balances(t, owner);
    const hot = side.watched.hotWallet;
    await sweepUntilSettled();
    expect(await balances(t, owner)).toEqual(credited);
    // Every deposit so far, the house's 5 ETH and the tokens that needed a gas top-up included.
    expect(await client.getBalance({ address: hot })).toBeGreaterThan(parseEther('10'));
    const hotUsdc = await client.readContract({
      address: token,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [hot],
    });
    expect(hotUsdc).toBe(parseUnits('65.5', 6));
    const { rows } = await t.database.db.query<{ kind: string }>(
      "SELECT DISTINCT kind FROM evm_sweeps WHERE status = 'CONFIRMED' ORDER BY kind",
    );
    expect(rows.map((row) => row.kind)).toEqual(['gas', 'sweep']);
    expect(Number((await balances(t, 'house:fees')).total.ETH)).toBeLessThan(0);
    await expectLedgerSound(t);
    const report = await reconciliation();
    expect(report.currencies.map((line) => line.currency)).toEqual(['ETH', 'USDC']);
    expect(report.balanced, JSON.stringify(report)).toBe(true);
  }, 120_000);

  it('reports a planted discrepancy: coin the ledger does not know of', async () => {
    await payNative(side.watched.hotWallet, '0.75');
    await confirmAndWatch();
    const report = await reconciliation();
    expect(report.balanced).toBe(false);
    const eth = report.currencies.find((line) => line.currency === 'ETH');
    expect(eth).toMatchObject({ balanced: false, difference: 0.75, houseInventory: 5 });
    expect(report.currencies.find((line) => line.currency === 'USDC')?.balanced).toBe(true);
  });

  it('answers 503, transient, while the chain node does not answer', async () => {
    const down = await startTestApp({
      env: {
        RAMPART_CHAIN_ETHEREUM_RPC_URL: `http://127.0.0.1:${await freePort()}`,
        RAMPART_CUSTODY_SEED: SEED,
      },
    });
    try {
      const response = await operator(down, 'GET', '/operator/v1/chains/ethereum/reconciliation');
      const body = await response.json();
      expect(response.status, JSON.stringify(body)).toBe(503);
      expect(body).toMatchObject({ errorCode: 'chains.nodeUnreachable', transient: true });
    } finally {
      await down.close();
    }
  }, 30_000);

  it('answers 404 for a chain without real custody', async () => {
    const response = await operator(t, 'GET', '/operator/v1/chains/bitcoin/reconciliation');
    expect(response.status).toBe(404);
  });
});

describe('the watcher with many deposit addresses', () => {
  it('reads 1,000 addresses in a few batched requests a pass, finds an internal transfer among them, and sweeps it', async () => {
    const keys = custodyKeys(SEED);
    for (let index = 0; index < 1000; index++)
      await evmDepositAddress(t.database.db, keys, 'ethereum', `user:US_many${index}`);
    const userId = await approvedUser(t, partner);
    const { ETH: address } = await depositAddresses(t, partner, userId);
    const forwarder = await node.deployForwarder();
    const hash = await wallet().writeContract({
      address: forwarder,
      abi: FORWARDER_ABI,
      functionName: 'forward',
      args: [address as Address],
      value: parseEther('0.125'),
      chain: null,
    });
    expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
    await node.mine(CONFIRMATIONS);
    proxy.calls = [];
    proxy.requests = 0;
    const pass = await watchOnce(t.ctx, side.watched);
    expect(pass?.behind).toBe(false);
    expect((await balances(t, `user:${userId}`)).total).toEqual({ ETH: '0.125' });
    const balanceReads = proxy.calls.filter((call) => call.method === 'eth_getBalance').length;
    expect(balanceReads).toBeGreaterThan(1000);
    // Reads issued together go as JSON-RPC batches of up to 500 calls each.
    expect(proxy.requests).toBeLessThanOrEqual(12);

    // The sweeper reads every address's holdings together, then works only those holding coin.
    proxy.calls = [];
    proxy.requests = 0;
    const sweep = await sweepOnce(t.ctx, side.swept);
    expect(sweep.failed).toBe(0);
    expect(sweep.sent).toBeGreaterThanOrEqual(1);
    expect(proxy.calls.filter((call) => call.method === 'eth_getBalance').length).toBeGreaterThan(1000);
    expect(proxy.requests).toBeLessThanOrEqual(60);
  }, 60_000);
});
