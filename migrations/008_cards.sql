-- Card purchases: wallet orders and their authorization (codes, 3-D Secure), the
-- sandbox card processor's own records, card spend for purchase limits (rows plus per-day
-- buckets), partner limit overrides and wallet-order webhook targets. Depends on 001-005 only.

CREATE TABLE wallet_orders (
  id                 text PRIMARY KEY CHECK (id ~ '^WO_[2-9A-HJ-NP-Z]{11}$'),
  partner_id         text NOT NULL REFERENCES accounts (id),
  account_id         text NOT NULL REFERENCES accounts (id),
  -- A reservation buys at most one order, whatever the code above does.
  reservation_id     text NOT NULL UNIQUE,
  owner              text NOT NULL,
  owner_user_id      text,
  status             text NOT NULL CHECK (status IN ('RUNNING_CHECKS', 'PROCESSING', 'COMPLETE', 'FAILED')),
  order_type         text NOT NULL CHECK (order_type IN ('DOMESTIC', 'INTERNATIONAL')),
  wallet_type        text NOT NULL CHECK (wallet_type IN ('DEBIT_CARD', 'APPLE_PAY')),
  source_currency    text NOT NULL,
  -- Charged, fees included (the quote's sourceAmount); purchase_amount is sourceAmountWithoutFees.
  source_amount      numeric NOT NULL CHECK (source_amount > 0),
  purchase_amount    numeric NOT NULL CHECK (purchase_amount > 0),
  dest_currency      text NOT NULL,
  dest_amount        numeric NOT NULL CHECK (dest_amount > 0),
  exchange_rate      numeric NOT NULL CHECK (exchange_rate > 0),
  fees               jsonb NOT NULL,
  -- The charged amount in USD at the order's rate: what the limits count (docs/contract.md, decision 13).
  amount_usd         numeric NOT NULL CHECK (amount_usd >= 0),
  dest               text NOT NULL,
  email              text NOT NULL,
  given_name         text NOT NULL,
  family_name        text NOT NULL,
  phone              text NOT NULL,
  reference_id       text,
  ip_address         text NOT NULL,
  billing_address    jsonb NOT NULL,
  -- Never the card number: BIN, last four and a keyed fingerprint only.
  card_brand         text NOT NULL,
  card_bin           text NOT NULL CHECK (card_bin ~ '^[0-9]{6}$'),
  card_last4         text NOT NULL CHECK (card_last4 ~ '^[0-9]{4}$'),
  card_fingerprint   text NOT NULL CHECK (card_fingerprint ~ '^[0-9a-f]{64}$'),
  hold_id            bigint,
  transfer_id        text,
  error_code         text,
  error_message      text,
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL,
  completed_at       timestamptz,
  CHECK ((status = 'FAILED') = (error_code IS NOT NULL))
);
CREATE INDEX wallet_orders_partner ON wallet_orders (partner_id, created_at DESC);

-- SMS / CARD2FA codes (keyed hashes, never the codes) or the 3-D Secure step of one order.
CREATE TABLE wallet_order_authorizations (
  order_id           text PRIMARY KEY REFERENCES wallet_orders (id),
  partner_id         text NOT NULL REFERENCES accounts (id),
  method             text NOT NULL CHECK (method IN ('CODES', '3DS')),
  sms_hash           text,
  card2fa_hash       text,
  sms_verified       boolean NOT NULL DEFAULT false,
  card2fa_verified   boolean NOT NULL DEFAULT false,
  attempts           integer NOT NULL DEFAULT 0 CHECK (attempts BETWEEN 0 AND 5),
  state              text NOT NULL CHECK (state IN ('PENDING', 'PASSED', 'FAILED')),
  three_ds_decision  text CHECK (three_ds_decision IN ('APPROVED', 'DECLINED')),
  expires_at         timestamptz NOT NULL,
  decided_at         timestamptz,
  CHECK ((method = 'CODES') = (sms_hash IS NOT NULL OR card2fa_hash IS NOT NULL))
);

-- The simulated processor's side of each authorization (a real processor keeps these itself).
CREATE TABLE sandbox_card_authorizations (
  order_id          text PRIMARY KEY,
  card_fingerprint  text NOT NULL,
  currency          text NOT NULL,
  amount            numeric NOT NULL CHECK (amount > 0),
  state             text NOT NULL CHECK (state IN ('AUTHORIZED', 'CAPTURED', 'VOIDED', 'REFUNDED')),
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL
);

-- Card spend per limit key (address:<hash>, user:US_…, card:<fingerprint>). Rows are the truth;
-- card_spend_days holds the same amounts summed per UTC day, so a 365-day window reads at most
-- 366 bucket rows plus the rows of the window's first (partial) day, however many orders exist.
-- Spend is the service's risk record, not a partner's: one key counts across partners.
CREATE TABLE card_spend (
  order_id    text NOT NULL,
  spend_key   text NOT NULL,
  amount_usd  numeric NOT NULL CHECK (amount_usd >= 0),
  at          timestamptz NOT NULL,
  PRIMARY KEY (order_id, spend_key)
);
CREATE INDEX card_spend_key_at ON card_spend (spend_key, at);

CREATE TABLE card_spend_days (
  spend_key   text NOT NULL,
  day         date NOT NULL,
  amount_usd  numeric NOT NULL CHECK (amount_usd >= 0),
  PRIMARY KEY (spend_key, day)
);

-- Operator-set limit tables replacing the defaults for one partner (audited in operator_audit).
CREATE TABLE card_limit_overrides (
  partner_id  text PRIMARY KEY REFERENCES accounts (id),
  limits      jsonb NOT NULL,
  updated_at  timestamptz NOT NULL
);

-- POST /v2/digitalwallet/webhook: where an account's wallet-order events go.
CREATE TABLE wallet_order_webhooks (
  account_id  text PRIMARY KEY REFERENCES accounts (id),
  partner_id  text NOT NULL REFERENCES accounts (id),
  url         text NOT NULL,
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL
);
