/** The public face of ledger/: what routes and other domains use. Inside ledger/, files import each other directly. */

export { type ConsoleEntry, type ConsoleHold, consoleHold, entriesWithPostings } from './console-store.ts';
export {
  type BalanceLine,
  type BalanceSelection,
  customerBalancesPage,
  houseBalances,
} from './listing.ts';
export type { LedgerDeps, OwnerLookups } from './owners.ts';
export { ledgerOperatorRoutes } from './routes.ts';
export {
  type Balances,
  type BalancesJson,
  balancesFromJson,
  balancesOf,
  combinedEntries,
  entriesParams,
  entryArguments,
  holdArguments,
  holdsExpiringBy,
  ledgerRefusal,
  movementsOf,
  type NewEntry,
  type Posting,
  placeHold,
  postEntry,
  settleHold,
  totalsByCurrency,
  voidHold,
} from './service.ts';
export type { EntriesArguments, EntryArguments, HoldArguments } from './store.ts';
export {
  balancesJsonOf,
  entriesValues,
  placeHoldCall,
  placeHoldsCall,
  postEntriesCall,
  postEntryCall,
  settleHoldCall,
  settleHoldsCall,
} from './store.ts';
