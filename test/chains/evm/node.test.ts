import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_MASTER_KEY, TEST_OPERATOR_TOKEN } from '../../helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../../helpers/db.ts';
import { type EvmNode, startEvmNode } from '../../helpers/evm-node.ts';
import { freePort, spawnRampart, tryConnect } from '../../helpers/process.ts';

const SEED = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

let node: EvmNode;
let database: TestDatabase;
beforeAll(async () => {
  [node, database] = await Promise.all([startEvmNode(), freshDatabase({ migrated: false })]);
}, 90_000);
afterAll(async () => {
  await node?.stop();
  await database?.drop();
});

async function serve(chainEnv: Record<string, string>) {
  const port = await freePort();
  const run = spawnRampart(['serve'], {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: database.url,
    RAMPART_MASTER_KEY: TEST_MASTER_KEY,
    RAMPART_OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
    RAMPART_CUSTODY_SEED: SEED,
    RAMPART_DATA_DIR: 'data/test-unused',
    RAMPART_WORKERS: 'false',
    LOG_LEVEL: 'silent',
    ...chainEnv,
  });
  return { run, port };
}

describe('the test EVM node', () => {
  it('is a real node: chain id 31337, funded accounts, contracts deployed, blocks mined, snapshots', async () => {
    expect(await node.client.getChainId()).toBe(31337);
    expect(node.fundedKeys).toHaveLength(5);
    const token = await node.deployToken('Test USD', 'USDC', 6);
    expect(
      await node.client.readContract({ address: token, abi: erc20Decimals, functionName: 'decimals' }),
    ).toBe(6);
    expect(await node.client.getCode({ address: await node.deployForwarder() })).toMatch(/^0x[0-9a-f]{10,}/);
    const snapshot = await node.snapshot();
    const before = await node.client.getBlockNumber({ cacheTime: 0 });
    await node.mine(5);
    expect(await node.client.getBlockNumber({ cacheTime: 0 })).toBe(before + 5n);
    await node.revert(snapshot);
    expect(await node.client.getBlockNumber({ cacheTime: 0 })).toBe(before);
  });
});

describe('the start check of a configured chain', () => {
  it('stops the process with one line when the node is of another chain', async () => {
    const { run } = await serve({
      RAMPART_CHAIN_ETHEREUM_RPC_URL: node.rpcUrl,
      RAMPART_CHAIN_ETHEREUM_CHAIN_ID: '1',
    });
    expect((await run.exited).code).toBe(1);
    expect(run.stderr()).toBe(
      'rampart: config error: RAMPART_CHAIN_ETHEREUM_CHAIN_ID: is 1, but the node at the RPC URL is chain 31337\n',
    );
  }, 60_000);

  it('starts when the chain id matches, and when the node cannot be reached', async () => {
    const closed = await freePort();
    for (const rpcUrl of [node.rpcUrl, `http://127.0.0.1:${closed}`]) {
      const { run, port } = await serve({
        RAMPART_CHAIN_ETHEREUM_RPC_URL: rpcUrl,
        RAMPART_CHAIN_ETHEREUM_CHAIN_ID: '31337',
      });
      try {
        await run.waitForStdout('is up at');
        expect(await tryConnect(port)).toBe('connected');
      } finally {
        run.child.kill('SIGTERM');
        expect((await run.exited).code).toBe(0);
      }
    }
  }, 90_000);
});

describe('stopping the node', () => {
  it('frees its port', async () => {
    const other = await startEvmNode();
    const port = Number(new URL(other.rpcUrl).port);
    expect(await tryConnect(port)).toBe('connected');
    await other.stop();
    expect(await tryConnect(port)).toBe('ECONNREFUSED');
  }, 90_000);
});

const erc20Decimals = [
  { type: 'function', name: 'decimals', stateMutability: 'view', inputs: [], outputs: [{ type: 'uint8' }] },
] as const;
