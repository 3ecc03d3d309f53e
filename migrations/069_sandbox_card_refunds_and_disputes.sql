-- The sandbox card processor's own books (src/cards/sandbox-processor.ts): what it captured and
-- when, each refund by Rampart's refund id (partial ones included), and the disputes an operator
-- opens on it; the card reconciliation reads them as a remote processor's balance transactions.
ALTER TABLE sandbox_card_authorizations
  ADD COLUMN refunded numeric NOT NULL DEFAULT 0 CHECK (refunded >= 0),
  ADD COLUMN captured_at timestamptz,
  ADD CONSTRAINT sandbox_card_refunded_within CHECK (refunded <= amount);

CREATE TABLE sandbox_card_refunds (
  refund_id   text PRIMARY KEY,
  order_id    text NOT NULL REFERENCES sandbox_card_authorizations (order_id),
  amount      numeric NOT NULL CHECK (amount > 0),
  currency    text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sandbox_card_refunds_by_time ON sandbox_card_refunds (created_at);

CREATE TABLE sandbox_card_disputes (
  reference   text PRIMARY KEY,
  order_id    text NOT NULL UNIQUE REFERENCES sandbox_card_authorizations (order_id),
  amount      numeric NOT NULL CHECK (amount > 0),
  withdrawn   numeric NOT NULL CHECK (withdrawn >= 0),
  fee         numeric NOT NULL CHECK (fee >= 0),
  currency    text NOT NULL,
  status      text NOT NULL CHECK (status IN ('OPEN', 'WON', 'LOST')),
  opened_at   timestamptz NOT NULL DEFAULT now(),
  closed_at   timestamptz
);
