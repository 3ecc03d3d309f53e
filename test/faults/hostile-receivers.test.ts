import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/process.ts';
import { expectCallbacksDelivered, expectEffectsExactlyOnce, expectLedgerClean } from './invariants.ts';
import { acknowledged, idOf, type Op, runLoad } from './load.ts';
import {
  eventually,
  runCleanups,
  serverDatabase,
  setUpTenant,
  startReceiver,
  startServer,
} from './support.ts';

/**
 * Callback receivers that hang, fail, reset, answer garbage, redirect or are not there at all,
 * mixed into a load of transfers on a real server with its default timings: every request is
 * still answered, every healthy receiver gets its callbacks while the hanging ones are still
 * held, a redirect is never followed, and each bad delivery fails after its one attempt.
 */
const USERS = 4;
const CONCURRENCY = 6;
/** Bounded so hanging deliveries stay fewer than the worker's 16 slots (DELIVERY_CONCURRENCY). */
const TRANSFERS = 60;

afterAll(runCleanups);

describe('slow, down and hostile callback receivers under load', () => {
  it('never hold up requests or deliveries to healthy receivers', async () => {
    const database = await serverDatabase();
    const server = await startServer({ databaseUrl: database.url });
    const tenant = await setUpTenant(server.remote, USERS);
    const good = await startReceiver('ok');
    const redirectTarget = await startReceiver('ok');
    const hang = await startReceiver('hang');
    const bad = {
      error500: await startReceiver('error500'),
      reset: await startReceiver('reset'),
      garbage: await startReceiver('garbage'),
      redirect: await startReceiver('redirect', { redirectTo: redirectTarget.url }),
    };
    const down = `http://127.0.0.1:${await freePort()}/callbacks`;
    const rotation = [good.url, hang.url, good.url, bad.error500.url, good.url, bad.reset.url, good.url];
    rotation.push(bad.garbage.url, good.url, bad.redirect.url, good.url, down);
    const urlOf = (op: Op) => (JSON.parse(op.body) as { notifyUrl: string }).notifyUrl;

    const ops: Op[] = [];
    await runLoad(ops, {
      tenant,
      target: () => server.remote,
      notifyUrl: (seq) => rotation[seq % rotation.length] ?? good.url,
      concurrency: CONCURRENCY,
      cardOrders: false,
      stop: () => ops.length >= TRANSFERS,
    });
    // Every request answered, hostile receivers or not.
    expect(ops.filter((op) => op.status !== 200).map((op) => op.text ?? op.error)).toEqual([]);

    const toGood = ops.filter((op) => urlOf(op) === good.url);
    await expectCallbacksDelivered(good, toGood);
    // The healthy receiver got everything while hanging deliveries were still held open.
    expect(hang.open()).toBeGreaterThan(0);
    expect(redirectTarget.seen()).toBe(0);

    // Each bad delivery fails after exactly one attempt (spec §6; no retries configured).
    const badUrls = new Set([...Object.values(bad).map((receiver) => receiver.url), down]);
    const badIds = ops.filter((op) => badUrls.has(urlOf(op))).map(idOf);
    const outcomes = async () =>
      (
        await database.db.query<{ status: string; attempts: number }>(
          `SELECT status, attempts FROM callback_deliveries WHERE trigger = ANY($1)`,
          [badIds.map((id) => `transfer:${id}`)],
        )
      ).rows;
    await eventually(async () => (await outcomes()).every((row) => row.status === 'FAILED'), 30_000);
    const rows = await outcomes();
    expect(rows).toHaveLength(badIds.length);
    expect(rows.filter((row) => row.status !== 'FAILED' || row.attempts !== 1)).toEqual([]);

    hang.release();
    await expectEffectsExactlyOnce(database.db, tenant, ops);
    await expectLedgerClean(database.db, tenant);
    expect(acknowledged(ops, 'transfer').length).toBeGreaterThan(0);
    await server.stop();
  }, 120_000);
});
