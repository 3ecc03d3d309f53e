import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { bytesToHex } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';

/** One custody key: its address, and its private key (kept in memory only, never stored or logged). */
export interface CustodyAccount {
  address: `0x${string}`;
  privateKey: `0x${string}`;
}

export interface CustodyKeys {
  /** The deposit address of BIP-44 index `index`: m/44'/60'/0'/0/<index>. */
  depositAccount(index: number): CustodyAccount;
  /** The hot wallet, which pays every send: m/44'/60'/1'/0/0, apart from every deposit address. */
  hotWallet(): CustodyAccount;
}

const DEPOSITS = "m/44'/60'/0'/0";
const HOT_WALLET = "m/44'/60'/1'/0/0";
/** BIP-32 non-hardened child indexes are below 2³¹. */
const MAX_INDEX = 0x7fffffff;

function accountAt(root: HDKey, path: string): CustodyAccount {
  const key = root.derive(path).privateKey;
  if (!key) throw new Error(`no private key at ${path}`);
  const privateKey = bytesToHex(key);
  return { address: privateKeyToAddress(privateKey), privateKey };
}

/**
 * The custody keys of one BIP-39 mnemonic (no passphrase), derived as BIP-44 Ethereum accounts.
 * The root stays in this closure; each account is derived when asked for.
 */
export function custodyKeys(mnemonic: string): CustodyKeys {
  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic));
  let hot: CustodyAccount | undefined;
  return {
    depositAccount(index: number) {
      if (!Number.isInteger(index) || index < 0 || index > MAX_INDEX)
        throw new Error(`deposit index ${index} is not a BIP-32 child index`);
      return accountAt(root, `${DEPOSITS}/${index}`);
    },
    hotWallet() {
      hot ??= accountAt(root, HOT_WALLET);
      return hot;
    },
  };
}
