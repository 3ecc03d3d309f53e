-- The operator console's lists read newest first, a page at a time, continuing after the last
-- row shown (keyset: `(at, id) < (cursor)`), so a deep page costs what the first one does.

-- The audit log, newest first, whole or by actor or target (the filters an operator reaches for
-- first); (at, id) breaks the ties of rows written in one transaction. Replaces the index on at alone.
CREATE INDEX operator_audit_at_id ON operator_audit (at DESC, id DESC);
DROP INDEX operator_audit_at;
CREATE INDEX operator_audit_actor_at ON operator_audit (actor, at DESC, id DESC);
CREATE INDEX operator_audit_target_at ON operator_audit (target, at DESC, id DESC);

-- Every partner's card orders newest first; the orders in CHARGEBACK, the disputes page's list.
CREATE INDEX wallet_orders_created ON wallet_orders (created_at DESC, id DESC);
CREATE INDEX wallet_orders_chargeback ON wallet_orders (created_at DESC, id DESC) WHERE status = 'CHARGEBACK';

-- The partners (master accounts) newest first.
CREATE INDEX accounts_masters_created ON accounts (created_at DESC, id DESC) WHERE kind = 'master';

-- The house and external balances, a handful of owners among every customer's rows.
CREATE INDEX ledger_balances_system ON ledger_balances (owner, currency) WHERE ledger_is_system_owner(owner);

-- Card disputes newest first.
CREATE INDEX card_disputes_opened ON card_disputes (opened_at DESC, reference DESC);
