import { describe, expect, it } from 'vitest';
import { parseTwilioSettings } from '../../src/wallet-orders/twilio-settings.ts';
import { twilioSmsChannel } from '../../src/wallet-orders/twilio-sms.ts';

/**
 * The Twilio channel against Twilio itself, with the account's test credentials (no message is
 * delivered, nothing is charged) and Twilio's magic test numbers: +15005550006 as a valid
 * sender, +15005550001 an invalid recipient (21211), +15005550009 one that cannot receive SMS
 * (21614). Runs when TWILIO_TEST_ACCOUNT_SID and TWILIO_TEST_AUTH_TOKEN are set; reported as
 * skipped otherwise.
 */
const sid = process.env.TWILIO_TEST_ACCOUNT_SID;
const token = process.env.TWILIO_TEST_AUTH_TOKEN;

describe.skipIf(!sid || !token)(
  'Twilio live, test credentials (TWILIO_TEST_ACCOUNT_SID / TWILIO_TEST_AUTH_TOKEN)',
  () => {
    const channel = () =>
      twilioSmsChannel(
        parseTwilioSettings(
          {
            RAMPART_TWILIO_ACCOUNT_SID: sid,
            RAMPART_TWILIO_AUTH_TOKEN: token,
            RAMPART_TWILIO_FROM: '+15005550006',
          },
          false,
        )!,
      );
    const body = '123456 is your card purchase verification code. Do not share it.';

    it('accepts a code for a valid number and answers the message sid', async () => {
      const outcome = await channel().send({ to: '+14155550100', body });
      expect(outcome).toMatchObject({ sent: true });
      if (outcome.sent) expect(outcome.reference).toMatch(/^SM[0-9a-f]{32}$/);
    });

    it('refuses the invalid and the unreachable magic numbers, for good', async () => {
      expect(await channel().send({ to: '+15005550001', body })).toEqual({
        sent: false,
        unconfirmed: false,
        detail: 'Twilio answered 400, error 21211',
      });
      expect(await channel().send({ to: '+15005550009', body })).toEqual({
        sent: false,
        unconfirmed: false,
        detail: 'Twilio answered 400, error 21614',
      });
    });
  },
);
