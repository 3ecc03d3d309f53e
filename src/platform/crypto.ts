import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/** AES-256-GCM sealed box: version byte, 12-byte nonce, 16-byte tag, ciphertext. */
const AEAD_VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export function seal(key: Buffer, plaintext: Buffer | string, associatedData?: string): Buffer {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  if (associatedData !== undefined) cipher.setAAD(Buffer.from(associatedData));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.from([AEAD_VERSION]), nonce, cipher.getAuthTag(), ciphertext]);
}

/** Throws when the box was tampered with, sealed under another key, or for other associated data. */
export function open(key: Buffer, box: Buffer, associatedData?: string): Buffer {
  if (box.length < 1 + NONCE_BYTES + TAG_BYTES || box[0] !== AEAD_VERSION)
    throw new Error('malformed sealed box');
  const nonce = box.subarray(1, 1 + NONCE_BYTES);
  const tag = box.subarray(1 + NONCE_BYTES, 1 + NONCE_BYTES + TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, nonce);
  if (associatedData !== undefined) decipher.setAAD(Buffer.from(associatedData));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(box.subarray(1 + NONCE_BYTES + TAG_BYTES)), decipher.final()]);
  } catch {
    // The operator's clue in the log: processes sharing a database must share the master key.
    throw new Error('sealed box does not open: tampered, or sealed under another RAMPART_MASTER_KEY');
  }
}

export function hmacSha256Hex(key: Buffer | string, ...parts: (Buffer | string)[]): string {
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(part);
  return mac.digest('hex');
}

export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Constant-time comparison of two secrets of any length: both sides are hashed first so
 * neither the content nor the length of the expected value leaks through timing.
 */
export function secretsEqual(given: string | Buffer, expected: string | Buffer): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
