import { afterAll, describe, expect, it } from 'vitest';
import { expectNothingLost } from './invariants.ts';
import { type Op, retryUnanswered, runLoad } from './load.ts';
import {
  eventually,
  isAlive,
  runCleanups,
  SHORT_LEASE_SECONDS,
  serverDatabase,
  setUpTenant,
  sleep,
  startReceiver,
  startServer,
} from './support.ts';

/**
 * Two `rampart serve` processes on one database share a load; one is SIGKILLed. The other keeps
 * answering, takes over the dead one's claimed callbacks and jobs once their lease runs out, and
 * a POST the dead one never answered, sent again to the survivor with the same Idempotency-Key,
 * has its effect once.
 */
const USERS = 6;
const CONCURRENCY = 8;

afterAll(runCleanups);

describe('two servers on one database, one killed', () => {
  it('the survivor keeps serving, finishes the dead one’s work, and nothing happens twice', async () => {
    const database = await serverDatabase();
    const env = { RAMPART_JOB_LEASE_SECONDS: SHORT_LEASE_SECONDS };
    // Started together: migrations run once under their lock.
    const [doomed, survivor] = await Promise.all([
      startServer({ databaseUrl: database.url, env }),
      startServer({ databaseUrl: database.url, env }),
    ]);
    const receiver = await startReceiver('ok', { delayMs: 300 });
    const tenant = await setUpTenant(survivor.remote, USERS);
    const ops: Op[] = [];
    let killed = false;
    let stopped = false;
    const load = runLoad(ops, {
      tenant,
      target: (seq) => (killed || seq % 2 === 0 ? survivor.remote : doomed.remote),
      notifyUrl: () => receiver.url,
      concurrency: CONCURRENCY,
      cardOrders: true,
      stop: () => stopped,
    });
    const answered = () => ops.filter((op) => op.status === 200).length;
    expect(await eventually(() => answered() >= 30, 60_000)).toBe(true);
    await sleep(Math.random() * 1000);
    killed = true;
    await doomed.kill();
    const { rows: held } = await database.db.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM callback_deliveries WHERE status = 'PENDING' AND locked_until > now())
            + (SELECT count(*) FROM jobs WHERE state = 'running') AS n`,
    );
    // The survivor alone now: it must keep answering.
    const atKill = answered();
    expect(await eventually(() => answered() >= atKill + 30, 60_000)).toBe(true);
    stopped = true;
    await load;
    expect(isAlive(survivor)).toBe(true);
    expect(ops.filter((op) => (op.status ?? 0) >= 500).map((op) => op.text)).toEqual([]);

    const retried = await retryUnanswered(survivor.remote, tenant, ops);
    const { duplicateCallbacks } = await expectNothingLost(database.db, tenant, ops, receiver);
    console.log(
      `two-servers: ${answered()} acknowledged, ${retried} sent again to the survivor, ${held[0]?.n} deliveries/jobs held at the kill, ${duplicateCallbacks} callbacks delivered twice`,
    );
    await survivor.stop();
  }, 150_000);
});
