import type { ChainsDeps } from '../chains/port.ts';
import type { GroupedCalls } from '../platform/db/grouped-writer.ts';
import type { PricingDeps } from '../pricing/service.ts';
import type { insertReservations, NewReservation } from './store.ts';

/** Concurrent requests' reservations, stored by one statement per group (groupedReservationInserts). */
export type ReservationInserts = GroupedCalls<
  NewReservation,
  Awaited<ReturnType<typeof insertReservations>>[number]
>;

/** What the reservation functions are given besides the base context: prices, the chains' network. */
export interface OrdersDeps extends PricingDeps, ChainsDeps {
  reservationInserts: ReservationInserts;
}
