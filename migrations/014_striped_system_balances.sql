-- System owners' balances in stripes, so card orders do not queue on one row.
-- Depends on 005, 010 and 013.
--
-- Every card order places a hold on `external:card`'s balance, and every capture moves it and
-- `house:*` again. With one row per (owner, currency), each order held that row's lock from its
-- hold until its COMMIT had reached disk, so orders ran one at a time, one WAL flush each, and
-- every commit woke all the waiters on that row to fight for it again.
--
-- A system owner (`external:…`, `house:…`) may go below zero and no rule reads one row of it, so
-- its balance is now the sum of up to 32 rows; each connection writes the stripe its backend's pid
-- picks, so concurrent writers rarely meet on one row. A customer's balance stays one row
-- (stripe 0, enforced), which is where the never-negative CHECK must see the whole balance.
-- Every read sums over stripes: ledger_balances_json here, the ledger store's reads in
-- src/ledger/store.ts.

ALTER TABLE ledger_balances ADD COLUMN stripe smallint NOT NULL DEFAULT 0;
ALTER TABLE ledger_balances DROP CONSTRAINT ledger_balances_pkey;
ALTER TABLE ledger_balances ADD PRIMARY KEY (owner, currency, stripe);
ALTER TABLE ledger_balances ADD CONSTRAINT ledger_customer_balance_one_row
  CHECK (stripe = 0 OR owner LIKE 'external:%' OR owner LIKE 'house:%');

-- The stripe this connection writes for an owner: 0 for customers, 0–31 by backend for system
-- owners. Constant within a transaction, so a writer locks at most one row per (owner, currency)
-- and 010's lock order by (owner, currency) still holds.
CREATE FUNCTION ledger_balance_stripe(balance_owner text) RETURNS smallint
LANGUAGE sql STABLE PARALLEL RESTRICTED AS $$
  SELECT CASE WHEN ledger_is_system_owner(balance_owner) THEN (pg_backend_pid() % 32)::smallint ELSE 0::smallint END
$$;

CREATE OR REPLACE FUNCTION ledger_add_to_balance(balance_owner text, balance_currency text,
                                                 total_delta numeric, available_delta numeric)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  balance_stripe smallint := ledger_balance_stripe(balance_owner);
BEGIN
  UPDATE ledger_balances
     SET total = total + total_delta, available = available + available_delta, updated_at = now()
   WHERE owner = balance_owner AND currency = balance_currency AND stripe = balance_stripe;
  IF NOT FOUND THEN
    INSERT INTO ledger_balances (owner, currency, stripe) VALUES (balance_owner, balance_currency, balance_stripe)
      ON CONFLICT (owner, currency, stripe) DO NOTHING;
    UPDATE ledger_balances
       SET total = total + total_delta, available = available + available_delta, updated_at = now()
     WHERE owner = balance_owner AND currency = balance_currency AND stripe = balance_stripe;
  END IF;
END $$;

-- 010's function with the stripe in its inline balance update; everything else as in 010.
CREATE OR REPLACE FUNCTION ledger_post_entries(entry_kinds text[], entry_references text[], entry_memos text[],
                                               posting_entries integer[], posting_owners text[],
                                               posting_currencies text[], posting_amounts numeric[],
                                               released_owner text DEFAULT NULL, released_currency text DEFAULT NULL,
                                               released_amount numeric DEFAULT 0)
RETURNS bigint[] LANGUAGE plpgsql AS $$
DECLARE
  entries integer := coalesce(cardinality(entry_kinds), 0);
  postings integer := coalesce(cardinality(posting_owners), 0);
  ids bigint[] := '{}';
  i integer := 1;
  key_owner text;
  key_currency text;
  delta numeric;
  lowest numeric;
  same_key boolean;
  available_after numeric;
BEGIN
  IF entries < 1 OR postings < 2 * entries
     OR cardinality(entry_references) IS DISTINCT FROM entries OR cardinality(entry_memos) IS DISTINCT FROM entries
     OR cardinality(posting_entries) IS DISTINCT FROM postings
     OR cardinality(posting_currencies) IS DISTINCT FROM postings
     OR cardinality(posting_amounts) IS DISTINCT FROM postings THEN
    RAISE EXCEPTION 'ledger entries need two postings or more each, every posting with entry, owner, currency and amount';
  END IF;
  FOR e IN 1..entries LOOP
    ids[e] := nextval('ledger_entries_id_seq');
  END LOOP;
  WITH entry AS (INSERT INTO ledger_entries (id, kind, reference, memo)
                 SELECT * FROM unnest(ids, entry_kinds, entry_references, entry_memos))
  INSERT INTO ledger_postings (entry_id, owner, currency, amount)
    SELECT ids[p.entry], p.owner, p.currency, p.amount
    FROM unnest(posting_entries, posting_owners, posting_currencies, posting_amounts) AS p(entry, owner, currency, amount);
  WHILE i <= postings LOOP
    key_owner := posting_owners[i];
    key_currency := posting_currencies[i];
    -- delta: this balance's change so far; lowest: its lowest point after any entry (0 = before).
    delta := 0;
    lowest := 0;
    LOOP
      delta := delta + posting_amounts[i];
      same_key := i < postings AND posting_owners[i + 1] = key_owner AND posting_currencies[i + 1] = key_currency;
      IF same_key AND posting_entries[i + 1] < posting_entries[i] THEN
        RAISE EXCEPTION 'ledger postings of one owner and currency must come in entry order';
      END IF;
      IF NOT same_key OR posting_entries[i + 1] <> posting_entries[i] THEN
        lowest := least(lowest, delta);
      END IF;
      EXIT WHEN NOT same_key;
      i := i + 1;
    END LOOP;
    IF i < postings AND (posting_owners[i + 1] COLLATE "C" < key_owner
                         OR (posting_owners[i + 1] = key_owner AND posting_currencies[i + 1] COLLATE "C" < key_currency)) THEN
      RAISE EXCEPTION 'ledger postings must come sorted by owner and currency';
    END IF;
    IF key_owner = released_owner AND key_currency = released_currency THEN
      PERFORM ledger_add_to_balance(key_owner, key_currency, delta, delta + released_amount);
    ELSE
      -- ledger_add_to_balance written out: this is every transfer's path.
      UPDATE ledger_balances
         SET total = total + delta, available = available + delta, updated_at = now()
       WHERE owner = key_owner AND currency = key_currency AND stripe = ledger_balance_stripe(key_owner)
      RETURNING available INTO available_after;
      IF NOT FOUND THEN
        PERFORM ledger_add_to_balance(key_owner, key_currency, delta, delta);
        available_after := delta;
      END IF;
      -- Lower in between than at the end (paid, then refilled by a later entry): the CHECK only
      -- saw the end. The balance before these entries was available_after - delta. (Customers
      -- only: a system owner's stripe says nothing about its balance.)
      IF lowest < delta AND available_after - delta + lowest < 0
         AND NOT (key_owner LIKE 'external:%' OR key_owner LIKE 'house:%') THEN
        RAISE EXCEPTION 'an entry would take % % below zero before a later one refills it', key_owner, key_currency
          USING ERRCODE = 'check_violation', TABLE = 'ledger_balances', CONSTRAINT = 'ledger_customer_never_negative';
      END IF;
    END IF;
    i := i + 1;
  END LOOP;
  RETURN ids;
END $$;

-- A customer's balances are one row per currency, read as 013 read them; a system owner's are
-- summed over its stripes.
CREATE OR REPLACE FUNCTION ledger_balances_json(balance_owner text) RETURNS json
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
  IF NOT ledger_is_system_owner(balance_owner) THEN
    RETURN (
      SELECT coalesce(json_agg(json_build_array(currency, total::text, available::text) ORDER BY currency), '[]'::json)
      FROM ledger_balances WHERE owner = balance_owner);
  END IF;
  RETURN (
    SELECT coalesce(json_agg(json_build_array(currency, total::text, available::text) ORDER BY currency), '[]'::json)
    FROM (SELECT currency, sum(total) AS total, sum(available) AS available
          FROM ledger_balances WHERE owner = balance_owner GROUP BY currency) AS balance);
END
$$;
