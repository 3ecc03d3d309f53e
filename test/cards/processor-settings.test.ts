import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

const PRODUCTION = {
  RAMPART_ENV: 'production',
  RAMPART_MASTER_KEY: 'ab'.repeat(32),
  RAMPART_OPERATOR_TOKEN: 'operator-token-0123456789-abcdefghijklmnop',
  DATABASE_URL: 'postgres://rampart@db.internal/rampart',
};

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('loadConfig accepted the settings');
}

describe('RAMPART_CARD_PROCESSOR and the Stripe settings', () => {
  it('defaults to the simulated processor in sandbox and to none in production', () => {
    expect(loadConfig({}).cardProcessor).toEqual({ kind: 'sandbox' });
    expect(loadConfig(PRODUCTION).cardProcessor).toEqual({ kind: 'none' });
    expect(loadConfig({}).cardSmsCodes).toBe('first-card-order');
  });

  it('refuses the simulated processor in production', () => {
    expect(refusal({ ...PRODUCTION, RAMPART_CARD_PROCESSOR: 'sandbox' }).message).toContain(
      'RAMPART_CARD_PROCESSOR',
    );
  });

  it('requires both Stripe secrets, naming the missing one, and never echoes a secret', () => {
    const noKey = refusal({ RAMPART_CARD_PROCESSOR: 'stripe', RAMPART_STRIPE_WEBHOOK_SECRET: 'whsec_abc' });
    expect(noKey.message).toContain('RAMPART_STRIPE_SECRET_KEY');
    expect(noKey.message).not.toContain('whsec_abc');
    const noWebhook = refusal({ RAMPART_CARD_PROCESSOR: 'stripe', RAMPART_STRIPE_SECRET_KEY: 'sk_test_abc' });
    expect(noWebhook.message).toContain('RAMPART_STRIPE_WEBHOOK_SECRET');
    expect(noWebhook.message).not.toContain('sk_test_abc');
  });

  it('takes Stripe with its keys, Stripe’s API URL unless another is given', () => {
    const env = {
      RAMPART_CARD_PROCESSOR: 'stripe',
      RAMPART_STRIPE_SECRET_KEY: 'sk_test_abc',
      RAMPART_STRIPE_WEBHOOK_SECRET: 'whsec_abc',
    };
    expect(loadConfig(env).cardProcessor).toEqual({
      kind: 'stripe',
      secretKey: 'sk_test_abc',
      webhookSecret: 'whsec_abc',
      apiUrl: 'https://api.stripe.com/',
    });
    const local = loadConfig({ ...env, RAMPART_STRIPE_API_URL: 'http://127.0.0.1:12111' }).cardProcessor;
    expect(local).toMatchObject({ apiUrl: 'http://127.0.0.1:12111/' });
    expect(refusal({ ...env, RAMPART_STRIPE_API_URL: 'ftp://x' }).message).toContain(
      'RAMPART_STRIPE_API_URL',
    );
    expect(refusal({ ...env, RAMPART_CARD_SMS_CODES: 'sometimes' }).message).toContain(
      'RAMPART_CARD_SMS_CODES',
    );
  });
});
