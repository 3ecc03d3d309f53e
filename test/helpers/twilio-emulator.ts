// An emulator of Twilio's Messages endpoint (POST /2010-04-01/Accounts/{AccountSid}/Messages.json), for tests without the network; not Twilio.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
  MessageInstance,
  MessageListInstanceCreateOptions,
} from 'twilio/lib/rest/api/v2010/account/message.js';

/**
 * Its requests are typed with the `twilio` package's own create options, its answers with the
 * SDK's own message resource (the payload MessageInstance is built from), and the message it
 * answers is Twilio's published example of a created message with the request's values in it:
 * https://www.twilio.com/docs/sms/api/message-resource ("Create a Message resource", example
 * response). Its refusals are Twilio's, with Twilio's error codes
 * (https://www.twilio.com/docs/api/errors): HTTP Basic credentials that do not match → 401
 * 20003; no `To` → 400 21604; no `Body` → 400 21602; neither `From` nor `MessagingServiceSid`
 * → 400 21603; a `To` not in E.164 → 400 21211; and Twilio's magic test number +15005550001
 * (invalid) likewise.
 */

/** The message resource as the SDK receives it (MessageInstance's payload), dates as Twilio writes them. */
type MessageResource = ConstructorParameters<typeof MessageInstance>[1];
export type WireMessage = {
  [K in keyof MessageResource]: MessageResource[K] extends Date ? string | null : MessageResource[K] | null;
};

/** Twilio's error document, as the SDK's RestException reads it. */
interface TwilioError {
  code: number;
  message: string;
  more_info: string;
  status: number;
}

/** What the emulator received: the SDK's create options, from the form fields Twilio documents. */
export interface ReceivedMessage {
  accountSid: string;
  options: Partial<MessageListInstanceCreateOptions>;
}

export interface TwilioEmulator {
  url: string;
  accountSid: string;
  authToken: string;
  /** Every request that reached the Messages endpoint with valid credentials, refused or not. */
  received: ReceivedMessage[];
  /** The messages it accepted (201). */
  accepted: WireMessage[];
  /** The next `count` valid requests answer `status` (a 5xx: Twilio down for a moment). */
  failNext(status: number, count?: number): void;
  close(): Promise<void>;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

function rfc2822(date: Date): string {
  return date.toUTCString().replace('GMT', '+0000');
}

function errorOf(status: number, code: number, message: string): TwilioError {
  return { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status };
}

/** The published example message, its values replaced by the request's. */
function createdMessage(accountSid: string, options: MessageListInstanceCreateOptions): WireMessage {
  const sid = `SM${hex(16)}`;
  const now = rfc2822(new Date());
  const uri = `/2010-04-01/Accounts/${accountSid}/Messages/${sid}.json`;
  return {
    account_sid: accountSid,
    api_version: '2010-04-01',
    body: options.body ?? '',
    date_created: now,
    date_sent: null,
    date_updated: now,
    direction: 'outbound-api',
    error_code: null,
    error_message: null,
    from: options.from ?? null,
    messaging_service_sid: options.messagingServiceSid ?? null,
    num_media: '0',
    num_segments: '1',
    price: null,
    price_unit: 'USD',
    sid,
    // A Messaging Service first accepts the message, then picks its sender.
    status: options.messagingServiceSid ? 'accepted' : 'queued',
    subresource_uris: { media: `${uri.slice(0, -'.json'.length)}/Media.json` },
    to: options.to,
    uri,
  };
}

/** Twilio's checks of a create request, in the order it reports them. */
function refusalOf(options: Partial<MessageListInstanceCreateOptions>): TwilioError | undefined {
  if (!options.to) return errorOf(400, 21604, "A 'To' phone number is required.");
  if (!options.from && !options.messagingServiceSid)
    return errorOf(400, 21603, "A 'From' or 'MessagingServiceSid' parameter is required to send a message.");
  if (!options.body) return errorOf(400, 21602, 'Message body is required.');
  if (!/^\+[1-9]\d{6,14}$/.test(options.to) || options.to === '+15005550001')
    return errorOf(400, 21211, `The 'To' number ${options.to} is not a valid phone number.`);
  return undefined;
}

/** The form fields Twilio documents, as the SDK's create options name them. */
function optionsOf(form: URLSearchParams): Partial<MessageListInstanceCreateOptions> {
  const field = (name: string) => form.get(name) ?? undefined;
  const options: Partial<MessageListInstanceCreateOptions> = {};
  const to = field('To');
  const from = field('From');
  const body = field('Body');
  const service = field('MessagingServiceSid');
  if (to !== undefined) options.to = to;
  if (from !== undefined) options.from = from;
  if (body !== undefined) options.body = body;
  if (service !== undefined) options.messagingServiceSid = service;
  return options;
}

function authorized(request: IncomingMessage, accountSid: string, authToken: string): boolean {
  const header = request.headers.authorization ?? '';
  if (!header.startsWith('Basic ')) return false;
  const [user, password] = Buffer.from(header.slice(6), 'base64').toString().split(':');
  return user === accountSid && password === authToken;
}

function answer(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

async function formOf(request: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString());
}

export async function startTwilioEmulator(): Promise<TwilioEmulator> {
  const accountSid = `AC${hex(16)}`;
  const authToken = hex(16);
  const received: ReceivedMessage[] = [];
  const accepted: WireMessage[] = [];
  const failures: number[] = [];
  const path = /^\/2010-04-01\/Accounts\/(AC[0-9a-f]{32})\/Messages\.json$/;

  const server: Server = createServer(async (request, response) => {
    const match = path.exec(request.url ?? '');
    if (request.method !== 'POST' || !match)
      return answer(response, 404, errorOf(404, 20404, 'The requested resource was not found'));
    if (!authorized(request, accountSid, authToken) || match[1] !== accountSid)
      return answer(response, 401, errorOf(401, 20003, 'Authenticate'));
    const options = optionsOf(await formOf(request));
    received.push({ accountSid: match[1]!, options });
    const failure = failures.shift();
    if (failure !== undefined)
      return answer(response, failure, errorOf(failure, 20500, 'Internal Server Error'));
    const refusal = refusalOf(options);
    if (refusal) return answer(response, refusal.status, refusal);
    const message = createdMessage(accountSid, options as MessageListInstanceCreateOptions);
    accepted.push(message);
    return answer(response, 201, message);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    accountSid,
    authToken,
    received,
    accepted,
    failNext: (status, count = 1) => failures.push(...Array.from({ length: count }, () => status)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
