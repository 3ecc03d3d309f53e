-- GET /v3/orders/list pages an account's card orders, newest first (src/wallet-orders/store.ts
-- pageOrders). Without this index every page would scan the partner's whole order history; the
-- insert pays one more index entry per order.
CREATE INDEX wallet_orders_account ON wallet_orders (account_id, created_at DESC, id DESC);
