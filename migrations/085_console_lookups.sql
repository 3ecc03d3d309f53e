-- The operator console's search and timelines (docs/contract.md, decision 145) read by exact
-- value on columns no statement read before. Each lookup is one index probe, so a search or a
-- timeline page costs the same with a hundred orders or a hundred thousand.
--
-- ledger_entries_reference comes back (027 dropped it while nothing read entries by reference):
-- an order's or a transfer's timeline lists its entries (`order:WO_…`, `transfer:TF_…`).
CREATE INDEX ledger_entries_reference ON ledger_entries (reference);

-- The callbacks sent for one order or transfer (`order:WO_…`, `transfer:TF_…`), and the
-- deliveries list filtered by partner, newest first.
CREATE INDEX callback_deliveries_trigger ON callback_deliveries (trigger);
CREATE INDEX callback_deliveries_partner ON callback_deliveries (partner_id, created_at DESC, id DESC);
CREATE INDEX callback_deliveries_newest ON callback_deliveries (created_at DESC, id DESC);

-- Search by e-mail: users' `email` field, accounts' `individualEmail`, card orders' buyer.
-- Compared lower-cased: mail providers treat the address case-insensitively in practice.
CREATE INDEX users_email ON users (lower(fields -> 'email' ->> 'value'));
CREATE INDEX accounts_email ON accounts (lower(profile_fields -> 'individualEmail' ->> 'value'));
CREATE INDEX wallet_orders_email ON wallet_orders (lower(email));

-- Search by chain transaction hash: a transfer's send (card order deliveries are transfers too).
CREATE INDEX transfers_network_tx ON transfers ((blockchain_tx ->> 'networkTxId'))
  WHERE blockchain_tx IS NOT NULL;

-- The orders and transfers of one user (its detail page).
CREATE INDEX wallet_orders_owner_user ON wallet_orders (owner_user_id, created_at DESC, id DESC)
  WHERE owner_user_id IS NOT NULL;
