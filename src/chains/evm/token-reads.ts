import { type Address, erc20Abi, type PublicClient } from 'viem';

/** What `holder` holds of the ERC-20 `contract`, in base units, at `blockNumber` (the latest when omitted). */
export function tokenBalance(
  client: PublicClient,
  contract: Address,
  holder: Address,
  blockNumber?: bigint,
): Promise<bigint> {
  return client.readContract({
    address: contract,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [holder],
    ...(blockNumber === undefined ? {} : { blockNumber }),
  });
}

/** A contract's decimals never change: each is read once per chain and process. */
const decimalsCache = new Map<string, number>();

export async function tokenDecimals(client: PublicClient, contract: Address): Promise<number> {
  const key = `${client.chain?.id ?? client.uid}:${contract.toLowerCase()}`;
  const known = decimalsCache.get(key);
  if (known !== undefined) return known;
  const decimals = Number(
    await client.readContract({ address: contract, abi: erc20Abi, functionName: 'decimals' }),
  );
  decimalsCache.set(key, decimals);
  return decimals;
}
