import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { type Config, parseMasterKey } from '../config.ts';
import { open, randomToken, seal } from './crypto.ts';

export interface ResolvedSecrets {
  masterKey: Buffer;
  operatorToken: string;
  /** The custody mnemonic: configured, or (sandbox) the one kept sealed in `file`. */
  custodySeed: string | undefined;
  /** True when this start created them: the caller prints them once. */
  generated: boolean;
  file: string;
  /** The operator token is the one kept in `file` (none was configured). */
  tokenInFile: boolean;
}

interface SecretsFile {
  masterKey: string;
  operatorToken: string;
  /** The custody mnemonic sealed under the master key (base64): never kept in clear. */
  custodySeedSealed?: string;
}

/** What the sealed custody seed is bound to: a box cut from another secrets record does not open here. */
const SEED_ASSOCIATED_DATA = 'rampart:custody-seed';

/**
 * Production takes every secret from the environment (config.ts refuses a production
 * configuration without them, so only a sandbox gets this far without them all). Sandbox
 * generates any that are missing on first start and keeps them in `<dataDir>/sandbox-secrets.json`
 * (mode 0600), so restarts keep working credentials and the same custody addresses; the custody
 * seed (made only once a chain is configured) is kept there sealed under the master key, never
 * in clear.
 */
export async function resolveSecrets(config: Config): Promise<ResolvedSecrets> {
  const file = path.join(config.dataDir, 'sandbox-secrets.json');
  const seedNeeded =
    config.env === 'sandbox' && !config.custodySeed && Object.keys(config.evmChains).length > 0;
  if (config.masterKey && config.operatorToken && !seedNeeded) {
    return {
      masterKey: config.masterKey,
      operatorToken: config.operatorToken,
      custodySeed: config.custodySeed,
      generated: false,
      file,
      tokenInFile: false,
    };
  }
  let stored: SecretsFile | undefined;
  if (existsSync(file)) stored = JSON.parse(await readFile(file, 'utf8')) as SecretsFile;
  const generated = stored === undefined;
  const secrets: SecretsFile = stored ?? {
    masterKey: randomBytes(32).toString('hex'),
    operatorToken: randomToken(32),
  };
  const masterKey = config.masterKey ?? parseMasterKey(secrets.masterKey, file);
  let seedAdded = false;
  if (seedNeeded && secrets.custodySeedSealed === undefined) {
    secrets.custodySeedSealed = seal(
      masterKey,
      generateMnemonic(wordlist, 256),
      SEED_ASSOCIATED_DATA,
    ).toString('base64');
    seedAdded = true;
  }
  if (generated || seedAdded) {
    await mkdir(config.dataDir, { recursive: true });
    await writeFile(file, `${JSON.stringify(secrets, null, 2)}\n`, {
      mode: 0o600,
      flag: generated ? 'wx' : 'w',
    });
  }
  return {
    masterKey,
    operatorToken: config.operatorToken ?? secrets.operatorToken,
    custodySeed: config.custodySeed ?? (seedNeeded ? storedSeed(masterKey, secrets) : undefined),
    generated,
    file,
    tokenInFile: config.operatorToken === undefined,
  };
}

function storedSeed(masterKey: Buffer, secrets: SecretsFile): string | undefined {
  if (secrets.custodySeedSealed === undefined) return undefined;
  return open(masterKey, Buffer.from(secrets.custodySeedSealed, 'base64'), SEED_ASSOCIATED_DATA).toString(
    'utf8',
  );
}
