import { afterAll, expect, it } from 'vitest';
import { startTestApp, TEST_MASTER_KEY, TEST_OPERATOR_TOKEN } from '../helpers/app.ts';
import { freshDatabase } from '../helpers/db.ts';
import { createPartner } from '../helpers/partner.ts';
import { spawnRampart } from '../helpers/process.ts';
import { queueTransferCallbacks, settled, startReceiver, verifySignature } from './support.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

it('a callback queued while no worker ran (or one died holding it) is sent by the next `rampart worker`', async () => {
  const database = await freshDatabase();
  cleanups.push(() => database.drop());
  const receiver = await startReceiver('accept');
  cleanups.push(() => receiver.close());
  // Queue through one app, then drop it: the queue is the database, nothing in memory.
  const t = await startTestApp({ database });
  const partner = await createPartner(t);
  const queued = await queueTransferCallbacks(t, partner.accountId, { notifyUrl: receiver.url });
  const dead = await queueTransferCallbacks(t, partner.accountId, { notifyUrl: receiver.url });
  await t.ctx.db.query(
    `UPDATE callback_deliveries SET claim_token = 'killed', locked_until = now() - interval '1 second' WHERE trigger = $1`,
    [`transfer:${dead}`],
  );
  await t.app.close();

  const worker = spawnRampart(['worker'], {
    DATABASE_URL: database.url,
    RAMPART_MASTER_KEY: TEST_MASTER_KEY,
    RAMPART_OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
    RAMPART_DATA_DIR: 'data/test-unused',
    RAMPART_WORKER_POLL_MS: '50',
    LOG_LEVEL: 'warn',
  });
  cleanups.push(async () => worker.child.kill('SIGKILL'));
  await receiver.nth(2);
  const [first] = await settled(t, `transfer:${queued}`);
  const [second] = await settled(t, `transfer:${dead}`);
  expect([first!.status, second!.status]).toEqual(['DELIVERED', 'DELIVERED']);
  expect(receiver.received.map((c) => JSON.parse(c.body).trigger).sort()).toEqual(
    [`transfer:${queued}`, `transfer:${dead}`].sort(),
  );
  for (const callback of receiver.received)
    expect(
      verifySignature(
        partner.webhookSecret,
        callback.headers['x-rampart-signature'] as string,
        callback.body,
      ),
    ).toBe(true);
  worker.child.kill('SIGTERM');
  expect((await worker.exited).code).toBe(0);
}, 60_000);
