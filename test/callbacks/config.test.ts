import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.ts';
import { testConfig } from '../helpers/app.ts';

describe('RAMPART_CALLBACK_RETRIES', () => {
  it('defaults to 0 (spec §6: one attempt) and takes 0–10', () => {
    expect(testConfig().callbackRetries).toBe(0);
    expect(testConfig({ RAMPART_CALLBACK_RETRIES: '3' }).callbackRetries).toBe(3);
  });

  it.each(['-1', '11', 'two', '1.5'])('refuses %s naming the variable', (value) => {
    expect(() => testConfig({ RAMPART_CALLBACK_RETRIES: value })).toThrow(ConfigError);
    expect(() => testConfig({ RAMPART_CALLBACK_RETRIES: value })).toThrow(/^RAMPART_CALLBACK_RETRIES: /);
  });
});

describe('RAMPART_CALLBACK_ALLOW_LOOPBACK', () => {
  it('defaults to true in sandbox and false in production', () => {
    expect(testConfig().callbackAllowLoopback).toBe(true);
    expect(testConfig({ RAMPART_ENV: 'production' }).callbackAllowLoopback).toBe(false);
  });

  it('a hosted sandbox turns it off; production may say false', () => {
    expect(testConfig({ RAMPART_CALLBACK_ALLOW_LOOPBACK: 'false' }).callbackAllowLoopback).toBe(false);
    expect(
      testConfig({ RAMPART_ENV: 'production', RAMPART_CALLBACK_ALLOW_LOOPBACK: '0' }).callbackAllowLoopback,
    ).toBe(false);
  });

  it.each([
    [{ RAMPART_ENV: 'production', RAMPART_CALLBACK_ALLOW_LOOPBACK: 'true' }],
    [{ RAMPART_ENV: 'production', RAMPART_CALLBACK_ALLOW_LOOPBACK: '1' }],
    [{ RAMPART_CALLBACK_ALLOW_LOOPBACK: 'yes' }],
  ])('refuses %o naming the variable', (env) => {
    expect(() => testConfig(env)).toThrow(ConfigError);
    expect(() => testConfig(env)).toThrow(/^RAMPART_CALLBACK_ALLOW_LOOPBACK: /);
  });
});
