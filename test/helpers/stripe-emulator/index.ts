// An emulator of Stripe's API for tests: not Stripe. The HTTP server the SDK is pointed at.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type Stripe from 'stripe';
import { invalidRequest, StripeEmulatorError } from './errors.ts';
import { canonical, type FormObject, parseForm } from './form.ts';
import { StripeState } from './state.ts';
import {
  LIST,
  PAYMENT_INTENT_CANCEL,
  PAYMENT_INTENT_CAPTURE,
  PAYMENT_INTENT_CREATE,
  PAYMENT_METHOD_CREATE,
  positiveInteger,
  REFUND_CREATE,
  RETRIEVE,
  validate,
} from './validation.ts';
import { WebhookSender } from './webhooks.ts';

export { STRIPE_TEST_CARDS, TEST_CARDS } from './cards.ts';

export interface StripeEmulatorOptions {
  webhookSecret: string;
  webhookUrl?: string;
  /** The secret key the SDK must present; `sk_test_emulator` unless set. */
  secretKey?: string;
  /** Keys answered as expired (401 `api_key_expired`). */
  expiredKeys?: string[];
  /** The emulator's clock (objects' `created`, event timestamps); the wall clock unless set. */
  nowMs?: () => number;
}

/** How the next requests fail, for testing answers the connector cannot confirm. */
export type Fault =
  /** 500 `api_error` before anything happens. */
  | 'error500'
  /** No answer at all, nothing done: the client times out. */
  | 'timeout'
  /** The call is carried out and stored under its idempotency key, but no answer comes back. */
  | 'timeoutAfterProcessing';

export interface RequestLogEntry {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  status: number;
  replayed: boolean;
}

interface StoredAnswer {
  fingerprint: string;
  status: number;
  body: string;
}

export interface StripeEmulator {
  url: string;
  port: number;
  secretKey: string;
  close(): Promise<void>;
  state: StripeState;
  webhooks: WebhookSender;
  requests: RequestLogEntry[];
  /** The next `count` API requests fail as `fault` says. */
  failNext(count: number, fault: Fault): void;
  paymentIntent(id: string): Stripe.PaymentIntent;
  /** What visiting the 3-D Secure page with `?result=` does, without a browser. */
  completeThreeDSecure(id: string, result: 'approve' | 'decline'): Stripe.PaymentIntent;
  openDispute(paymentIntentId: string, reason?: string): Stripe.Dispute;
  closeDispute(disputeId: string, outcome: 'won' | 'lost'): Stripe.Dispute;
  createPayout(currency?: string): Stripe.Payout;
  balance(): Record<string, number>;
  balanceTransactions(): Stripe.BalanceTransaction[];
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function stringOf(params: FormObject, key: string): string | undefined {
  const value = params[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function metadataOf(params: FormObject): Stripe.Metadata {
  const value = params.metadata;
  return typeof value === 'object' && !Array.isArray(value) ? (value as Stripe.Metadata) : {};
}

function expandsOf(params: FormObject): string[] {
  const value = params.expand;
  return Array.isArray(value) ? (value as string[]) : [];
}

export async function startStripeEmulator(options: StripeEmulatorOptions): Promise<StripeEmulator> {
  const secretKey = options.secretKey ?? 'sk_test_emulator';
  const expired = new Set(options.expiredKeys ?? []);
  const nowSeconds = () => Math.floor((options.nowMs?.() ?? Date.now()) / 1000);
  let baseUrl = '';
  const webhooks = new WebhookSender(options.webhookUrl, options.webhookSecret, nowSeconds);
  const state = new StripeState(webhooks, nowSeconds, () => baseUrl);
  const idempotency = new Map<string, StoredAnswer>();
  const requests: RequestLogEntry[] = [];
  const faults: Fault[] = [];
  const sockets = new Set<Socket>();

  function renderIntent(intent: Stripe.PaymentIntent, expand: string[]): Stripe.PaymentIntent {
    const copy = structuredClone(intent);
    if (expand.includes('latest_charge') && typeof copy.latest_charge === 'string') {
      copy.latest_charge = structuredClone(state.charges.get(copy.latest_charge) ?? null);
    }
    if (expand.includes('payment_method') && typeof copy.payment_method === 'string') {
      copy.payment_method = structuredClone(state.paymentMethods.get(copy.payment_method)?.method ?? null);
    }
    return copy;
  }

  function checkExpand(expand: string[], allowed: string[]): void {
    for (const path of expand) {
      if (!allowed.includes(path))
        throw invalidRequest(`This property cannot be expanded (${path}).`, { param: 'expand' });
    }
  }

  function list<T extends { id: string; created: number }>(
    items: T[],
    params: FormObject,
    url: string,
  ): Stripe.ApiList<T> {
    validate(LIST, params);
    const created = params.created;
    const bound = (key: string) =>
      typeof created === 'object' && !Array.isArray(created) && typeof created[key] === 'string'
        ? Number(created[key])
        : undefined;
    const [gt, gte, lt, lte] = [bound('gt'), bound('gte'), bound('lt'), bound('lte')];
    let rows = items
      .map((item, index) => ({ item, index }))
      .filter(
        ({ item }) =>
          (gt === undefined || item.created > gt) &&
          (gte === undefined || item.created >= gte) &&
          (lt === undefined || item.created < lt) &&
          (lte === undefined || item.created <= lte),
      )
      // Newest first, as Stripe lists.
      .sort((a, b) => b.item.created - a.item.created || b.index - a.index)
      .map(({ item }) => item);
    const after = stringOf(params, 'starting_after');
    if (after) {
      const at = rows.findIndex((r) => r.id === after);
      if (at === -1)
        throw invalidRequest(`No such object: '${after}'`, {
          code: 'resource_missing',
          param: 'starting_after',
        });
      rows = rows.slice(at + 1);
    }
    const limit = params.limit === undefined ? 10 : Number(params.limit);
    if (limit < 1 || limit > 100)
      throw invalidRequest('This value must be between 1 and 100.', { param: 'limit' });
    return { object: 'list', data: rows.slice(0, limit), has_more: rows.length > limit, url };
  }

  /** One API call: its answer, or the Stripe error it throws. */
  function route(method: string, path: string, params: FormObject): unknown {
    if (method === 'POST' && path === '/v1/payment_methods') {
      validate(PAYMENT_METHOD_CREATE, params, ['type', 'card[number]', 'card[exp_month]', 'card[exp_year]']);
      const card = params.card as FormObject;
      const billing = (params.billing_details ?? {}) as FormObject;
      const address = (billing.address ?? {}) as FormObject;
      const nullable = (o: FormObject, k: string) => stringOf(o, k) ?? null;
      return state.createPaymentMethod({
        number: card.number as string,
        expMonth: Number(card.exp_month),
        expYear: Number(card.exp_year),
        cvc: stringOf(card, 'cvc'),
        billing: {
          address: {
            city: nullable(address, 'city'),
            country: nullable(address, 'country'),
            line1: nullable(address, 'line1'),
            line2: nullable(address, 'line2'),
            postal_code: nullable(address, 'postal_code'),
            state: nullable(address, 'state'),
          },
          email: nullable(billing, 'email'),
          name: nullable(billing, 'name'),
          phone: nullable(billing, 'phone'),
          tax_id: null,
        },
        metadata: metadataOf(params),
      });
    }
    if (method === 'GET' && /^\/v1\/payment_methods\/([^/]+)$/.test(path)) {
      const id = path.split('/')[3] as string;
      validate(RETRIEVE, params);
      return state.paymentMethod(id, 'id').method;
    }
    if (method === 'POST' && path === '/v1/payment_intents') {
      validate(PAYMENT_INTENT_CREATE, params, ['amount', 'currency']);
      const expand = expandsOf(params);
      checkExpand(expand, ['latest_charge', 'payment_method']);
      const amount = positiveInteger(params, 'amount') as number;
      const options = params.payment_method_options as FormObject | undefined;
      const card = options?.card as FormObject | undefined;
      const intent = state.createIntent({
        amount,
        currency: (params.currency as string).toLowerCase(),
        paymentMethod: stringOf(params, 'payment_method'),
        captureMethod: (stringOf(params, 'capture_method') ??
          'automatic') as Stripe.PaymentIntent.CaptureMethod,
        confirm: params.confirm === 'true',
        returnUrl: stringOf(params, 'return_url'),
        metadata: metadataOf(params),
        requestThreeDSecure: card?.request_three_d_secure as 'any' | 'automatic' | 'challenge' | undefined,
        statementDescriptorSuffix: stringOf(params, 'statement_descriptor_suffix'),
        description: stringOf(params, 'description'),
      });
      return renderIntent(intent, expand);
    }
    if (method === 'GET' && /^\/v1\/payment_intents\/([^/]+)$/.test(path)) {
      const id = path.split('/')[3] as string;
      validate(RETRIEVE, params);
      const expand = expandsOf(params);
      checkExpand(expand, ['latest_charge', 'payment_method']);
      return renderIntent(state.intent(id), expand);
    }
    if (method === 'POST' && /^\/v1\/payment_intents\/([^/]+)\/capture$/.test(path)) {
      const id = path.split('/')[3] as string;
      validate(PAYMENT_INTENT_CAPTURE, params);
      const expand = expandsOf(params);
      checkExpand(expand, ['latest_charge', 'payment_method']);
      return renderIntent(state.capture(id, positiveInteger(params, 'amount_to_capture')), expand);
    }
    if (method === 'POST' && /^\/v1\/payment_intents\/([^/]+)\/cancel$/.test(path)) {
      const id = path.split('/')[3] as string;
      validate(PAYMENT_INTENT_CANCEL, params);
      const expand = expandsOf(params);
      checkExpand(expand, ['latest_charge', 'payment_method']);
      const reason = stringOf(params, 'cancellation_reason') as
        | Stripe.PaymentIntent.CancellationReason
        | undefined;
      return renderIntent(state.cancel(id, reason), expand);
    }
    if (method === 'POST' && path === '/v1/refunds') {
      validate(REFUND_CREATE, params);
      const paymentIntent = stringOf(params, 'payment_intent');
      const charge = stringOf(params, 'charge');
      const amount = positiveInteger(params, 'amount');
      const reason = stringOf(params, 'reason');
      return state.createRefund({
        ...(paymentIntent ? { paymentIntent } : {}),
        ...(charge ? { charge } : {}),
        ...(amount !== undefined ? { amount } : {}),
        ...(reason ? { reason } : {}),
        metadata: metadataOf(params),
      });
    }
    if (method === 'GET' && /^\/v1\/refunds\/([^/]+)$/.test(path)) {
      const id = path.split('/')[3] as string;
      validate(RETRIEVE, params);
      const refund = state.refunds.get(id);
      if (!refund)
        throw invalidRequest(`No such refund: '${id}'`, {
          code: 'resource_missing',
          param: 'id',
          status: 404,
        });
      return refund;
    }
    if (method === 'GET' && path === '/v1/balance_transactions') {
      const page = list(state.balanceTransactions, params, path);
      const expand = expandsOf(params);
      checkExpand(expand, ['data.source']);
      if (expand.includes('data.source')) {
        page.data = page.data.map((bt) => ({
          ...structuredClone(bt),
          source: typeof bt.source === 'string' ? structuredClone(state.sourceObject(bt.source)) : bt.source,
        }));
      }
      return page;
    }
    if (method === 'GET' && path === '/v1/payouts') {
      checkExpand(expandsOf(params), []);
      return list([...state.payouts.values()], params, path);
    }
    if (method === 'GET' && /^\/v1\/disputes\/([^/]+)$/.test(path)) {
      const id = path.split('/')[3] as string;
      validate(RETRIEVE, params);
      const dispute = state.disputes.get(id);
      if (!dispute)
        throw invalidRequest(`No such dispute: '${id}'`, {
          code: 'resource_missing',
          param: 'dispute',
          status: 404,
        });
      return dispute;
    }
    throw invalidRequest(`Unrecognized request URL (${method}: ${path}).`, { status: 404 });
  }

  function authorize(req: IncomingMessage): void {
    const header = req.headers.authorization;
    if (!header) {
      throw invalidRequest(
        'You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth.',
        { status: 401 },
      );
    }
    const key = header.replace(/^Bearer\s+/i, '');
    if (expired.has(key))
      throw invalidRequest(`Expired API Key provided: ${key.slice(0, 8)}***`, {
        code: 'api_key_expired',
        status: 401,
      });
    if (key !== secretKey)
      throw invalidRequest(`Invalid API Key provided: ${key.slice(0, 8)}***`, { status: 401 });
  }

  /** Stripe's 3-D Secure step as the buyer's browser sees it. */
  function threeDSecurePage(res: ServerResponse, url: URL, id: string): void {
    const intent = state.intents.get(id);
    if (!intent) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('No such payment');
      return;
    }
    const result = url.searchParams.get('result');
    const returnUrl = intent.next_action?.redirect_to_url?.return_url;
    if (result !== 'approve' && result !== 'decline') {
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          `<!doctype html><title>3D Secure 2 Test Page</title><p>Emulated issuer challenge for ${id}.</p>` +
            `<a href="?result=approve">Complete authentication</a> <a href="?result=decline">Fail authentication</a>`,
        );
      return;
    }
    const done = state.completeThreeDSecure(id, result);
    const target = returnUrl ?? null;
    if (!target) {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(done.status);
      return;
    }
    const back = new URL(target);
    back.searchParams.set('payment_intent', done.id);
    back.searchParams.set('payment_intent_client_secret', done.client_secret ?? '');
    back.searchParams.set(
      'redirect_status',
      done.status === 'requires_payment_method' ? 'failed' : 'succeeded',
    );
    res.writeHead(302, { location: back.toString() }).end();
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://emulator');
    const method = req.method ?? 'GET';
    const threeDs = url.pathname.match(/^\/3ds\/([^/]+)$/);
    if (threeDs) {
      threeDSecurePage(res, url, threeDs[1] as string);
      return;
    }
    const body = await readBody(req);
    const params = parseForm(method === 'GET' || method === 'DELETE' ? url.search.slice(1) : body);
    const keyHeader = req.headers['idempotency-key'];
    const idempotencyKey = typeof keyHeader === 'string' ? keyHeader : undefined;
    const log = (status: number, replayed = false) =>
      requests.push({ method, path: url.pathname, idempotencyKey, status, replayed });
    const send = (status: number, text: string, headers: Record<string, string> = {}) => {
      res
        .writeHead(status, {
          'content-type': 'application/json',
          'request-id': `req_${Date.now()}`,
          ...headers,
        })
        .end(text);
    };

    const fault = faults.shift();
    if (fault === 'error500') {
      log(500);
      send(500, json({ error: { type: 'api_error', message: 'An unknown error occurred (emulated).' } }));
      return;
    }
    if (fault === 'timeout') {
      log(0);
      return; // never answered; closed when the emulator closes
    }

    let status: number;
    let text: string;
    try {
      authorize(req);
      const fingerprint = `${method} ${url.pathname} ${canonical(params)}`;
      const stored = method === 'POST' && idempotencyKey ? idempotency.get(idempotencyKey) : undefined;
      if (stored) {
        if (stored.fingerprint !== fingerprint) {
          throw new StripeEmulatorError({
            status: 400,
            body: {
              error: {
                type: 'idempotency_error',
                message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
              },
            },
          });
        }
        log(stored.status, true);
        if (fault === 'timeoutAfterProcessing') return;
        send(stored.status, stored.body, {
          'idempotent-replayed': 'true',
          'idempotency-key': idempotencyKey as string,
        });
        return;
      }
      try {
        const answer = route(method, url.pathname, params);
        status = 200;
        text = json(answer);
      } catch (error) {
        if (!(error instanceof StripeEmulatorError)) throw error;
        status = error.answer.status;
        text = json(error.answer.body);
        // Stripe keeps the answer of a call that ran (a decline, a state refusal) but not of one
        // refused before it ran (authentication, parameter validation).
        const ran =
          status === 402 ||
          (status === 400 && !/^parameter_|^idempotency/.test(error.answer.body.error.code ?? 'parameter_'));
        if (!ran) {
          log(status);
          send(status, text);
          return;
        }
      }
      if (method === 'POST' && idempotencyKey)
        idempotency.set(idempotencyKey, { fingerprint, status, body: text });
    } catch (error) {
      if (!(error instanceof StripeEmulatorError)) throw error;
      log(error.answer.status);
      send(error.answer.status, json(error.answer.body));
      return;
    }
    log(status);
    if (fault === 'timeoutAfterProcessing') return;
    send(status, text, idempotencyKey ? { 'idempotency-key': idempotencyKey } : {});
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' }).end(
        json({
          error: {
            type: 'api_error',
            message: `emulator failure: ${error instanceof Error ? error.message : String(error)}`,
          },
        }),
      );
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  baseUrl = `http://127.0.0.1:${port}`;

  return {
    url: baseUrl,
    port,
    secretKey,
    state,
    webhooks,
    requests,
    async close() {
      await webhooks.idle();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    failNext(count, fault) {
      for (let i = 0; i < count; i++) faults.push(fault);
    },
    paymentIntent: (id) => renderIntent(state.intent(id), ['latest_charge']),
    completeThreeDSecure: (id, result) => structuredClone(state.completeThreeDSecure(id, result)),
    openDispute: (id, reason) => structuredClone(state.openDispute(id, reason)),
    closeDispute: (id, outcome) => structuredClone(state.closeDispute(id, outcome)),
    createPayout: (currency) => structuredClone(state.createPayout(currency)),
    balance: () => state.balance(),
    balanceTransactions: () => structuredClone(state.balanceTransactions),
  };
}
