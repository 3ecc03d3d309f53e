import { describe, expect, it } from 'vitest';
import { KnownDepositAddresses } from '../../src/chains/known-addresses.ts';

describe('known deposit addresses', () => {
  it('keeps what it is given and forgets the oldest owner past its capacity', () => {
    const known = new KnownDepositAddresses(2);
    known.remember('account:AC_A', { ETH: '0xa' });
    known.remember('account:AC_B', { ETH: '0xb' });
    known.remember('account:AC_C', { ETH: '0xc' });
    expect(known.get('account:AC_A')).toBeUndefined();
    expect(known.get('account:AC_B')).toEqual({ ETH: '0xb' });
    expect(known.get('account:AC_C')).toEqual({ ETH: '0xc' });
  });
});
