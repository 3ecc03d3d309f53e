-- A card order is inserted by one statement that also places its card hold and queues its job
-- (src/wallet-orders/store.ts insertOrder). Depends on 008.

-- The foreign keys to accounts cost each order two row locks (FOR KEY SHARE) on the partner's
-- account row, which every concurrent order of that partner takes: MultiXacts on one hot row
-- (migration 012 says the same of reservations). partner_id is the authenticated caller's,
-- account_id the consumed reservation's (its referrer, checked when it was reserved, or the
-- account that made it), and accounts are never deleted, so the keys only re-checked what was
-- already known. The authorization step keeps its key to its order.
ALTER TABLE wallet_orders
  DROP CONSTRAINT wallet_orders_partner_id_fkey,
  DROP CONSTRAINT wallet_orders_account_id_fkey;

-- No query reads orders by partner: every read and state change goes by id (partner-filtered).
DROP INDEX wallet_orders_partner;
