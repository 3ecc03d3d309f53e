import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { ConfigError } from '../../config-error.ts';

/**
 * RAMPART_CUSTODY_SEED: a BIP-39 mnemonic (English word list, checksum checked). The refusal
 * never repeats the value: it is the key to every coin in custody.
 */
export function parseCustodySeed(raw: string): string {
  const mnemonic = raw.trim().split(/\s+/).join(' ');
  if (!validateMnemonic(mnemonic, wordlist))
    throw new ConfigError('RAMPART_CUSTODY_SEED', 'is not a valid BIP-39 mnemonic (English words, checksum)');
  return mnemonic;
}
