-- Double-entry ledger: journal entries of postings that sum to zero per currency, balances per
-- (owner, currency) changed in the same transaction, and holds (pending → posted | voided).

-- System owners (external:…, house:…) mirror the outside world and may be negative; every other
-- owner is a customer whose balance never goes below zero. The database enforces it.
CREATE FUNCTION ledger_is_system_owner(owner text) RETURNS boolean
  LANGUAGE sql IMMUTABLE AS $$ SELECT owner LIKE 'external:%' OR owner LIKE 'house:%' $$;

CREATE TABLE ledger_balances (
  owner      text NOT NULL,
  currency   text NOT NULL,
  total      numeric NOT NULL DEFAULT 0,
  available  numeric NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (owner, currency),
  CONSTRAINT ledger_customer_never_negative
    CHECK (ledger_is_system_owner(owner) OR (total >= 0 AND available >= 0)),
  CONSTRAINT ledger_available_within_total
    CHECK (ledger_is_system_owner(owner) OR available <= total)
);

CREATE TABLE ledger_entries (
  id          bigserial PRIMARY KEY,
  kind        text NOT NULL,
  reference   text,
  memo        text,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_entries_reference ON ledger_entries (reference);

CREATE TABLE ledger_postings (
  id        bigserial PRIMARY KEY,
  entry_id  bigint NOT NULL REFERENCES ledger_entries (id),
  owner     text NOT NULL,
  currency  text NOT NULL,
  amount    numeric NOT NULL CHECK (amount <> 0)
);
CREATE INDEX ledger_postings_entry ON ledger_postings (entry_id);
CREATE INDEX ledger_postings_owner ON ledger_postings (owner, currency);

-- Checked at commit: whatever code wrote the postings, an unbalanced entry cannot be committed.
CREATE FUNCTION ledger_entry_balances() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM ledger_postings WHERE entry_id = NEW.entry_id
             GROUP BY currency HAVING sum(amount) <> 0) THEN
    RAISE EXCEPTION 'ledger entry % does not balance', NEW.entry_id USING ERRCODE = '23514';
  END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER ledger_postings_balance AFTER INSERT ON ledger_postings
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_entry_balances();

-- Postings and entries are history: never changed, never removed.
CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger history is append-only' USING ERRCODE = '42501';
END $$;
CREATE TRIGGER ledger_postings_append_only BEFORE UPDATE OR DELETE ON ledger_postings
  FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_append_only();

CREATE TABLE ledger_holds (
  id           bigserial PRIMARY KEY,
  owner        text NOT NULL,
  currency     text NOT NULL,
  amount       numeric NOT NULL CHECK (amount > 0),
  state        text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'posted', 'voided')),
  reference    text,
  expires_at   timestamptz NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  resolved_at  timestamptz,
  entry_id     bigint REFERENCES ledger_entries (id),
  CHECK ((state = 'pending') = (resolved_at IS NULL)),
  CHECK ((state = 'posted') = (entry_id IS NOT NULL))
);
CREATE INDEX ledger_holds_pending ON ledger_holds (expires_at) WHERE state = 'pending';
CREATE INDEX ledger_holds_owner ON ledger_holds (owner, currency) WHERE state = 'pending';
