import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordSignatureUse } from '../../src/identity/keys-store.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';

let t: TestApp;
let partner: PartnerCredentials;
beforeAll(async () => {
  t = await startTestApp();
  partner = await createPartner(t);
});
afterAll(async () => t.close());

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
    expect(used).toMatchObject({ signedBeforeStart: true, fresh: false });
    expect(await replayRows(signature)).toBe(0);
  });

  it('are recorded once for a signature made after the start, and visible to other connections at once', async () => {
    const signature = 'b'.repeat(64);
    const first = await recordSignatureUse(
      t.database.asyncCommitDb,
      partner.apiKey,
      signature,
      Date.now() + 60_000,
      Date.now(),
    );
    expect(first).toMatchObject({ signedBeforeStart: false, fresh: true });
    expect(await replayRows(signature)).toBe(1);
    const again = await recordSignatureUse(
      t.database.db,
      partner.apiKey,
      signature,
      Date.now() + 60_000,
      Date.now(),
    );
    expect(again).toMatchObject({ fresh: false });
  });

  it('run with synchronous_commit off, and only that pool does', async () => {
    const setting = async (pool: typeof t.database.db) =>
      (await pool.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]
        ?.synchronous_commit;
    expect(await setting(t.database.asyncCommitDb)).toBe('off');
    expect(await setting(t.database.db)).toBe('on');
  });
});
