/**
 * `npm run bench:chain`: the EVM custody figures of issue 31, measured once against a real
 * hardhat node (test/helpers/evm-node.ts) with Rampart's own watcher and sender in this process:
 *
 * 1. deposit-to-credit latency (p50, p99) of 100 deposits spread over 1,000 deposit addresses, 2
 *    confirmations, a block every second (interval mining), the watcher run every second as its
 *    job is;
 * 2. withdrawals per second from one hot wallet over 200 sends, against 200 transfers signed and
 *    sent directly with viem to the same node in the same run;
 * 3. watcher catch-up: blocks per second over 10,000 blocks holding 1,000 deposits.
 *
 * The sweeper does not run (it would move the deposits while they are measured). The section is
 * written at the top of bench/RESULTS.md, as a `## Run` so `npm run bench` keeps it.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import pg from 'pg';
import pino from 'pino';
import { type Address, type Hex, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { custodyKeys } from '../../src/chains/evm/custody-keys.ts';
import { evmDepositAddress } from '../../src/chains/evm/deposit-addresses.ts';
import { evmDepositSide } from '../../src/chains/evm/deposit-side.ts';
import { evmRpc } from '../../src/chains/evm/rpc.ts';
import { parseEvmChains } from '../../src/chains/evm/settings.ts';
import { type WatchedChain, watchOnce } from '../../src/chains/evm/watcher.ts';
import {
  checkChainIds,
  closeChainBackends,
  registerChainSettlers,
  requestChainSends,
} from '../../src/chains/port.ts';
import { compose, environmentOf, portsFor, type Rampart } from '../../src/compose.ts';
import { loadConfig } from '../../src/config.ts';
import { sleep } from '../../src/platform/clock.ts';
import { migrate } from '../../src/platform/db/migrate.ts';
import { createPool, type Db, withTransaction } from '../../src/platform/db/pool.ts';
import { JobRunner } from '../../src/platform/jobs/runner.ts';
import { Money } from '../../src/platform/money.ts';
import { type EvmNode, startEvmNode } from '../../test/helpers/evm-node.ts';
import { markdownTable } from '../harness/report.ts';
import { percentile } from '../harness/stats.ts';

const SEED = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const PG_SERVER = process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432';
const DATABASE = 'rampart_bench_chain';
const RESULTS = process.env.BENCH_RESULTS || 'bench/RESULTS.md';
/** BENCH_CHAIN_SCALE (default 1) shrinks every count below, for a quick check of the script. */
const SCALE = Number(process.env.BENCH_CHAIN_SCALE || '1');
const ADDRESSES = Math.round(1000 * SCALE);
const DEPOSITS = Math.round(100 * SCALE);
const SENDS = Math.round(200 * SCALE);
const CATCH_UP_BLOCKS = Math.round(10_000 * SCALE);
const CATCH_UP_DEPOSITS = Math.round(1000 * SCALE);
const CONFIRMATIONS = 2;
/** The watcher job's period (deposit-side.ts WATCH_EVERY_MS). */
const WATCH_EVERY_MS = 1000;

const log = (message: string) => process.stdout.write(`[bench:chain] ${message}\n`);

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: `${PG_SERVER}/postgres` });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

interface Bench {
  node: EvmNode;
  db: Db;
  ctx: Rampart;
  watched: WatchedChain;
  close(): Promise<void>;
}

async function start(): Promise<Bench> {
  const node = await startEvmNode();
  await admin(async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${DATABASE}`);
  });
  const url = `${PG_SERVER}/${DATABASE}`;
  const db = createPool({ connectionString: url, max: 10, statementTimeoutMs: 30_000 });
  const asyncCommitDb = createPool({
    connectionString: url,
    max: 4,
    statementTimeoutMs: 30_000,
    synchronousCommit: false,
  });
  await migrate(db);
  const env = {
    RAMPART_MASTER_KEY: '11'.repeat(32),
    RAMPART_OPERATOR_TOKEN: 'bench-operator-token-0123456789-abcdefghijkl',
    LOG_LEVEL: 'silent',
    RAMPART_DATA_DIR: 'data/bench-unused',
    RAMPART_CHAIN_ETHEREUM_RPC_URL: node.rpcUrl,
    RAMPART_CHAIN_ETHEREUM_CHAIN_ID: String(node.chainId),
    RAMPART_CHAIN_ETHEREUM_CONFIRMATIONS: String(CONFIRMATIONS),
    RAMPART_CUSTODY_SEED: SEED,
    RAMPART_EVM_POLL_MS: '50',
  };
  const config = loadConfig(env);
  const ports = await portsFor(config, db);
  const runtime = { ...config, masterKey: config.masterKey!, operatorToken: config.operatorToken! };
  const ctx = compose(runtime, { db, asyncCommitDb }, ports, environmentOf(config));
  await checkChainIds(ctx.chains.backends, { warn: () => undefined });
  // The deposit side exactly as the backend builds it (backend.ts), so the watcher runs here alone.
  const settings = parseEvmChains(env).ethereum!;
  const keys = custodyKeys(SEED);
  const { watched } = evmDepositSide(settings, keys, evmRpc(settings, keys.hotWallet()).watchClient);
  return {
    node,
    db,
    ctx,
    watched,
    close: async () => {
      ports.prices.close();
      closeChainBackends(ports.chains);
      await db.end();
      await asyncCommitDb.end();
      await node.stop();
      await admin((client) => client.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`));
    },
  };
}

/** Signs native payments from one funded key with consecutive nonces, fees set once. */
async function payer(node: EvmNode, keyIndex: number) {
  const account = privateKeyToAccount(node.fundedKeys[keyIndex]!);
  let nonce = await node.client.getTransactionCount({ address: account.address, blockTag: 'pending' });
  const fees = await node.client.estimateFeesPerGas();
  const sign = (to: Address, value: bigint) =>
    account.signTransaction({
      chainId: node.chainId,
      type: 'eip1559',
      to,
      value,
      nonce: nonce++,
      gas: 21_000n,
      maxFeePerGas: fees.maxFeePerGas * 4n,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
  const send = async (serialized: Hex) =>
    node.client.sendRawTransaction({ serializedTransaction: serialized });
  return { address: account.address, sign, send };
}

/** The watcher job's loop: a pass (several while behind) every WATCH_EVERY_MS. */
function runWatcher(bench: Bench) {
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      for (let pass = 0; pass < 20; pass++) if (!(await watchOnce(bench.ctx, bench.watched))?.behind) break;
      await sleep(Math.max(0, WATCH_EVERY_MS - (Date.now() - started)));
    }
  })();
  return async () => {
    running = false;
    await loop;
  };
}

async function depositAddresses(bench: Bench, count: number): Promise<Address[]> {
  const keys = custodyKeys(SEED);
  const addresses: Address[] = [];
  for (let index = 0; index < count; index++)
    addresses.push((await evmDepositAddress(bench.db, keys, 'ethereum', `user:US_bench${index}`)) as Address);
  return addresses;
}

async function creditedKeys(db: Db, keys: readonly string[]): Promise<string[]> {
  const { rows } = await db.query<{ deposit_key: string }>(
    'SELECT deposit_key FROM evm_deposits WHERE deposit_key = ANY($1)',
    [keys],
  );
  return rows.map((row) => row.deposit_key);
}

async function depositLatency(bench: Bench, addresses: readonly Address[]) {
  await watchOnce(bench.ctx, bench.watched);
  const stopWatcher = runWatcher(bench);
  const from = await payer(bench.node, 1);
  const sentAt = new Map<string, number>();
  const creditedAt = new Map<string, number>();
  const poll = (async () => {
    while (creditedAt.size < DEPOSITS) {
      const waiting = [...sentAt.keys()].filter((key) => !creditedAt.has(key));
      if (waiting.length > 0)
        for (const key of await creditedKeys(bench.db, waiting)) creditedAt.set(key, Date.now());
      await sleep(20);
    }
  })();
  // One deposit every 100 ms to every tenth address: about ten per block, spread over ten seconds.
  for (let index = 0; index < DEPOSITS; index++) {
    const to = addresses[(index * (ADDRESSES / DEPOSITS)) % addresses.length]!;
    const signed = await from.sign(to, parseEther('0.01'));
    const hash = await from.send(signed);
    sentAt.set(`${hash}:native`, Date.now());
    await sleep(100);
  }
  await poll;
  await stopWatcher();
  const latencies = [...sentAt].map(([key, at]) => creditedAt.get(key)! - at).sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

async function waitUntil(check: () => Promise<boolean>, pollMs = 20): Promise<number> {
  while (!(await check())) await sleep(pollMs);
  return Date.now();
}

async function withdrawalRate(bench: Bench) {
  const { node, ctx, db } = bench;
  const hot = custodyKeys(SEED).hotWallet().address as Address;
  await node.client.waitForTransactionReceipt({ hash: await node.sendEth(hot, parseEther('1000')) });
  const runner = new JobRunner(db, pino({ level: 'silent' }), 50);
  await registerChainSettlers(runner, ctx);
  runner.start();
  const recipient = custodyKeys(SEED).depositAccount(999_999).address;
  const startNonce = await node.client.getTransactionCount({ address: hot, blockTag: 'pending' });
  const references = Array.from({ length: SENDS }, (_, index) => `transfer:TF_bench${index}`);
  const queuedAt = Date.now();
  await withTransaction(db, (tx) =>
    requestChainSends(
      ctx,
      tx,
      references.map((reference) => ({
        reference,
        chain: 'ethereum',
        address: recipient,
        currency: 'ETH',
        amount: new Money('0.001'),
      })),
    ),
  );
  const acceptedAt = await waitUntil(
    async () =>
      (await node.client.getTransactionCount({ address: hot, blockTag: 'pending' })) >= startNonce + SENDS,
  );
  const confirmedAt = await waitUntil(async () => {
    const { rows } = await db.query<{ done: string }>(
      "SELECT count(*) AS done FROM chain_sends WHERE reference = ANY($1) AND status <> 'QUEUED'",
      [references],
    );
    return Number(rows[0]!.done) === SENDS;
  }, 50);
  await runner.stop();
  const { rows } = await db.query<{ failed: string }>(
    "SELECT count(*) AS failed FROM chain_sends WHERE reference = ANY($1) AND status = 'FAILED'",
    [references],
  );
  return {
    accepted: SENDS / ((acceptedAt - queuedAt) / 1000),
    confirmed: SENDS / ((confirmedAt - queuedAt) / 1000),
    failed: Number(rows[0]!.failed),
  };
}

async function directRate(node: EvmNode) {
  const from = await payer(node, 2);
  const recipient = custodyKeys(SEED).depositAccount(999_998).address as Address;
  const signed: Hex[] = [];
  for (let index = 0; index < SENDS; index++) signed.push(await from.sign(recipient, parseEther('0.001')));
  const startNonce = await node.client.getTransactionCount({ address: from.address, blockTag: 'latest' });
  const sentAt = Date.now();
  for (const serialized of signed) await from.send(serialized);
  const acceptedAt = Date.now();
  await waitUntil(
    async () => (await node.client.getTransactionCount({ address: from.address })) >= startNonce + SENDS,
  );
  // The second confirmation: one more block.
  const minedBlock = await node.client.getBlockNumber({ cacheTime: 0 });
  const confirmedAt = await waitUntil(
    async () => (await node.client.getBlockNumber({ cacheTime: 0 })) > minedBlock,
  );
  return {
    accepted: SENDS / ((acceptedAt - sentAt) / 1000),
    confirmed: SENDS / ((confirmedAt - sentAt) / 1000),
  };
}

async function catchUp(bench: Bench, addresses: readonly Address[]) {
  const { node, db, ctx, watched } = bench;
  // Blocks on demand: every deposit in its own block, nine empty ones after each.
  await node.rpc('evm_setIntervalMining', [0]);
  await node.rpc('evm_setAutomine', [true]);
  while ((await watchOnce(ctx, watched))?.behind);
  const { rows } = await db.query<{ next_block: string }>(
    "SELECT next_block FROM evm_watch_cursors WHERE chain = 'ethereum'",
  );
  const from = await payer(node, 3);
  const emptyPerDeposit = CATCH_UP_BLOCKS / CATCH_UP_DEPOSITS - 1;
  const keys: string[] = [];
  for (let index = 0; index < CATCH_UP_DEPOSITS; index++) {
    const hash = await from.send(await from.sign(addresses[index % addresses.length]!, parseEther('0.002')));
    keys.push(`${hash}:native`);
    await node.mine(emptyPerDeposit);
  }
  const lastBlock = await node.client.getBlockNumber({ cacheTime: 0 });
  await node.mine(CONFIRMATIONS);
  // The cursor still where the watcher stopped: it has every block since to read.
  const cursor = BigInt(rows[0]!.next_block);
  const started = Date.now();
  let passes = 0;
  while ((await watchOnce(ctx, watched))?.behind) passes++;
  const seconds = (Date.now() - started) / 1000;
  const credited = (await creditedKeys(db, keys)).length;
  const blocks = Number(lastBlock + BigInt(CONFIRMATIONS) - cursor);
  return { blocks, seconds, passes: passes + 1, credited, rate: blocks / seconds };
}

async function machineLine(db: Db): Promise<string> {
  const { rows } = await db.query<{ server_version: string }>('SHOW server_version');
  const cpus = os.cpus();
  const memory = (os.totalmem() / 1024 ** 3).toFixed(1);
  return `${cpus.length} CPUs (${cpus[0]?.model.trim() ?? 'unknown'}), ${memory} GiB memory, ${os.type()} ${os.release()} ${os.arch()}; Node ${process.version}; PostgreSQL ${rows[0]!.server_version}; load average ${os.loadavg()[0]!.toFixed(2)}`;
}

const fixed = (value: number, digits = 1) => value.toFixed(digits);

async function writeResults(section: string) {
  const previous = await readFile(RESULTS, 'utf8');
  const first = previous.indexOf('\n## ');
  const [header, rest] =
    first < 0 ? [previous.trimEnd(), ''] : [previous.slice(0, first), previous.slice(first + 1)];
  await writeFile(RESULTS, `${header.trimEnd()}\n\n${section.trimEnd()}\n\n${rest.trimEnd()}\n`);
}

async function main() {
  const began = Date.now();
  const bench = await start();
  try {
    const loadAtStart = os.loadavg()[0]!;
    await bench.node.rpc('evm_setAutomine', [false]);
    await bench.node.rpc('evm_setIntervalMining', [1000]);
    log(`deriving ${ADDRESSES} deposit addresses`);
    const addresses = await depositAddresses(bench, ADDRESSES);
    log(`${DEPOSITS} deposits, ${CONFIRMATIONS} confirmations, a block a second`);
    const latency = await depositLatency(bench, addresses);
    log(`deposit-to-credit p50 ${latency.p50} ms, p99 ${latency.p99} ms`);
    log(`${SENDS} withdrawals from the hot wallet`);
    const rampart = await withdrawalRate(bench);
    log(`rampart ${fixed(rampart.accepted)}/s accepted, ${fixed(rampart.confirmed)}/s confirmed`);
    const direct = await directRate(bench.node);
    log(`direct viem ${fixed(direct.accepted)}/s accepted, ${fixed(direct.confirmed)}/s confirmed`);
    log(`catch-up over ${CATCH_UP_BLOCKS} blocks holding ${CATCH_UP_DEPOSITS} deposits`);
    const caught = await catchUp(bench, addresses);
    log(`catch-up ${fixed(caught.rate)} blocks/s (${caught.credited} credited)`);
    const machine = await machineLine(bench.db);
    const revision = execFileSync('git', ['rev-parse', '--short', 'HEAD']).toString().trim();
    const section = [
      `## Run ${new Date(began).toISOString().replace('T', ' ').slice(0, 19)} UTC: EVM custody (issue 31)`,
      '',
      `- Command: \`npm run bench:chain\` (${Math.round((Date.now() - began) / 1000)} s); one run, not a guard`,
      `- Rampart: ${revision}`,
      `- Machine: ${machine} at end, ${loadAtStart.toFixed(2)} at start`,
      "- Node: hardhat 2 (test/helpers/evm-node.ts) on 127.0.0.1; Rampart's watcher and sender run in the bench process on a fresh `rampart_bench_chain` database; the sweeper does not run",
      '',
      ...markdownTable(
        ['figure', 'value'],
        ['left', 'right'],
        [
          ['deposit-to-credit p50', `${latency.p50} ms`],
          ['deposit-to-credit p99', `${latency.p99} ms`],
          ['withdrawals/s, Rampart, to the node', fixed(rampart.accepted)],
          ['withdrawals/s, Rampart, confirmed', fixed(rampart.confirmed)],
          ['transfers/s, viem direct, to the node', fixed(direct.accepted)],
          ['transfers/s, viem direct, confirmed', fixed(direct.confirmed)],
          ['watcher catch-up', `${fixed(caught.rate)} blocks/s`],
        ],
      ),
      '',
      'What each figure means:',
      '',
      `- deposit-to-credit: ${DEPOSITS} native deposits to ${DEPOSITS} of ${ADDRESSES} deposit addresses, one every 100 ms; from the node accepting the payment to its credit committed in PostgreSQL; ${CONFIRMATIONS} confirmations, a block every second (interval mining), the watcher run every second as its job is`,
      `- withdrawals/s, Rampart: ${SENDS} sends of the hot wallet queued in one transaction (the chains port, as withdrawals queue them), worked by the EVM sender; "to the node" until the node holds all ${SENDS} transactions (the hot wallet's pending nonce), "confirmed" until every send is settled with ${CONFIRMATIONS} confirmations (${rampart.failed} failed)`,
      `- transfers/s, viem direct: ${SENDS} transfers signed beforehand with one funded key, sent one after another with sendRawTransaction; "confirmed" until the block after the last one's (${CONFIRMATIONS} confirmations)`,
      `- watcher catch-up: ${caught.blocks} blocks read from the watcher's cursor, ${CATCH_UP_DEPOSITS} deposits among them (${caught.credited} credited), ${ADDRESSES} deposit addresses, in ${caught.passes} passes of up to 100 blocks, ${fixed(caught.seconds)} s`,
    ].join('\n');
    await writeResults(section);
    log(`written to ${RESULTS}`);
  } finally {
    await bench.close();
  }
}

await main();
process.exit(0);
