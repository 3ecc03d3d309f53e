import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startTestApp, type TestApp, testConfig } from '../helpers/app.ts';

/** RAMPART_TWILIO_* (README settings table) and what production wires from them (compose.ts portsFor). */

const SID = `AC${'0'.repeat(32)}`;
const TOKEN = 'abcdef0123456789abcdef0123456789';
const twilioEnv = {
  RAMPART_TWILIO_ACCOUNT_SID: SID,
  RAMPART_TWILIO_AUTH_TOKEN: TOKEN,
  RAMPART_TWILIO_FROM: '+15005550006',
};

describe('RAMPART_TWILIO_* settings', () => {
  it('reads a phone number or a Messaging Service as the sender, and none when nothing is set', () => {
    expect(testConfig(twilioEnv).twilio).toEqual({
      accountSid: SID,
      authToken: TOKEN,
      sender: { from: '+15005550006' },
      apiUrl: undefined,
    });
    const service = `MG${'1'.repeat(32)}`;
    expect(testConfig({ ...twilioEnv, RAMPART_TWILIO_FROM: service }).twilio?.sender).toEqual({
      messagingServiceSid: service,
    });
    expect(testConfig().twilio).toBeUndefined();
  });

  it.each([
    [{ RAMPART_TWILIO_ACCOUNT_SID: SID }, 'RAMPART_TWILIO_AUTH_TOKEN'],
    [{ ...twilioEnv, RAMPART_TWILIO_ACCOUNT_SID: 'AC123' }, 'RAMPART_TWILIO_ACCOUNT_SID'],
    [{ ...twilioEnv, RAMPART_TWILIO_FROM: '5005550006' }, 'RAMPART_TWILIO_FROM'],
    [{ ...twilioEnv, RAMPART_TWILIO_AUTH_TOKEN: 'short' }, 'RAMPART_TWILIO_AUTH_TOKEN'],
    [{ ...twilioEnv, RAMPART_TWILIO_API_URL: 'ftp://x' }, 'RAMPART_TWILIO_API_URL'],
  ])('refuses %j naming %s', (env, variable) => {
    expect(() => testConfig(env)).toThrow(new RegExp(`^${variable}: `));
  });

  it('never echoes the auth token, and refuses a test API URL in production', () => {
    const secret = 'secret token with spaces';
    expect(() => testConfig({ ...twilioEnv, RAMPART_TWILIO_AUTH_TOKEN: secret })).toThrow(
      /^(?!.*secret token)/,
    );
    const production = {
      RAMPART_ENV: 'production',
      RAMPART_MASTER_KEY: '11'.repeat(32),
      RAMPART_OPERATOR_TOKEN: 'test-operator-token-0123456789-abcdefghijkl',
      ...twilioEnv,
    };
    expect(loadConfig(production).twilio?.accountSid).toBe(SID);
    expect(() => loadConfig({ ...production, RAMPART_TWILIO_API_URL: 'http://127.0.0.1:1' })).toThrow(
      /^RAMPART_TWILIO_API_URL: is for tests only/,
    );
  });
});

describe('production with Twilio configured', () => {
  let prod: TestApp;
  afterAll(async () => prod?.close());

  it('sends SMS codes through Twilio and asks for no CARD2FA code', async () => {
    prod = await startTestApp({ env: { RAMPART_ENV: 'production', ...twilioEnv } });
    expect(prod.ctx.codeSender.channel?.name).toBe('twilio');
    expect(prod.ctx.codeSender.delivers).toEqual(['SMS']);
    expect(prod.ctx.codeSender.issue('WO_AAAAAAAAAAA', 'SMS')).toMatch(/^\d{6}$/);
  });
});
