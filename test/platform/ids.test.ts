import { describe, expect, it } from 'vitest';
import {
  ID_ALPHABET,
  isId,
  newExceptionId,
  newId,
  newKey,
  newReservationId,
  randomChars,
  randomHex,
} from '../../src/platform/ids.ts';

const CHAR = '[23456789ABCDEFGHJKLMNPQRSTUVWXYZ]';

describe('ids', () => {
  it('uses the API.md alphabet: digits 2-9 and capitals without I and O', () => {
    expect(ID_ALPHABET).toBe('23456789ABCDEFGHJKLMNPQRSTUVWXYZ');
    expect(ID_ALPHABET).toHaveLength(32);
  });

  it('makes prefixed ids of 11 characters', () => {
    for (const prefix of ['AC', 'US', 'TF', 'WO', 'DA', 'PA', 'PT', 'DO'] as const) {
      const id = newId(prefix);
      expect(id).toMatch(new RegExp(`^${prefix}_${CHAR}{11}$`));
      expect(isId(id, prefix)).toBe(true);
    }
  });

  it('makes 20-character reservation ids and AK/SK keys in the Wyre shape', () => {
    expect(newReservationId()).toMatch(new RegExp(`^${CHAR}{20}$`));
    expect(newKey('AK')).toMatch(new RegExp(`^AK-${CHAR}{8}-${CHAR}{8}-${CHAR}{8}-${CHAR}{8}$`));
    expect(newKey('SK')).toMatch(new RegExp(`^SK-${CHAR}{8}-${CHAR}{8}-${CHAR}{8}-${CHAR}{8}$`));
  });

  it('makes exception ids with test_ in sandbox only', () => {
    expect(newExceptionId('test_')).toMatch(new RegExp(`^test_${CHAR}{6}$`));
    expect(newExceptionId('')).toMatch(new RegExp(`^${CHAR}{6}$`));
  });

  it('recognises ids of the right prefix and shape only', () => {
    expect(isId('AC_YQG97JUANCF', 'AC')).toBe(true);
    expect(isId('AC_YQG97JUANCF', 'US')).toBe(false);
    expect(isId('AC_YQG97JUANC', 'AC')).toBe(false); // 10 characters
    expect(isId('AC_YQG97JUANCFF', 'AC')).toBe(false); // 12 characters
    expect(isId('AC_YQG97JUANCI', 'AC')).toBe(false); // I is not in the alphabet
    expect(isId('AC_YQG97JUANC0', 'AC')).toBe(false); // nor 0
    expect(isId('AC_yqg97juancf', 'AC')).toBe(false);
    expect(isId('XAC_YQG97JUANCF', 'AC')).toBe(false);
  });

  it('is unique over 10,000 draws of each kind and uses the whole alphabet evenly', () => {
    const ids = new Set<string>();
    const keys = new Set<string>();
    const counts = new Map<string, number>();
    for (let i = 0; i < 10_000; i++) {
      const id = newId('TF');
      ids.add(id);
      keys.add(newKey('SK'));
      for (const char of id.slice(3)) counts.set(char, (counts.get(char) ?? 0) + 1);
    }
    expect(ids.size).toBe(10_000);
    expect(keys.size).toBe(10_000);
    expect([...counts.keys()].sort().join('')).toBe(ID_ALPHABET);
    // 110,000 characters over 32 symbols: about 3,437 each; a biased generator lands far outside.
    for (const count of counts.values()) {
      expect(count).toBeGreaterThan(3000);
      expect(count).toBeLessThan(3900);
    }
  });

  it('draws from a custom alphabet when given one', () => {
    expect(randomChars(50, 'AB')).toMatch(/^[AB]{50}$/);
    expect(randomChars(0)).toBe('');
  });

  it('draws hex strings from the pool, never the same bytes twice', () => {
    const drawn = Array.from({ length: 2000 }, () => randomHex(32));
    for (const value of drawn) expect(value).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(drawn).size).toBe(drawn.length);
    expect(randomHex(0)).toBe('');
  });
});
