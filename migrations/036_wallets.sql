-- v2 wallets (docs/contract.md, "Wallets and v2 transfers"): named custodial balance holders of a
-- partner's account, sub-account or user. The balances are the ledger's, under the owner
-- `wallet:WA_…`, which the ledger treats as a customer (never negative) like any SRN that is not
-- `external:` or `house:`; deposit addresses are in `deposit_addresses` under the same owner.

CREATE TABLE wallets (
  id                 text PRIMARY KEY,
  -- Creation order: a batch's wallets share one creation time and list in the order sent.
  seq                bigint GENERATED ALWAYS AS IDENTITY,
  partner_id         text NOT NULL REFERENCES accounts (id),
  -- The SRN of whoever the wallet belongs to: `account:AC_…` or `user:US_…`.
  owner              text NOT NULL,
  name               text NOT NULL,
  type               text NOT NULL CHECK (type IN ('DEFAULT', 'ENTERPRISE', 'SAVINGS')),
  callback_url       text,
  notes              text,
  verification_data  jsonb,
  pusher_channel     text NOT NULL,
  created_at         timestamptz NOT NULL,
  -- A deleted wallet is kept for the ledger's history and its deposit addresses, never shown.
  deleted_at         timestamptz
);

-- A name is the partner's own identifier of the wallet: unique per owner among live wallets.
CREATE UNIQUE INDEX wallets_owner_name ON wallets (partner_id, owner, name) WHERE deleted_at IS NULL;
-- Lists of one owner, and a master's list of its whole partner, oldest first.
CREATE INDEX wallets_owner_listed ON wallets (partner_id, owner, seq) WHERE deleted_at IS NULL;
CREATE INDEX wallets_partner_listed ON wallets (partner_id, seq) WHERE deleted_at IS NULL;

-- A payload no statement filters by (migration 030).
ALTER TABLE wallets ALTER COLUMN verification_data SET STATISTICS 0;
