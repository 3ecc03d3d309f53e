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
