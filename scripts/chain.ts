/**
 * `npm run chain`: a local EVM chain for trying Rampart's real custody. Starts hardhat's node
 * (chain id 31337, a block a second) with a test USDC token, makes a fresh custody seed, and
 * prints the settings `npm start` needs. The hot wallet starts empty: deposits are swept into it,
 * and the operator funds card deliveries through the house's deposit address, so the
 * reconciliation balances from the first block. Ctrl-C stops the node.
 *
 * `npm run chain -- pay <rpcUrl> <address> <amount> [USDC <token>]`: sends ETH (or the test
 * token) from one of the node's funded test accounts, as a customer's deposit would arrive.
 */
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { type Address, createWalletClient, erc20Abi, http, parseEther, parseUnits } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { custodyKeys } from '../src/chains/evm/custody-keys.ts';
import { startEvmNode } from '../test/helpers/evm-node.ts';

const TOKEN_DECIMALS = 6;
/** hardhat's funded account #1 (its well-known test key): the customer paying in. */
const PAYER_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

async function start() {
  const node = await startEvmNode();
  const token = await node.deployToken('Test USD Coin', 'USDC', TOKEN_DECIMALS);
  const seed = generateMnemonic(wordlist, 256);
  const hot = custodyKeys(seed).hotWallet().address;
  await node.mintToken(token, privateKeyToAccount(PAYER_KEY).address, parseUnits('100000', TOKEN_DECIMALS));
  // Blocks keep coming, so deposits get their confirmations without anyone mining by hand.
  await node.rpc('evm_setIntervalMining', [1000]);
  process.stdout.write(`Local chain up at ${node.rpcUrl} (chain id ${node.chainId}, a block a second)
Test USDC token: ${token}
Hot wallet: ${hot} (empty: deposits are swept into it)

Start Rampart against it (the custody seed below is a fresh one for this chain only):

RAMPART_CHAIN_ETHEREUM_RPC_URL=${node.rpcUrl} \\
RAMPART_CHAIN_ETHEREUM_CHAIN_ID=${node.chainId} \\
RAMPART_CHAIN_ETHEREUM_CONFIRMATIONS=2 \\
RAMPART_CHAIN_ETHEREUM_TOKENS=USDC=${token} \\
RAMPART_CUSTODY_SEED="${seed}" \\
npm start

Pay a deposit address from a funded test account (it holds 10,000 ETH and 100,000 USDC):
  npm run chain -- pay ${node.rpcUrl} <address> 1.5
  npm run chain -- pay ${node.rpcUrl} <address> 25 USDC ${token}
Fund card-order deliveries: pay the houseDepositAddress that \`npx rampart reconcile ethereum\` names.
Ctrl-C stops the chain (its state is not kept).
`);
  const stop = () => void node.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

async function pay([rpcUrl, to, amount, currency, token]: string[]) {
  if (!rpcUrl || !to || !amount || (currency !== undefined && !token)) throw new Error('usage: pay <rpcUrl> <address> <amount> [USDC <token>]');
  const wallet = createWalletClient({ account: privateKeyToAccount(PAYER_KEY), transport: http(rpcUrl) });
  const hash =
    currency === undefined
      ? await wallet.sendTransaction({ to: to as Address, value: parseEther(amount), chain: null })
      : await wallet.writeContract({
          address: token as Address,
          abi: erc20Abi,
          functionName: 'transfer',
          args: [to as Address, parseUnits(amount, TOKEN_DECIMALS)],
          chain: null,
        });
  process.stdout.write(`sent ${amount} ${currency ?? 'ETH'} to ${to}: ${hash}\n`);
}

const [command, ...rest] = process.argv.slice(2);
try {
  if (command === 'pay') await pay(rest);
  else if (command === undefined) await start();
  else throw new Error('usage: npm run chain [-- pay <rpcUrl> <address> <amount> [USDC <token>]]');
} catch (error) {
  process.stderr.write(`chain: ${(error as Error).message}\n`);
  process.exit(1);
}
