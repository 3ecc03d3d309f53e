import { GroupedTransactions } from '../platform/db/grouped-transactions.ts';
import type { Db } from '../platform/db/pool.ts';
import { afterOrderCommitted } from './card-payments.ts';
import { placeWalletOrder, storeWalletOrder } from './create.ts';
import type { OrderPlacement, WalletOrdersDeps } from './deps.ts';
import type { PreparedOrder } from './request.ts';

/**
 * Card orders placed together: the orders that concurrent requests (without an Idempotency-Key)
 * place at the same moment run storeWalletOrder as one group (GroupedTransactions), in one
 * transaction of four statements and COMMIT (its BEGIN sent ahead, while the groups before it
 * ran), instead of eight round trips each: a round trip costs both processes more CPU than most
 * statements' work.
 *
 * Every rule is the single order's, since the code is: orders of one group never share a spend
 * key or a reservation (keysOf), so each order's limits are exactly what they would be alone.
 * Each order gets its own answer, as GroupedTransactions' failure rule has it: an order refused
 * by itself (a declined card, a limit, a used reservation) gets its refusal with nothing of it
 * written, and the others go again as a group; an order whose card processor does not answer
 * within the group's wait (GROUP_AUTHORIZATION_WAIT_MS) runs alone with the full timeout.
 */

/** Statement size bound: more orders wait for the next group. */
const MAX_GROUP = 100;

/**
 * Two groups at once: while one waits between its statements, the other's run, so neither
 * process sits idle between a group's round trips. They never share a key.
 */
const GROUPS_IN_FLIGHT = 2;

/** What an order locks besides the external:card stripe: its reservation and its spend keys. */
function keysOf(prepared: PreparedOrder): string[] {
  return [`reservation:${prepared.request.reservationId}`, ...prepared.spendKeys];
}

/** Card orders (prepareWalletOrder) placed together with those of concurrent requests. */
export function createOrderPlacement(db: Db, services: () => WalletOrdersDeps): OrderPlacement {
  const orders = new GroupedTransactions(
    db,
    (steps, prepared: PreparedOrder) => storeWalletOrder(services(), steps, prepared),
    { maxGroup: MAX_GROUP, inFlight: GROUPS_IN_FLIGHT, keysOf, transactional: true },
  );
  return {
    place: async (prepared) =>
      afterOrderCommitted(
        services(),
        await placeWalletOrder(services(), prepared, (attempt) => orders.call(attempt)),
      ),
    close: () => orders.close(),
  };
}
