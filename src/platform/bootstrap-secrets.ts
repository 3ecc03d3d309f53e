import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Config, parseMasterKey } from '../config.ts';
import { randomToken } from './crypto.ts';

export interface ResolvedSecrets {
  masterKey: Buffer;
  operatorToken: string;
  /** True when this start created them: the caller prints them once. */
  generated: boolean;
  file: string;
  /** The operator token is the one kept in `file` (none was configured). */
  tokenInFile: boolean;
}

interface SecretsFile {
  masterKey: string;
  operatorToken: string;
}

/**
 * Production takes both secrets from the environment (config.ts refuses a production
 * configuration without them, so only a sandbox gets this far without both). Sandbox generates any that are missing on first start and keeps them in
 * `<dataDir>/sandbox-secrets.json` (mode 0600), so restarts keep working credentials.
 */
export async function resolveSecrets(config: Config): Promise<ResolvedSecrets> {
  const file = path.join(config.dataDir, 'sandbox-secrets.json');
  if (config.masterKey && config.operatorToken) {
    return {
      masterKey: config.masterKey,
      operatorToken: config.operatorToken,
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
  if (generated) {
    await mkdir(config.dataDir, { recursive: true });
    await writeFile(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  }
  return {
    masterKey: config.masterKey ?? parseMasterKey(secrets.masterKey, file),
    operatorToken: config.operatorToken ?? secrets.operatorToken,
    generated,
    file,
    tokenInFile: config.operatorToken === undefined,
  };
}
