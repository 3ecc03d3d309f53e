-- Subscriptions (docs/contract.md, Subscriptions and callbacks) and signed callback deliveries with every attempt kept.
-- No foreign keys to other modules' tables: partner_id/account_id are account ids, checked in code.

CREATE TABLE callback_subscriptions (
  id             text PRIMARY KEY,                       -- DA_…
  partner_id     text NOT NULL,
  -- The acting account that created it (a sub-account sees only its own).
  account_id     text NOT NULL,
  subscribe_to   text NOT NULL,                          -- SRN: account:, user:, transfer:
  notify_target  text NOT NULL,
  -- true: made by a transfer's notifyUrl, not by POST /v3/subscriptions.
  implicit       boolean NOT NULL DEFAULT false,
  failure        text,
  fail_count     integer NOT NULL DEFAULT 0,
  created_at     timestamptz NOT NULL,
  deleted_at     timestamptz
);
CREATE INDEX callback_subscriptions_match ON callback_subscriptions (partner_id, subscribe_to)
  WHERE deleted_at IS NULL;
CREATE INDEX callback_subscriptions_list ON callback_subscriptions (partner_id, created_at DESC, id)
  WHERE deleted_at IS NULL AND NOT implicit;

-- One row per callback to send: its own queue (claimed with SKIP LOCKED by the delivery worker).
CREATE TABLE callback_deliveries (
  id               text PRIMARY KEY,                     -- CB_…
  partner_id       text NOT NULL,
  subscription_id  text,                                 -- NULL for webhooks without a subscription
  trigger          text NOT NULL,
  url              text NOT NULL,
  -- The exact bytes sent (and signed) on every attempt.
  body             text NOT NULL,
  status           text NOT NULL CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED')),
  attempts         integer NOT NULL DEFAULT 0,
  max_attempts     integer NOT NULL CHECK (max_attempts >= 1),
  next_attempt_at  timestamptz NOT NULL DEFAULT now(),
  -- Lease of the worker holding it; a lease that ran out (dead worker) is claimed again.
  locked_until     timestamptz,
  claim_token      text,
  last_error       text,
  last_status_code integer,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  CHECK (attempts >= 0)
);
CREATE INDEX callback_deliveries_due ON callback_deliveries (next_attempt_at) WHERE status = 'PENDING';
CREATE INDEX callback_deliveries_by_status ON callback_deliveries (status, created_at DESC, id);

CREATE TABLE callback_attempts (
  id           bigserial PRIMARY KEY,
  delivery_id  text NOT NULL REFERENCES callback_deliveries (id) ON DELETE CASCADE,
  started_at   timestamptz NOT NULL,
  status_code  integer,
  latency_ms   integer NOT NULL CHECK (latency_ms >= 0),
  error        text
);
CREATE INDEX callback_attempts_delivery ON callback_attempts (delivery_id, id);
