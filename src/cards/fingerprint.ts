import { createHmac } from 'node:crypto';

/**
 * A keyed fingerprint of the card number: the same card always maps to the same value (so limits
 * can count spend per card), but without the key nobody can test guesses against it, which an
 * unkeyed hash of a 16-digit number with a known BIN would allow in seconds. The key is derived
 * from the master key under its own label, so it is never the key used for anything else.
 * Derived once per master key (one per process in practice), not once per order.
 */
const derivedKeys = new WeakMap<Buffer, Buffer>();

function cardFingerprintKey(masterKey: Buffer): Buffer {
  let key = derivedKeys.get(masterKey);
  if (key === undefined) {
    key = createHmac('sha256', masterKey).update('rampart card fingerprint v1').digest();
    derivedKeys.set(masterKey, key);
  }
  return key;
}

export function cardFingerprint(masterKey: Buffer, pan: string): string {
  return createHmac('sha256', cardFingerprintKey(masterKey)).update(pan).digest('hex');
}
