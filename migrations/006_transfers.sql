-- Transfers (docs/contract.md, Transfers) and the chains port's outgoing sends.
-- No foreign keys to other modules' tables: parties are SRNs checked in code, money is in the ledger.

CREATE TABLE transfers (
  id                          text PRIMARY KEY,                 -- TF_…
  partner_id                  text NOT NULL,
  -- The acting account that created it (a masqueraded sub-account sees only its own).
  account_id                  text NOT NULL,
  owner                       text NOT NULL,                    -- account:AC_… or user:US_…
  source                      text NOT NULL,
  dest                        text NOT NULL,
  source_currency             text NOT NULL,
  dest_currency               text NOT NULL,
  source_amount               numeric NOT NULL CHECK (source_amount > 0),
  source_amount_without_fees  numeric NOT NULL CHECK (source_amount_without_fees > 0),
  dest_amount                 numeric NOT NULL CHECK (dest_amount > 0),
  -- Paid to the chain in dest_currency by house:fees when dest is a chain address; else 0.
  network_fee                 numeric NOT NULL CHECK (network_fee >= 0),
  exchange_rate               numeric,                          -- NULL without exchange
  fees                        jsonb NOT NULL,                   -- {"USD": "1.23", "ETH": "0.0004"}
  total_fees                  numeric NOT NULL CHECK (total_fees >= 0),
  message                     text,
  custom_id                   text,
  status                      text NOT NULL
    CHECK (status IN ('PREVIEW', 'UNCONFIRMED', 'PENDING', 'COMPLETED', 'FAILED', 'EXPIRED')),
  -- The ledger hold of an UNCONFIRMED transfer (posted on confirm, voided on expiry).
  hold_id                     bigint,
  blockchain_tx               jsonb,
  failure_reason              text,
  -- statusHistories (docs/contract.md, Transfers), appended with every status change in the same statement.
  status_history              jsonb NOT NULL DEFAULT '[]',
  created_at                  timestamptz NOT NULL,
  updated_at                  timestamptz NOT NULL,
  completed_at                timestamptz,
  cancelled_at                timestamptz,
  expires_at                  timestamptz NOT NULL,
  CHECK (status <> 'UNCONFIRMED' OR hold_id IS NOT NULL)
);
-- customId is unique per partner among real transfers; a preview is only a quote.
CREATE UNIQUE INDEX transfers_custom_id ON transfers (partner_id, custom_id)
  WHERE custom_id IS NOT NULL AND status <> 'PREVIEW';
CREATE INDEX transfers_history ON transfers (partner_id, created_at DESC, id DESC) WHERE status <> 'PREVIEW';
CREATE INDEX transfers_by_source ON transfers (partner_id, source, created_at DESC) WHERE status <> 'PREVIEW';
CREATE INDEX transfers_by_dest ON transfers (partner_id, dest, created_at DESC) WHERE status <> 'PREVIEW';
CREATE INDEX transfers_unconfirmed ON transfers (expires_at) WHERE status = 'UNCONFIRMED';

-- Outgoing on-chain payments asked for through the chains port; one per reference
-- (`transfer:TF_…`, `order:WO_…`). Settled exactly once: QUEUED → CONFIRMED | FAILED.
CREATE TABLE chain_sends (
  reference       text PRIMARY KEY,
  chain           text NOT NULL,
  address         text NOT NULL,
  currency        text NOT NULL,
  amount          numeric NOT NULL CHECK (amount > 0),
  network_fee     numeric NOT NULL DEFAULT 0,
  status          text NOT NULL DEFAULT 'QUEUED' CHECK (status IN ('QUEUED', 'CONFIRMED', 'FAILED')),
  blockchain_tx   jsonb,
  failure_reason  text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  settled_at      timestamptz
);
