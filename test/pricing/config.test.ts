import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

const base = { RAMPART_MASTER_KEY: '11'.repeat(32), RAMPART_OPERATOR_TOKEN: 'x'.repeat(40) };

describe('pricing settings', () => {
  it('defaults to the reference table and checkout links on the first public URL', () => {
    const config = loadConfig({ ...base, RAMPART_PUBLIC_URL: 'https://api.example.com/, https://b.example' });
    expect(config.rateSource).toBe('reference');
    expect(config.rateFeed).toBeUndefined();
    expect(config.checkoutUrl).toBe('https://api.example.com');
  });

  it('reads a feed with its interval, timeout and stale age', () => {
    const config = loadConfig({
      ...base,
      RAMPART_RATE_SOURCE: 'feed',
      RAMPART_RATE_FEED_URL: 'https://prices.example/usd.json',
      RAMPART_RATE_FEED_INTERVAL_MS: '5000',
      RAMPART_RATE_FEED_TIMEOUT_MS: '1000',
      RAMPART_RATE_STALE_AFTER_MS: '30000',
      RAMPART_CHECKOUT_URL: 'https://pay.example.com/',
    });
    expect(config.rateFeed).toEqual({
      url: 'https://prices.example/usd.json',
      intervalMs: 5000,
      timeoutMs: 1000,
      staleAfterMs: 30000,
    });
    expect(config.checkoutUrl).toBe('https://pay.example.com');
  });

  it.each([
    [{ RAMPART_RATE_SOURCE: 'oracle' }, 'RAMPART_RATE_SOURCE'],
    [{ RAMPART_RATE_SOURCE: 'feed' }, 'RAMPART_RATE_FEED_URL'],
    [{ RAMPART_RATE_SOURCE: 'feed', RAMPART_RATE_FEED_URL: 'ftp://prices.example' }, 'RAMPART_RATE_FEED_URL'],
    [
      {
        RAMPART_RATE_SOURCE: 'feed',
        RAMPART_RATE_FEED_URL: 'http://p.example',
        RAMPART_RATE_STALE_AFTER_MS: '5000',
      },
      'RAMPART_RATE_STALE_AFTER_MS',
    ],
    [{ RAMPART_CHECKOUT_URL: 'javascript:alert(1)' }, 'RAMPART_CHECKOUT_URL'],
    [{ RAMPART_CHECKOUT_URL: 'https://pay.example/?a=1' }, 'RAMPART_CHECKOUT_URL'],
  ])('refuses %o, naming %s', (env, variable) => {
    let caught: unknown;
    try {
      loadConfig({ ...base, ...env });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variable).toBe(variable);
  });
});
