import { createHash } from 'node:crypto';
import { open, seal } from '../platform/crypto.ts';
import { newKey } from '../platform/ids.ts';

/** Associated data binding a sealed secret to its key id: a box copied onto another key won't open. */
const aad = (apiKey: string) => `api-key:${apiKey}`;

export interface MintedCredentials {
  apiKey: string;
  secretKey: string;
  secretHash: string;
  secretSealed: Buffer;
}

/** SHA-256 of the secret: bearer tokens are found by this, never stored in clear. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function sealSecret(masterKey: Buffer, apiKey: string, secret: string): Buffer {
  return seal(masterKey, secret, aad(apiKey));
}

export function openSecret(masterKey: Buffer, apiKey: string, sealed: Buffer): Buffer {
  return open(masterKey, sealed, aad(apiKey));
}

export function mintCredentials(masterKey: Buffer, secretKey = newKey('SK')): MintedCredentials {
  const apiKey = newKey('AK');
  return {
    apiKey,
    secretKey,
    secretHash: hashSecret(secretKey),
    secretSealed: sealSecret(masterKey, apiKey, secretKey),
  };
}

const CACHE_TTL_MS = 60_000;
const CACHE_MAX = 10_000;

/**
 * Decrypted signing secrets, kept briefly so a signed request costs one AES open per minute
 * per key rather than one per request. Liveness is not cached: every signed request checks
 * in the database that its key still exists (keys-store recordSignatureUses).
 */
export class SigningSecretCache {
  private readonly entries = new Map<string, { secret: Buffer; expiresAt: number }>();

  constructor(private readonly masterKey: Buffer) {}

  get(apiKey: string, nowMs: number): Buffer | undefined {
    const entry = this.entries.get(apiKey);
    if (!entry || entry.expiresAt <= nowMs) return undefined;
    return entry.secret;
  }

  open(apiKey: string, sealed: Buffer, nowMs: number): Buffer {
    const secret = open(this.masterKey, sealed, aad(apiKey));
    if (this.entries.size >= CACHE_MAX) this.entries.clear();
    this.entries.set(apiKey, { secret, expiresAt: nowMs + CACHE_TTL_MS });
    return secret;
  }

  forget(apiKey: string): void {
    this.entries.delete(apiKey);
  }
}
