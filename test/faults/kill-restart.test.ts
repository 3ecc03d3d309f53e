import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/process.ts';
import { expectNothingLost } from './invariants.ts';
import { expectReplays, type Op, retryUnanswered, runLoad } from './load.ts';
import {
  eventually,
  runCleanups,
  type Server,
  SHORT_LEASE_SECONDS,
  serverDatabase,
  setUpTenant,
  sleep,
  startReceiver,
  startServer,
} from './support.ts';

/**
 * Issue 9's kill-and-restart figure on real processes. Each cycle puts a mixed load (transfers
 * with notifyUrl callbacks, UNCONFIRMED transfers and their confirms, reservations and card
 * orders) on `rampart serve`, SIGKILLs it at a random moment, starts it again on the same
 * database, sends every unanswered POST again with its Idempotency-Key, and checks that every
 * acknowledged effect exists exactly once, replays answer the same bytes, the ledger balances,
 * no customer balance is negative, card orders finish and every callback arrives.
 *
 * FAULT_CYCLES sets the number of cycles (CI: 3). The published figure is 20 cycles:
 * `FAULT_CYCLES=20 npx vitest run test/faults/kill-restart.test.ts`.
 */
const CYCLES = Number(process.env.FAULT_CYCLES ?? 3);
const USERS = 6;
const CONCURRENCY = 8;
/** The kill comes after this many answers, plus a random delay: mid-request, mid-commit or mid-delivery. */
const MIN_ANSWERS_BEFORE_KILL = 15;
const MAX_KILL_DELAY_MS = 1500;
const REPLAYS_PER_CYCLE = 10;

afterAll(runCleanups);

describe('SIGKILL during a mixed load, then restart, repeated', () => {
  it(
    `keeps every acknowledged effect exactly once across ${CYCLES} kill-and-restart cycles`,
    async () => {
      const database = await serverDatabase();
      const receiver = await startReceiver();
      const port = await freePort();
      const boot = () =>
        startServer({
          databaseUrl: database.url,
          port,
          env: { RAMPART_JOB_LEASE_SECONDS: SHORT_LEASE_SECONDS },
        });
      let server: Server = await boot();
      const tenant = await setUpTenant(server.remote, USERS);
      const ops: Op[] = [];
      const summary = { acknowledged: 0, unanswered: 0, retried: 0, replayed: 0, duplicateCallbacks: 0 };

      for (let cycle = 1; cycle <= CYCLES; cycle += 1) {
        const cycleOps: Op[] = [];
        let killed = false;
        const load = runLoad(cycleOps, {
          tenant,
          target: () => server.remote,
          notifyUrl: () => receiver.url,
          concurrency: CONCURRENCY,
          cardOrders: true,
          stop: () => killed,
        });
        const answers = () => cycleOps.filter((op) => op.status !== undefined).length;
        expect(await eventually(() => answers() >= MIN_ANSWERS_BEFORE_KILL, 60_000)).toBe(true);
        await sleep(Math.random() * MAX_KILL_DELAY_MS);
        killed = true;
        await server.kill();
        await load;

        summary.unanswered += cycleOps.filter((op) => op.status === undefined).length;
        server = await boot();
        summary.retried += await retryUnanswered(server.remote, tenant, cycleOps);
        summary.replayed += await expectReplays(server.remote, tenant, cycleOps, REPLAYS_PER_CYCLE);
        ops.push(...cycleOps);
        // Nothing may be 5xx: a killed server answers nothing, a live one answers properly.
        expect(ops.filter((op) => (op.status ?? 0) >= 500).map((op) => op.text)).toEqual([]);
        const { duplicateCallbacks } = await expectNothingLost(database.db, tenant, ops, receiver);
        summary.duplicateCallbacks = duplicateCallbacks;
      }
      summary.acknowledged = ops.filter((op) => op.status === 200).length;
      const byKind = Object.fromEntries(
        ['transfer', 'unconfirmed', 'confirm', 'reserve', 'order'].map((kind) => [
          kind,
          ops.filter((op) => op.kind === kind && op.status === 200).length,
        ]),
      );
      console.log(`kill-restart: acknowledged by kind ${JSON.stringify(byKind)}`);
      // Every part of the mix really ran (a route refusing everything would prove nothing).
      for (const count of Object.values(byKind)) expect(count).toBeGreaterThan(0);
      console.log(`kill-restart: ${CYCLES} cycles, ${JSON.stringify(summary)}`);
      await server.stop();
    },
    60_000 + CYCLES * 60_000,
  );
});
