import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  hmacSha256Hex,
  open,
  randomToken,
  seal,
  secretsEqual,
  sha256Hex,
} from '../../src/platform/crypto.ts';

const KEY = Buffer.alloc(32, 7);

describe('AES-256-GCM seal/open', () => {
  it('round-trips text and bytes, with and without associated data', () => {
    expect(open(KEY, seal(KEY, 'webhook secret')).toString()).toBe('webhook secret');
    const bytes = randomBytes(100);
    expect(open(KEY, seal(KEY, bytes, 'account:AC_1'), 'account:AC_1').equals(bytes)).toBe(true);
    expect(open(KEY, seal(KEY, '')).toString()).toBe('');
  });

  it('uses a fresh nonce: the same plaintext seals differently', () => {
    const a = seal(KEY, 'same');
    const b = seal(KEY, 'same');
    expect(a.equals(b)).toBe(false);
    expect(a.toString('hex')).not.toContain(Buffer.from('same').toString('hex'));
  });

  it('refuses a tampered byte anywhere, another key, and other associated data', () => {
    const box = seal(KEY, 'secret', 'aad-1');
    for (let i = 1; i < box.length; i++) {
      const tampered = Buffer.from(box);
      tampered[i] = (tampered[i] ?? 0) ^ 0x01;
      expect(() => open(KEY, tampered, 'aad-1'), `byte ${i}`).toThrow();
    }
    expect(() => open(Buffer.alloc(32, 8), box, 'aad-1')).toThrow(/another RAMPART_MASTER_KEY/);
    expect(() => open(KEY, box, 'aad-2')).toThrow();
    expect(() => open(KEY, box)).toThrow();
    expect(() => open(KEY, box.subarray(0, 20), 'aad-1')).toThrow(/malformed/);
    const otherVersion = Buffer.from(box);
    otherVersion[0] = 2;
    expect(() => open(KEY, otherVersion, 'aad-1')).toThrow(/malformed/);
    expect(open(KEY, box, 'aad-1').toString()).toBe('secret');
  });
});

describe('secretsEqual', () => {
  it('compares whole secrets of any length', () => {
    expect(secretsEqual('token-abc', 'token-abc')).toBe(true);
    expect(secretsEqual(Buffer.from('token-abc'), 'token-abc')).toBe(true);
    expect(secretsEqual('token-abd', 'token-abc')).toBe(false);
    expect(secretsEqual('token-ab', 'token-abc')).toBe(false);
    expect(secretsEqual('token-abcd', 'token-abc')).toBe(false);
    expect(secretsEqual('', 'token-abc')).toBe(false);
    expect(secretsEqual('', '')).toBe(true);
  });
});

describe('hashes', () => {
  it('matches the Wyre signature example', () => {
    expect(
      hmacSha256Hex(
        'SK-X6ABP7DG-2N92PBW3-XNQPM46V-3LLWGARL',
        'https://api.testwyre.com/account?timestamp=1536518677854',
      ),
    ).toBe('98b3573eb8faceb14d86a297fe18419f1fbb8795e811f866c536db7449ed1581');
  });

  it('hashes parts as their concatenation (URL then body)', () => {
    expect(hmacSha256Hex('k', 'https://x/a?timestamp=1', '{"a":1}')).toBe(
      hmacSha256Hex('k', 'https://x/a?timestamp=1{"a":1}'),
    );
    expect(hmacSha256Hex('k', 'a')).not.toBe(hmacSha256Hex('k2', 'a'));
  });

  it('computes SHA-256 in hex', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('makes url-safe random tokens of the asked strength', () => {
    const token = randomToken(32);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(randomToken(32)).not.toBe(token);
  });
});
