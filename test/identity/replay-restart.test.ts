import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findLiveKeysBySecretHash,
  purgeExpiredReplays,
  recordSignatureUses,
} from '../../src/identity/keys-store.ts';
import { hashSecret } from '../../src/identity/secrets.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';

let t: TestApp;
let partner: PartnerCredentials;
beforeAll(async () => {
  t = await startTestApp();
  partner = await createPartner(t);
});
afterAll(async () => t.close());

type Pool = typeof t.database.db;
const recordSignatureUse = async (
  pool: Pool,
  apiKey: string,
  signature: string,
  expiresAtMs: number,
  signedAtMs: number,
) =>
  (
    await recordSignatureUses(pool, [
      {
        apiKey,
        signature,
        expiresAtMs,
        signedAtMs,
        method: 'POST',
        address: '127.0.0.1',
        withBalances: false,
      },
    ])
  )[0];

const replayRows = async (signature: string) =>
  (await t.database.db.query('SELECT 1 FROM signature_replays WHERE signature = $1', [signature])).rowCount;

describe('replay records on the async-commit pool', () => {
  it('are never accepted for a signature timestamped before the database started', async () => {
    // A crash can lose the newest async-committed replay records; they all belong to signatures
    // older than the restart, which this rule refuses, so a lost record can never be replayed.
    const signature = 'a'.repeat(64);
    const used = await recordSignatureUse(
      t.database.asyncCommitDb,
      partner.apiKey,
      signature,
      Date.now() + 60_000,
      1_000,
    );
    expect(used).toMatchObject({ signedBeforeStart: true, accepted: false });
    expect(await replayRows(signature)).toBe(0);
  });

  it('are recorded once for a signature made after the start, and visible to other connections at once', async () => {
    const signature = 'b'.repeat(64);
    // A signature comes with the one timestamp it signed: a replay repeats both.
    const signedAtMs = Date.now();
    const first = await recordSignatureUse(
      t.database.asyncCommitDb,
      partner.apiKey,
      signature,
      signedAtMs + 60_000,
      signedAtMs,
    );
    expect(first).toMatchObject({ signedBeforeStart: false, accepted: true });
    expect(await replayRows(signature)).toBe(1);
    const again = await recordSignatureUse(
      t.database.db,
      partner.apiKey,
      signature,
      signedAtMs + 60_000,
      signedAtMs,
    );
    expect(again).toMatchObject({ accepted: false });
  });

  it('run with synchronous_commit off, and only that pool does', async () => {
    const setting = async (pool: typeof t.database.db) =>
      (await pool.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]
        ?.synchronous_commit;
    expect(await setting(t.database.asyncCommitDb)).toBe('off');
    expect(await setting(t.database.db)).toBe('on');
  });
});

describe('signature uses recorded together (one statement for a group of requests)', () => {
  it('answer each use in input order, and only the first of two POSTs of one signature is accepted', async () => {
    const now = Date.now();
    const use = (apiKey: string, signature: string, signedAtMs = now) => ({
      apiKey,
      signature,
      expiresAtMs: now + 60_000,
      signedAtMs,
      method: 'POST',
      address: '127.0.0.1',
      withBalances: false,
    });
    const answers = await recordSignatureUses(t.database.asyncCommitDb, [
      use(partner.apiKey, 'c'.repeat(64)),
      use('AK-NO-SUCH-KEY', 'd'.repeat(64)),
      use(partner.apiKey, 'c'.repeat(64)),
      use(partner.apiKey, 'e'.repeat(64), 1_000),
      use(partner.apiKey, 'f'.repeat(64)),
    ]);
    expect(
      answers.map((answer) => answer && { accepted: answer.accepted, before: answer.signedBeforeStart }),
    ).toEqual([
      { accepted: true, before: false },
      undefined,
      { accepted: false, before: false },
      { accepted: false, before: true },
      { accepted: true, before: false },
    ]);
    expect(answers[0]?.api_key).toBe(partner.apiKey);
    expect(await replayRows('c'.repeat(64))).toBe(1);
    expect(await replayRows('d'.repeat(64))).toBe(0);
    expect(await replayRows('e'.repeat(64))).toBe(0);
  });
});

describe('replay records keyed by signing time (migration 025)', () => {
  it('refuse a signature recorded before the migration (the legacy table) while it has not expired', async () => {
    const signature = '1'.repeat(64);
    await t.database.db.query(
      `INSERT INTO signature_replays_legacy (signature, expires_at) VALUES ($1, now() + interval '4 minutes')`,
      [signature],
    );
    const use = await recordSignatureUse(
      t.database.db,
      partner.apiKey,
      signature,
      Date.now() + 60_000,
      Date.now(),
    );
    expect(use).toMatchObject({ accepted: false, signedBeforeStart: false });
    expect(await replayRows(signature)).toBe(0);
  });

  it('are purged once out of the window, rows of a longer window kept until their own expiry', async () => {
    const db = t.database.db;
    await db.query('DELETE FROM signature_replays');
    await db.query('DELETE FROM signature_replays_legacy');
    await db.query(
      `INSERT INTO signature_replays (signed_at, signature, expires_at) VALUES
         (now() - interval '10 minutes', 'out-of-window', now() - interval '299 seconds'),
         (now() - interval '10 minutes', 'longer-window', now() + interval '50 minutes'),
         (now() - interval '1 minute', 'in-window', now() + interval '4 minutes'),
         (now() + interval '1 minute', 'clock-ahead', now() + interval '6 minutes')`,
    );
    await db.query(
      `INSERT INTO signature_replays_legacy (signature, expires_at) VALUES
         ('legacy-expired', now() - interval '1 second'), ('legacy-live', now() + interval '1 minute')`,
    );
    await purgeExpiredReplays(300_000)(db);
    const left = async (table: string) =>
      (await db.query<{ signature: string }>(`SELECT signature FROM ${table} ORDER BY signature`)).rows.map(
        (row) => row.signature,
      );
    expect(await left('signature_replays')).toEqual(['clock-ahead', 'in-window', 'longer-window']);
    expect(await left('signature_replays_legacy')).toEqual(['legacy-live']);
  });
});

describe('bearer lookups together (one statement for a group of requests)', () => {
  it('answer each secret in input order, with balances only where asked, and nothing for an unknown one', async () => {
    const answers = await findLiveKeysBySecretHash(t.database.db, [
      { secretHash: hashSecret(partner.secretKey), withBalances: true },
      { secretHash: hashSecret('not-a-secret-anyone-holds-0123456789'), withBalances: true },
      { secretHash: hashSecret(partner.secretKey), withBalances: false },
    ]);
    expect(answers.map((answer) => answer?.api_key)).toEqual([partner.apiKey, undefined, partner.apiKey]);
    expect(answers[0]?.account?.balances).toEqual({ totalBalances: {}, availableBalances: {} });
    expect(answers[2]?.account?.balances).toBeUndefined();
  });
});
