-- Pricing and reservations: operator reference prices, the fee schedule, wallet order reservations.
-- Depends only on 001 and 002.

-- Reference prices in USD per one unit of the currency, set by PUT /operator/v1/rates. Rows
-- override the sandbox defaults shipped in src/pricing/default-prices.ts; production uses rows only.
CREATE TABLE reference_prices (
  currency    text PRIMARY KEY CHECK (currency ~ '^[A-Z]{3,5}$'),
  usd_price   numeric NOT NULL CHECK (usd_price > 0),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- The operator's fee schedule (PUT /operator/v1/fees): one row replaces the default table in code.
CREATE TABLE fee_schedule (
  id          boolean PRIMARY KEY DEFAULT true CHECK (id),
  schedule    jsonb NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Wallet order reservations (docs/contract.md, Reservations and quotes). `request` keeps the request fields as read back
-- (amounts as decimal text); the locked quote's amounts are NUMERIC columns, never floats.
CREATE TABLE reservations (
  id                          text PRIMARY KEY CHECK (id ~ '^[2-9A-HJ-NP-Z]{20}$'),
  partner_id                  text NOT NULL REFERENCES accounts (id),
  account_id                  text NOT NULL REFERENCES accounts (id),
  request                     jsonb NOT NULL,
  quote_locked                boolean NOT NULL,
  source_currency             text,
  dest_currency               text,
  source_amount               numeric CHECK (source_amount > 0),
  source_amount_without_fees  numeric CHECK (source_amount_without_fees > 0),
  dest_amount                 numeric CHECK (dest_amount > 0),
  exchange_rate               numeric CHECK (exchange_rate > 0),
  -- {currency: decimal text}
  fees                        jsonb,
  equivalencies               jsonb,
  -- How the rate was obtained: source, price time, USD prices of both sides (cross rates go via USD).
  rate_derivation             jsonb,
  state                       text NOT NULL DEFAULT 'valid' CHECK (state IN ('valid', 'used')),
  created_at                  timestamptz NOT NULL,
  expires_at                  timestamptz NOT NULL,
  used_at                     timestamptz,
  CHECK (quote_locked = (source_amount IS NOT NULL)),
  CHECK ((state = 'used') = (used_at IS NOT NULL))
);
CREATE INDEX reservations_partner ON reservations (partner_id, created_at DESC);
