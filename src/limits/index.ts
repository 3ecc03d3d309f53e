/** The public face of limits/: what routes and other domains use. Inside limits/, files import each other directly. */

export { type BillingAddressesOf, rekeyAddressSpend } from './address-rekey.ts';
export { addressSpendKey, type BillingAddress, checkBillingAddress } from './billing-address.ts';
export { SUPPORTED_COUNTRIES } from './countries.ts';
export { getLimitOverride, setLimitOverride } from './overrides.ts';
export { limitsRoutes } from './routes.ts';
export { AddressBody } from './schemas.ts';
export {
  LimitReads,
  type LimitsDeps,
  type OrderSpend,
  recordSpends,
  releaseSpend,
  tierOfUser,
} from './service.ts';
export type { LimitTier } from './tables.ts';
