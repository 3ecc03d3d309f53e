-- A remote card processor's payments (docs/contract.md, "Card processors"; decisions 100-104).
-- One row per order paid through a connector: written in the order's own transaction before the
-- processor is asked anything (intent before effect), so a crash leaves a record to finish from
-- and a rolled-back order leaves nothing. The card number is never stored: `token` is the
-- processor's reusable reference for the card, worthless without the processor's secret key.
CREATE TABLE card_payments (
  -- Written by the authorize step, before the order's own insert in the same transaction.
  order_id                 text PRIMARY KEY REFERENCES wallet_orders (id) DEFERRABLE INITIALLY DEFERRED,
  processor                text NOT NULL,
  token                    text NOT NULL,
  card_fingerprint         text NOT NULL,
  amount                   numeric NOT NULL CHECK (amount > 0),
  currency                 text NOT NULL,
  force_3ds                boolean NOT NULL DEFAULT false,
  state                    text NOT NULL CHECK (state IN
    ('AUTHORIZING', 'CHALLENGE', 'AUTHORIZED', 'DECLINED', 'CAPTURED', 'VOIDED')),
  reference                text,
  challenge_url            text,
  -- Where the buyer goes once the 3-D Secure return resolves the step (decision 103).
  three_ds_onward          text,
  decline_reason           text,
  processor_code           text,
  polls                    integer NOT NULL DEFAULT 0,
  -- Set when the status poll gave up: the operator decides, Rampart never guesses (decision 102).
  attention                text,
  authorization_expires_at timestamptz,
  created_at               timestamptz NOT NULL DEFAULT now(),
  updated_at               timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX card_payments_by_reference ON card_payments (processor, reference) WHERE reference IS NOT NULL;
-- A card's first order asks an SMS code (decision 105): its earlier payments, by fingerprint.
CREATE INDEX card_payments_by_card ON card_payments (card_fingerprint);
CREATE INDEX card_payments_needing_attention ON card_payments (updated_at) WHERE attention IS NOT NULL;

-- Capture, void and refund of a remote payment as an outbox (decision 104): the row is written
-- with the change that asks for it, and a job makes the call after COMMIT with the key
-- paymentKey(order, kind, n), recording the processor's answer here.
CREATE TABLE card_payment_operations (
  order_id     text NOT NULL REFERENCES card_payments (order_id),
  kind         text NOT NULL CHECK (kind IN ('capture', 'void', 'refund')),
  n            integer NOT NULL CHECK (n > 0),
  rampart_id   text NOT NULL,
  amount       numeric CHECK (amount > 0),
  state        text NOT NULL CHECK (state IN ('REQUESTED', 'DONE', 'FAILED')),
  attempts     integer NOT NULL DEFAULT 0,
  reference    text,
  detail       text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (order_id, kind, n),
  UNIQUE (order_id, kind, rampart_id)
);
CREATE INDEX card_payment_operations_failed ON card_payment_operations (updated_at) WHERE state = 'FAILED';

-- Processor events already handled, by the processor's own event id: a repeated delivery is a no-op.
CREATE TABLE card_processor_events (
  processor    text NOT NULL,
  event_id     text NOT NULL,
  kind         text NOT NULL,
  order_id     text,
  outcome      text NOT NULL,
  received_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (processor, event_id)
);

-- An order's step may be the processor's own answer, awaited (decision 101).
ALTER TABLE wallet_order_authorizations DROP CONSTRAINT wallet_order_authorizations_method_check;
ALTER TABLE wallet_order_authorizations
  ADD CONSTRAINT wallet_order_authorizations_method_check CHECK (method IN ('CODES', '3DS', 'PROCESSOR'));
