-- Card money given back (src/wallet-orders/refunds.ts) and taken back by the card networks
-- (src/wallet-orders/disputes.ts); docs/contract.md, decisions 113 to 122.

-- One row per refund of an order: asked for by a partner, the operator or a failed delivery
-- (`n` numbers them per order: the processor's idempotency key is paymentKey(order, 'refund', n)),
-- or made at the processor without Rampart (`n` null, id `processor:<reference>`). A void before
-- capture is recorded too (kind VOID, nothing booked), so a repeated partner refund answers it.
CREATE TABLE card_refunds (
  id                   text PRIMARY KEY,
  order_id             text NOT NULL REFERENCES wallet_orders (id),
  partner_id           text NOT NULL,
  n                    integer CHECK (n > 0),
  kind                 text NOT NULL CHECK (kind IN ('VOID', 'FULL', 'PARTIAL', 'PROCESSOR')),
  requester            text NOT NULL,
  amount               numeric NOT NULL CHECK (amount > 0),
  currency             text NOT NULL,
  -- What the ledger booked for it: the capture reversed, the refund-loss account, or nothing.
  booking              text NOT NULL CHECK (booking IN ('CAPTURE_REVERSED', 'LOSS', 'NONE')),
  status               text NOT NULL CHECK (status IN ('PENDING', 'COMPLETE', 'FAILED')),
  processor_reference  text UNIQUE,
  reason               text,
  failed_reason        text,
  created_at           timestamptz NOT NULL,
  finished_at          timestamptz,
  UNIQUE (order_id, n),
  CHECK ((status = 'PENDING') = (finished_at IS NULL))
);
CREATE INDEX card_refunds_by_order ON card_refunds (order_id);

-- One row per dispute (the processor's reference). `withdrawn` is what the processor took back
-- and the ledger booked to house:chargebacks (at most what the refunds left of the charge);
-- `status_before` is the order's status the CHARGEBACK replaced, restored when the dispute is won.
CREATE TABLE card_disputes (
  reference      text PRIMARY KEY,
  order_id       text NOT NULL REFERENCES wallet_orders (id),
  partner_id     text NOT NULL,
  amount         numeric NOT NULL CHECK (amount >= 0),
  withdrawn      numeric NOT NULL CHECK (withdrawn >= 0),
  currency       text NOT NULL,
  reason         text NOT NULL,
  status         text NOT NULL CHECK (status IN ('OPEN', 'WON', 'LOST')),
  status_before  text NOT NULL,
  opened_at      timestamptz NOT NULL,
  closed_at      timestamptz,
  CHECK ((status = 'OPEN') = (closed_at IS NULL))
);
CREATE INDEX card_disputes_by_order ON card_disputes (order_id);

-- The processor's fees (processing and dispute fees), booked from its balance transactions by
-- the card reconciliation, each balance transaction once.
CREATE TABLE card_fee_bookings (
  reference    text PRIMARY KEY,
  order_id     text,
  kind         text NOT NULL CHECK (kind IN ('PROCESSING', 'DISPUTE')),
  amount       numeric NOT NULL CHECK (amount <> 0),
  currency     text NOT NULL,
  occurred_at  timestamptz NOT NULL,
  booked_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX card_fee_bookings_by_time ON card_fee_bookings (occurred_at);
