import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressAllowed, embeddedIpv4 } from '../../src/callbacks/address-policy.ts';
import { assertNotifyUrlAllowed } from '../../src/callbacks/service.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { snapshotTables } from '../helpers/db.ts';
import { expectEnvelopeResponse } from '../helpers/http.ts';
import { createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import { queueTransferCallbacks, type Receiver, settled, startReceiver, testWorker } from './support.ts';

const PRODUCTION = { allowLoopback: false };
const SANDBOX = { allowLoopback: true };

describe('address policy', () => {
  it.each([
    '0.0.0.0',
    '10.1.2.3',
    '100.64.0.1',
    '127.0.0.1',
    '127.255.255.254',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '192.0.2.1',
    '198.18.0.1',
    '224.0.0.1',
    '240.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '::127.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'fec0::1',
    'ff02::1',
    '2001:db8::1',
    '2001::1',
  ])('refuses %s in production', (address) => {
    expect(addressAllowed(address, PRODUCTION)).toBe(false);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '2002:808:808::',
  ])('allows the public address %s', (address) => {
    expect(addressAllowed(address, PRODUCTION)).toBe(true);
  });

  it('sandbox allows loopback, and nothing else that production refuses', () => {
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1'])
      expect(addressAllowed(address, SANDBOX)).toBe(true);
    for (const address of ['10.0.0.1', '169.254.169.254', 'fe80::1', 'fc00::1', '0.0.0.0', '::'])
      expect(addressAllowed(address, SANDBOX)).toBe(false);
  });

  it('reads the IPv4 inside mapped, translated, NAT64 and 6to4 addresses', () => {
    expect(embeddedIpv4('::ffff:7f00:1')).toBe('127.0.0.1');
    expect(embeddedIpv4('::ffff:10.9.8.7')).toBe('10.9.8.7');
    expect(embeddedIpv4('::ffff:0:7f00:1')).toBe('127.0.0.1');
    expect(embeddedIpv4('::ffff:0:10.9.8.7')).toBe('10.9.8.7');
    expect(embeddedIpv4('64:ff9b::a9fe:a9fe')).toBe('169.254.169.254');
    expect(embeddedIpv4('2002:c0a8:101::1')).toBe('192.168.1.1');
    expect(embeddedIpv4('2606:4700::1')).toBeUndefined();
    expect(embeddedIpv4('::7f00:1')).toBeUndefined();
  });

  // Every way an IPv6 address can stand for (or hide) an IPv4 one, as the URL of a callback.
  // [host, allowed in production, allowed in sandbox (which also takes loopback)]
  const embedded: [string, boolean, boolean][] = [
    // IPv4-mapped ::ffff:0:0/96
    ['[::ffff:127.0.0.1]', false, true],
    ['[::ffff:7f00:1]', false, true],
    ['[0:0:0:0:0:ffff:7f00:1]', false, true],
    ['[::FFFF:A9FE:A9FE]', false, false],
    ['[::ffff:10.0.0.1]', false, false],
    ['[::ffff:8.8.8.8]', true, true],
    // IPv4-translated ::ffff:0:0:0/96 (RFC 2765)
    ['[::ffff:0:7f00:1]', false, true],
    ['[::ffff:0:127.0.0.1]', false, true],
    ['[0:0:0:0:ffff:0:7f00:1]', false, true],
    ['[::ffff:0:a9fe:a9fe]', false, false],
    ['[::ffff:0:c0a8:101]', false, false],
    ['[::ffff:0:0:0]', false, false],
    ['[::ffff:0:808:808]', true, true],
    // IPv4-compatible ::/96 (deprecated): refused whatever it carries
    ['[::127.0.0.1]', false, false],
    ['[::7f00:1]', false, false],
    ['[::8.8.8.8]', false, false],
    ['[::]', false, false],
    ['[::1]', false, true],
    // NAT64 well-known prefix 64:ff9b::/96, and the local-use 64:ff9b:1::/48
    ['[64:ff9b::127.0.0.1]', false, true],
    ['[64:ff9b::a9fe:a9fe]', false, false],
    ['[64:ff9b::a00:1]', false, false],
    ['[64:ff9b::808:808]', true, true],
    ['[64:ff9b:1::808:808]', false, false],
    // 6to4 2002::/16
    ['[2002:7f00:1::]', false, true],
    ['[2002:a9fe:a9fe::1]', false, false],
    ['[2002:c0a8:101:1::1]', false, false],
    ['[2002:808:808::1]', true, true],
    // Teredo 2001::/32 (and the rest of 2001::/23)
    ['[2001:0:4136:e378:8000:63bf:3fff:fdd2]', false, false],
    ['[2001::7f00:1]', false, false],
    ['[2001:2::1]', false, false],
    // Ordinary public IPv6
    ['[2606:4700:4700::1111]', true, true],
  ];

  it.each(embedded)('https://%s/hook: production %s, sandbox %s', (host, production, sandbox) => {
    const address = new URL(`https://${host}/hook`).hostname.slice(1, -1);
    expect(addressAllowed(address, PRODUCTION)).toBe(production);
    expect(addressAllowed(address, SANDBOX)).toBe(sandbox);
  });
});

describe('production refuses callback URLs that could reach inside', () => {
  let t: TestApp;
  let partner: PartnerCredentials;
  let local: Receiver;

  beforeAll(async () => {
    t = await startTestApp({ env: { RAMPART_ENV: 'production' } });
    partner = await createPartner(t);
    local = await startReceiver('accept');
  });
  afterAll(async () => {
    await local.close();
    await t.close();
  });

  const refused: [string, string][] = [
    ['http://example.com/hook', 'validation.invalidValue'],
    ['ftp://example.com/hook', 'validation.invalidValue'],
    ['https://user:pass@example.com/hook', 'validation.invalidValue'],
    ['https://localhost/hook', 'validation.forbiddenCallbackHost'],
    ['https://127.0.0.1/hook', 'validation.forbiddenCallbackHost'],
    ['https://2130706433/hook', 'validation.forbiddenCallbackHost'],
    ['https://0x7f.1/hook', 'validation.forbiddenCallbackHost'],
    ['https://[::1]/hook', 'validation.forbiddenCallbackHost'],
    ['https://[::ffff:127.0.0.1]/hook', 'validation.forbiddenCallbackHost'],
    ['https://[::ffff:a9fe:a9fe]/hook', 'validation.forbiddenCallbackHost'],
    ['https://[::ffff:0:7f00:1]/', 'validation.forbiddenCallbackHost'],
    ['https://[::ffff:0:a9fe:a9fe]/hook', 'validation.forbiddenCallbackHost'],
    ['https://[64:ff9b::7f00:1]/hook', 'validation.forbiddenCallbackHost'],
    ['https://[2002:a9fe:a9fe::]/hook', 'validation.forbiddenCallbackHost'],
    ['https://[fe80::1]/hook', 'validation.forbiddenCallbackHost'],
    ['https://[fd00::1]/hook', 'validation.forbiddenCallbackHost'],
    ['https://169.254.169.254/latest/meta-data', 'validation.forbiddenCallbackHost'],
    ['https://10.0.0.5/hook', 'validation.forbiddenCallbackHost'],
    ['https://100.64.1.1/hook', 'validation.forbiddenCallbackHost'],
    ['https://0.0.0.0/hook', 'validation.forbiddenCallbackHost'],
    ['https://224.0.0.1/hook', 'validation.forbiddenCallbackHost'],
    ['https://no-such-host.invalid/hook', 'validation.unresolvableCallbackHost'],
    [`https://example.com/${'a'.repeat(2048)}`, 'validation.invalidValue'],
    ['not a url', 'validation.invalidValue'],
  ];

  it.each(refused)('assertNotifyUrlAllowed refuses %s naming the field', async (url, errorCode) => {
    const error = await assertNotifyUrlAllowed(t.ctx, url, 'notifyUrl').catch((e: unknown) => e);
    expect(error).toMatchObject({ type: 'ValidationException', errorCode, problematicField: 'notifyUrl' });
  });

  it.each(refused)(
    'POST /v3/subscriptions refuses notifyTarget %s and stores nothing',
    async (url, errorCode) => {
      const before = await snapshotTables(t.database.db, ['operator_audit', 'signature_replays']);
      const response = await signedFetch(t, partner, {
        method: 'POST',
        path: '/v3/subscriptions',
        body: JSON.stringify({ subscribeTo: `account:${partner.accountId}`, notifyTarget: url }),
      });
      await expectEnvelopeResponse(response, 400, 'ValidationException', {
        errorCode: url.length > 2048 ? 'validation.invalidValue' : errorCode,
        problematicField: 'notifyTarget',
        production: true,
      });
      expect(await snapshotTables(t.database.db, ['operator_audit', 'signature_replays'])).toEqual(before);
    },
  );

  it('a queued callback to a loopback receiver is refused again at delivery time, never connecting', async () => {
    // As if DNS had answered a public address when the URL was accepted and 127.0.0.1 now.
    const transferId = await queueTransferCallbacks(t, partner.accountId);
    await t.ctx.db.query(
      `INSERT INTO callback_deliveries (id, partner_id, trigger, url, body, status, max_attempts)
       VALUES ('CB_REBIND23456', $1, $2, $3, '{}', 'PENDING', 1),
              ('CB_REBINDLIT23', $1, $2, $4, '{}', 'PENDING', 1)`,
      [
        partner.accountId,
        `transfer:${transferId}`,
        local.url.replace('http://127.0.0.1', 'https://localhost'),
        local.url.replace('http://127.0.0.1', 'https://[::ffff:127.0.0.1]'),
      ],
    );
    const worker = testWorker(t);
    worker.start();
    try {
      const deliveries = await settled(t, `transfer:${transferId}`);
      expect(deliveries.map((d) => d.status)).toEqual(['FAILED', 'FAILED']);
      expect(deliveries.map((d) => d.last_error).sort()).toEqual([
        'forbidden address',
        'localhost resolves to a forbidden address',
      ]);
      expect(local.received).toHaveLength(0);
    } finally {
      await worker.stop();
    }
  });

  it('an http URL queued before production refuses it is not sent', async () => {
    const transferId = await queueTransferCallbacks(t, partner.accountId);
    await t.ctx.db.query(
      `INSERT INTO callback_deliveries (id, partner_id, trigger, url, body, status, max_attempts)
       VALUES ('CB_PLAINHTTP23', $1, $2, $3, '{}', 'PENDING', 1)`,
      [partner.accountId, `transfer:${transferId}`, local.url],
    );
    const worker = testWorker(t);
    worker.start();
    try {
      const [delivery] = await settled(t, `transfer:${transferId}`);
      expect(delivery).toMatchObject({ status: 'FAILED', last_error: 'scheme http: not allowed' });
      expect(local.received).toHaveLength(0);
    } finally {
      await worker.stop();
    }
  });
});

describe('sandbox', () => {
  it('accepts http and loopback receivers (local testing), still refuses private and link-local', async () => {
    const t = await startTestApp();
    try {
      await expect(
        assertNotifyUrlAllowed(t.ctx, 'http://127.0.0.1:9/hook', 'notifyUrl'),
      ).resolves.toBeUndefined();
      await expect(
        assertNotifyUrlAllowed(t.ctx, 'http://localhost:9/hook', 'notifyUrl'),
      ).resolves.toBeUndefined();
      for (const url of [
        'http://169.254.169.254/',
        'http://10.0.0.1/',
        'http://[fe80::1]/',
        'http://u:p@127.0.0.1/',
      ]) {
        const error = await assertNotifyUrlAllowed(t.ctx, url, 'notifyUrl').catch((e: unknown) => e);
        expect(error).toMatchObject({ type: 'ValidationException', problematicField: 'notifyUrl' });
      }
    } finally {
      await t.close();
    }
  });
});

describe('a sandbox hosted for others (RAMPART_CALLBACK_ALLOW_LOOPBACK=false)', () => {
  let t: TestApp;
  let partner: PartnerCredentials;
  let local: Receiver;

  beforeAll(async () => {
    t = await startTestApp({ env: { RAMPART_CALLBACK_ALLOW_LOOPBACK: 'false' } });
    partner = await createPartner(t);
    local = await startReceiver('accept');
  });
  afterAll(async () => {
    await local.close();
    await t.close();
  });

  const loopbackUrls = () => {
    const port = new URL(local.url).port;
    return [
      `http://127.0.0.1:${port}/hooks`,
      `http://127.1.2.3:${port}/hooks`,
      `http://localhost:${port}/hooks`,
      `http://[::1]:${port}/hooks`,
      `http://[::ffff:127.0.0.1]:${port}/hooks`,
      `http://[::ffff:0:7f00:1]:${port}/hooks`,
    ];
  };

  it('refuses loopback receivers when a subscription is made, as production does', async () => {
    for (const url of loopbackUrls()) {
      const before = await snapshotTables(t.database.db, ['operator_audit', 'signature_replays']);
      const response = await signedFetch(t, partner, {
        method: 'POST',
        path: '/v3/subscriptions',
        body: JSON.stringify({ subscribeTo: `account:${partner.accountId}`, notifyTarget: url }),
      });
      await expectEnvelopeResponse(response, 400, 'ValidationException', {
        errorCode: 'validation.forbiddenCallbackHost',
        problematicField: 'notifyTarget',
      });
      expect(await snapshotTables(t.database.db, ['operator_audit', 'signature_replays'])).toEqual(before);
    }
  });

  it('still takes http to a public address (only the address rules change)', async () => {
    await expect(assertNotifyUrlAllowed(t.ctx, 'http://8.8.8.8/hook', 'notifyUrl')).resolves.toBeUndefined();
  });

  it('refuses a loopback receiver again when sending (queued before the setting, or a name that now resolves there)', async () => {
    const transferId = await queueTransferCallbacks(t, partner.accountId);
    const urls = loopbackUrls();
    await t.ctx.db.query(
      `INSERT INTO callback_deliveries (id, partner_id, trigger, url, body, status, max_attempts)
       SELECT 'CB_LOOP' || lpad(n::text, 7, '2'), $1, $2, url, '{}', 'PENDING', 1
       FROM unnest($3::text[]) WITH ORDINALITY AS u(url, n)`,
      [partner.accountId, `transfer:${transferId}`, urls],
    );
    const worker = testWorker(t);
    worker.start();
    try {
      const deliveries = await settled(t, `transfer:${transferId}`);
      expect(deliveries).toHaveLength(urls.length);
      for (const delivery of deliveries) {
        expect(delivery.status).toBe('FAILED');
        expect(delivery.last_error).toMatch(/forbidden address/);
      }
      expect(local.received).toHaveLength(0);
    } finally {
      await worker.stop();
    }
  });
});
