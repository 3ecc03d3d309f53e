import twilio from 'twilio';
import type { MessageListInstanceCreateOptions } from 'twilio/lib/rest/api/v2010/account/message.js';
import type { SmsChannel, SmsMessage, SmsOutcome } from './code-sender.ts';
import type { TwilioSettings } from './twilio-settings.ts';

/** How long one Messages call may take before it counts as unconfirmed (the job asks again). */
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * The SDK's own way to send its requests elsewhere: a custom `httpClient` (twilio-node,
 * advanced-examples/custom-http-client.md). `edge` and `region` only rename the twilio.com host,
 * so a test's emulator is reached by handing the default client the same request with the
 * emulator's origin; path, auth and body stay the SDK's.
 */
class RelayedRequestClient extends twilio.RequestClient {
  constructor(private readonly origin: string) {
    super({ timeout: REQUEST_TIMEOUT_MS });
  }

  override request<TData>(opts: Parameters<twilio.RequestClient['request']>[0] & { data?: TData }) {
    const target = new URL(opts.uri);
    const relayed = new URL(`${target.pathname}${target.search}`, this.origin);
    return super.request<TData>({ ...opts, uri: relayed.toString() });
  }
}

/**
 * What Twilio's answer means for the code. 5xx, 429 and no answer at all are unconfirmed: asked
 * again. Any other 4xx is Twilio refusing this message (21211 an invalid number, 21610 a buyer
 * who replied STOP, 20003 wrong credentials): asking again changes nothing. The detail names the
 * HTTP status and Twilio's error code only: Twilio's messages may quote the phone number.
 */
function outcomeOfError(error: unknown): SmsOutcome {
  if (error instanceof twilio.RestException) {
    const detail = `Twilio answered ${error.status}, error ${error.code ?? 'none'}`;
    const retry = error.status >= 500 || error.status === 429;
    return { sent: false, unconfirmed: retry, detail };
  }
  const code = (error as { code?: unknown } | null)?.code;
  return { sent: false, unconfirmed: true, detail: `no answer from Twilio (${String(code ?? 'error')})` };
}

/**
 * Twilio's Programmable Messaging through the official SDK: one `messages.create` per code. The
 * SDK's debug logging (which prints request bodies, hence codes and numbers) stays off whatever
 * TWILIO_LOG_LEVEL says.
 */
export function twilioSmsChannel(settings: TwilioSettings): SmsChannel {
  const client = twilio(settings.accountSid, settings.authToken, {
    timeout: REQUEST_TIMEOUT_MS,
    logLevel: 'info',
    ...(settings.apiUrl ? { httpClient: new RelayedRequestClient(settings.apiUrl) } : {}),
  });
  return {
    name: 'twilio',
    async send({ to, body }: SmsMessage): Promise<SmsOutcome> {
      const request: MessageListInstanceCreateOptions = { to, body, ...settings.sender };
      try {
        const message = await client.messages.create(request);
        return { sent: true, reference: message.sid };
      } catch (error) {
        return outcomeOfError(error);
      }
    },
  };
}
