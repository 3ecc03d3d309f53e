import { ConfigError } from '../config-error.ts';

type Env = Record<string, string | undefined>;

/**
 * Production's SMS provider for the orders' codes (docs/going-to-production.md, "SMS codes").
 * Undefined when none is configured: an order whose card needs an SMS code is then refused.
 */
export interface TwilioSettings {
  accountSid: string;
  /** Never logged, never stored: Twilio's HTTP Basic password. */
  authToken: string;
  /** A Twilio phone number (E.164) or a Messaging Service (`MG…`) that picks the sender itself. */
  sender: { from: string } | { messagingServiceSid: string };
  /**
   * Tests only: where the SDK's requests go instead of https://api.twilio.com (an emulator).
   * Refused in production, so the auth token never goes anywhere but Twilio.
   */
  apiUrl: string | undefined;
}

const NAMES = ['RAMPART_TWILIO_ACCOUNT_SID', 'RAMPART_TWILIO_AUTH_TOKEN', 'RAMPART_TWILIO_FROM'] as const;

function sender(raw: string): TwilioSettings['sender'] {
  if (/^MG[0-9a-fA-F]{32}$/.test(raw)) return { messagingServiceSid: raw };
  if (/^\+[1-9]\d{6,14}$/.test(raw)) return { from: raw };
  throw new ConfigError(
    'RAMPART_TWILIO_FROM',
    'must be a phone number in E.164 (+15005550006) or a Messaging Service SID (MG…)',
  );
}

function apiUrl(env: Env, production: boolean): string | undefined {
  const raw = env.RAMPART_TWILIO_API_URL?.trim();
  if (!raw) return undefined;
  if (production)
    throw new ConfigError(
      'RAMPART_TWILIO_API_URL',
      'is for tests only: it cannot be set when RAMPART_ENV=production',
    );
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('RAMPART_TWILIO_API_URL', `"${raw}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError('RAMPART_TWILIO_API_URL', 'must be http or https');
  return url.origin;
}

/** All three of account, token and sender, or none; a part of them stops the start. */
export function parseTwilioSettings(env: Env, production: boolean): TwilioSettings | undefined {
  const given = NAMES.filter((name) => env[name]?.trim());
  const url = apiUrl(env, production);
  if (given.length === 0) return undefined;
  const missing = NAMES.find((name) => !given.includes(name));
  if (missing) throw new ConfigError(missing, `is required when any RAMPART_TWILIO_* setting is set`);
  const accountSid = env.RAMPART_TWILIO_ACCOUNT_SID!.trim();
  if (!/^AC[0-9a-fA-F]{32}$/.test(accountSid))
    throw new ConfigError('RAMPART_TWILIO_ACCOUNT_SID', 'must be a Twilio Account SID: AC and 32 hex digits');
  const authToken = env.RAMPART_TWILIO_AUTH_TOKEN!.trim();
  // The value is never echoed: a ConfigError line is printed and logged.
  if (!/^[\x21-\x7e]{16,128}$/.test(authToken))
    throw new ConfigError(
      'RAMPART_TWILIO_AUTH_TOKEN',
      'must be 16 to 128 printable characters without spaces',
    );
  return { accountSid, authToken, sender: sender(env.RAMPART_TWILIO_FROM!.trim()), apiUrl: url };
}
