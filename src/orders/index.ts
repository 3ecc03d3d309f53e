/** The public face of orders/: what routes and other domains use. Inside orders/, files import each other directly. */

export { orderErrors } from './errors.ts';
export { checkCurrencyForCountry, checkDest, checkReferrer, isOwnAccount } from './order-checks.ts';
export type { ReservationView } from './reservation-view.ts';
export { ordersRoutes } from './routes.ts';
export { ReservationParams } from './schemas.ts';
export {
  type CheckoutReservation,
  type ConsumedReservation,
  getReservation,
  groupedReservationInserts,
  type OrdersDeps,
  reservationForCheckout,
  reserve,
  retireReservation,
  storeReservation,
  useReservation,
} from './service.ts';
export { findReservationById } from './store.ts';
export { BILLING_COUNTRIES } from './supported.ts';
