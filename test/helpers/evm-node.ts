import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import {
  type Abi,
  bytesToHex,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { freePort } from './process.ts';

/**
 * A real EVM node for a test file: hardhat 2's network (chain id 31337) in a child process on a
 * free port, with the test contracts of test/fixtures/evm/contracts.json. Start one per test file
 * (beforeAll) and stop it in afterAll.
 */
export interface EvmNode {
  rpcUrl: string;
  chainId: number;
  /** Private keys of the node's funded accounts (10,000 ETH each). */
  fundedKeys: `0x${string}`[];
  /** Mines `blocks` blocks (default 1) at once. */
  mine(blocks?: number): Promise<void>;
  snapshot(): Promise<string>;
  revert(id: string): Promise<void>;
  /** Deploys a TestToken (mintable and pausable by fundedKeys[0]); returns its address. */
  deployToken(name: string, symbol: string, decimals: number): Promise<`0x${string}`>;
  /** Deploys a Forwarder: `forward(to)` sends the ETH it is given on to `to` (an internal transfer). */
  deployForwarder(): Promise<`0x${string}`>;
  /** Sends `wei` from fundedKeys[0]; mined at once while the node automines. */
  sendEth(to: `0x${string}`, wei: bigint): Promise<Hex>;
  /** Mints `units` of a TestToken to `to`. */
  mintToken(token: `0x${string}`, to: `0x${string}`, units: bigint): Promise<void>;
  /** Pauses or resumes a TestToken: a paused token's transfers revert. */
  pauseToken(token: `0x${string}`, paused: boolean, options?: { priorityFeeWei?: bigint }): Promise<Hex>;
  tokenBalance(token: `0x${string}`, owner: `0x${string}`): Promise<bigint>;
  /** Any JSON-RPC method (evm_setAutomine, hardhat_setNextBlockBaseFeePerGas, …). */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  client: PublicClient;
  stop(): Promise<void>;
}

const MNEMONIC = 'test test test test test test test test test test test junk';
const CONFIG = 'test/fixtures/evm/hardhat.config.cjs';
const START_TIMEOUT_MS = 60_000;

interface Artifact {
  abi: Abi;
  bytecode: Hex;
}
const ARTIFACTS = JSON.parse(
  readFileSync(new URL('../fixtures/evm/contracts.json', import.meta.url), 'utf8'),
) as {
  TestToken: Artifact;
  Forwarder: Artifact;
};

function fundedKeys(count: number): `0x${string}`[] {
  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC));
  return Array.from({ length: count }, (_, index) =>
    bytesToHex(root.derive(`m/44'/60'/0'/0/${index}`).privateKey!),
  );
}

function waitForListening(child: ChildProcess, output: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`hardhat node did not start:\n${output()}`)),
      START_TIMEOUT_MS,
    );
    const check = () => {
      if (output().includes('Started HTTP')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`hardhat node exited (${code}):\n${output()}`));
    });
  });
}

export async function startEvmNode(): Promise<EvmNode> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      'node_modules/hardhat/internal/cli/bootstrap.js',
      '--config',
      CONFIG,
      'node',
      '--hostname',
      '127.0.0.1',
      '--port',
      String(port),
    ],
    {
      env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true', NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out = (out + chunk.toString()).slice(-20_000);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    out = (out + chunk.toString()).slice(-20_000);
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await waitForListening(child, () => out);

  const rpcUrl = `http://127.0.0.1:${port}`;
  const chain = defineChain({
    id: 31337,
    name: 'hardhat',
    nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const transport = http(rpcUrl, { retryCount: 0 });
  const client = createPublicClient({ chain, transport, pollingInterval: 50, cacheTime: 0 }) as PublicClient;
  const keys = fundedKeys(5);
  const deployer = createWalletClient({ account: privateKeyToAccount(keys[0]!), chain, transport });
  const rpc = <T>(method: string, params: unknown[] = []) =>
    client.request({ method: method as never, params: params as never }) as Promise<T>;

  const mined = async (hash: Hex) => {
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    return receipt;
  };
  const deploy = async (artifact: Artifact, args: unknown[]) => {
    const hash = await deployer.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args });
    return (await mined(hash)).contractAddress!;
  };
  const tokenWrite = async (
    token: `0x${string}`,
    functionName: string,
    args: unknown[],
    priorityFeeWei?: bigint,
  ) =>
    deployer.writeContract({
      address: token,
      abi: ARTIFACTS.TestToken.abi,
      functionName,
      args,
      ...(priorityFeeWei
        ? { maxPriorityFeePerGas: priorityFeeWei, maxFeePerGas: priorityFeeWei * 1000n }
        : {}),
    } as never);

  return {
    rpcUrl,
    chainId: 31337,
    fundedKeys: keys,
    client,
    rpc,
    async mine(blocks = 1) {
      await rpc('hardhat_mine', [`0x${blocks.toString(16)}`]);
    },
    snapshot: () => rpc<string>('evm_snapshot'),
    async revert(id) {
      const reverted = await rpc<boolean>('evm_revert', [id]);
      if (!reverted) throw new Error(`no snapshot ${id}`);
    },
    deployToken: (name, symbol, decimals) => deploy(ARTIFACTS.TestToken, [name, symbol, decimals]),
    deployForwarder: () => deploy(ARTIFACTS.Forwarder, []),
    sendEth: async (to, wei) => {
      const hash = await deployer.sendTransaction({ to, value: wei });
      return hash;
    },
    async mintToken(token, to, units) {
      await mined(await tokenWrite(token, 'mint', [to, units]));
    },
    pauseToken: (token, paused, options) => tokenWrite(token, 'setPaused', [paused], options?.priorityFeeWei),
    tokenBalance: (token, owner) =>
      client.readContract({
        address: token,
        abi: ARTIFACTS.TestToken.abi,
        functionName: 'balanceOf',
        args: [owner],
      }) as Promise<bigint>,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
