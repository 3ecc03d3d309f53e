-- Ledger writes and the transfer-created callbacks as SQL functions, so a module writes a
-- movement inside its own statement: book transfers (rows, ledger entries, callbacks) are one
-- round trip, for one transfer or for many at once. Each function is owned by the module named
-- in its prefix; other modules call the function, never its tables. The rules of 005 stay: a
-- CHECK refuses an overdraft, a trigger refuses an unbalanced entry, history is append-only.

-- 005's two balance CHECKs called ledger_is_system_owner, a SQL function: PostgreSQL prepares a
-- table's CHECKs anew for every statement that writes it, and inlining the function meant parsing
-- its SQL text again each time. The same rule, written out, as one constraint: a customer's
-- balance never goes below zero, nor has more available than its total; system owners may (they
-- mirror the outside world). ledger_is_system_owner stays for queries that use it.
ALTER TABLE ledger_balances
  DROP CONSTRAINT ledger_customer_never_negative,
  DROP CONSTRAINT ledger_available_within_total,
  ADD CONSTRAINT ledger_customer_never_negative
    CHECK (owner LIKE 'external:%' OR owner LIKE 'house:%' OR (total >= 0 AND available >= 0 AND available <= total));

-- Adds to a balance row, creating it at zero first when it is missing; the table's CHECK
-- refuses an overdraft (check_violation on a ledger_… constraint, which the service turns into
-- InsufficientFundsException). UPDATE first: the row almost always exists, and INSERT … ON
-- CONFLICT would check the CHECK on the proposed row, refusing a debit even with funds present.
CREATE FUNCTION ledger_add_to_balance(balance_owner text, balance_currency text,
                                      total_delta numeric, available_delta numeric)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE ledger_balances
     SET total = total + total_delta, available = available + available_delta, updated_at = now()
   WHERE owner = balance_owner AND currency = balance_currency;
  IF NOT FOUND THEN
    INSERT INTO ledger_balances (owner, currency) VALUES (balance_owner, balance_currency)
      ON CONFLICT (owner, currency) DO NOTHING;
    UPDATE ledger_balances
       SET total = total + total_delta, available = available + available_delta, updated_at = now()
     WHERE owner = balance_owner AND currency = balance_currency;
  END IF;
END $$;

-- Every statement that writes postings must leave each of its entries balanced per currency, and
-- every posting must belong to an entry. Checked once per statement over the rows it inserted
-- (005 checked at commit, one query per posting, plus a foreign-key lookup and row lock per
-- posting): a batch of entries is one check. Entries are append-only (005), so an entry a posting
-- names cannot go away afterwards, which is all the foreign key added.
DROP TRIGGER ledger_postings_balance ON ledger_postings;
DROP FUNCTION ledger_entry_balances();
ALTER TABLE ledger_postings DROP CONSTRAINT ledger_postings_entry_id_fkey;
CREATE FUNCTION ledger_statement_balances() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  unbalanced bigint;
BEGIN
  SELECT p.entry_id INTO unbalanced
  FROM new_postings p LEFT JOIN ledger_entries e ON e.id = p.entry_id
  GROUP BY p.entry_id, p.currency
  HAVING sum(p.amount) <> 0 OR bool_or(e.id IS NULL)
  LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'ledger entry % does not balance (or does not exist)', unbalanced USING ERRCODE = '23514';
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER ledger_postings_balance AFTER INSERT ON ledger_postings REFERENCING NEW TABLE AS new_postings
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_statement_balances();

-- Journal entries, one or many: their rows, their postings, and the balance of every (owner,
-- currency) they touch, in one go. Posting i belongs to entry posting_entries[i] (1-based). The
-- postings come sorted by (owner, currency) in byte order across all the entries, and in entry
-- order within one (owner, currency) (the ledger service sorts them; anything else is refused),
-- so balance rows are locked in that order and two writers never deadlock; all the postings of
-- one owner and currency move its balance once. The entries count as applied one after the
-- other, in order: a customer balance that a later entry would refill must not have gone below
-- zero after an earlier one (refused as the CHECK would refuse it), so netting never lets through
-- an entry that would have been refused on its own at that point. `released_*` names the amount
-- a pending hold already took from that balance's `available` (the hold a single entry
-- settles), so it is not taken twice. Returns the entry ids in order.
CREATE FUNCTION ledger_post_entries(entry_kinds text[], entry_references text[], entry_memos text[],
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
       WHERE owner = key_owner AND currency = key_currency
      RETURNING available INTO available_after;
      IF NOT FOUND THEN
        PERFORM ledger_add_to_balance(key_owner, key_currency, delta, delta);
        available_after := delta;
      END IF;
      -- Lower in between than at the end (paid, then refilled by a later entry): the CHECK only
      -- saw the end. The balance before these entries was available_after - delta.
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

-- One journal entry (ledger_post_entries of one); postings sorted likewise. Returns its id.
CREATE FUNCTION ledger_post_entry(entry_kind text, entry_reference text, entry_memo text,
                                  posting_owners text[], posting_currencies text[], posting_amounts numeric[],
                                  released_owner text DEFAULT NULL, released_currency text DEFAULT NULL,
                                  released_amount numeric DEFAULT 0)
RETURNS bigint LANGUAGE sql AS $$
  SELECT (ledger_post_entries(ARRAY[entry_kind], ARRAY[entry_reference], ARRAY[entry_memo],
                              array_fill(1, ARRAY[cardinality(posting_owners)]), posting_owners,
                              posting_currencies, posting_amounts,
                              released_owner, released_currency, released_amount))[1]
$$;

-- Reserves funds: available drops now (refused below zero), total when the hold is posted.
CREATE FUNCTION ledger_place_hold(hold_owner text, hold_currency text, hold_amount numeric,
                                  hold_expires_at timestamptz, hold_reference text)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  new_hold bigint;
BEGIN
  INSERT INTO ledger_holds (owner, currency, amount, reference, expires_at)
    VALUES (hold_owner, hold_currency, hold_amount, hold_reference, hold_expires_at)
    RETURNING id INTO new_hold;
  PERFORM ledger_add_to_balance(hold_owner, hold_currency, 0, -hold_amount);
  RETURN new_hold;
END $$;

-- The hold, locked, while it is still pending; 'RL001' when it was already posted, voided or
-- never existed (the service's ledger.holdNotPending). The hold is locked before any balance:
-- the order every hold path uses.
CREATE FUNCTION ledger_lock_pending_hold(pending_hold bigint) RETURNS ledger_holds
LANGUAGE plpgsql AS $$
DECLARE
  hold ledger_holds;
BEGIN
  SELECT * INTO hold FROM ledger_holds WHERE id = pending_hold AND state = 'pending' FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'ledger hold % is not pending', pending_hold USING ERRCODE = 'RL001';
  END IF;
  RETURN hold;
END $$;

-- Posts a locked pending hold's entry: available was already reduced by the hold, so the
-- holder's balance gets the held amount back on available as the entry debits it.
CREATE FUNCTION ledger_post_locked_hold(hold ledger_holds, entry_kind text, entry_reference text, entry_memo text,
                                        posting_owners text[], posting_currencies text[], posting_amounts numeric[])
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  new_entry bigint := ledger_post_entry(entry_kind, entry_reference, entry_memo,
                                        posting_owners, posting_currencies, posting_amounts,
                                        hold.owner, hold.currency, hold.amount);
BEGIN
  UPDATE ledger_holds SET state = 'posted', resolved_at = now(), entry_id = new_entry WHERE id = hold.id;
  RETURN new_entry;
END $$;

-- Settles a pending hold as a whole entry (fees and exchange legs besides the payee): the
-- holder's postings must take exactly the held amount in the held currency. Exactly once.
CREATE FUNCTION ledger_settle_hold(pending_hold bigint, entry_kind text, entry_reference text, entry_memo text,
                                   posting_owners text[], posting_currencies text[], posting_amounts numeric[])
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  hold ledger_holds := ledger_lock_pending_hold(pending_hold);
  taken numeric;
BEGIN
  SELECT coalesce(-sum(p.amount), 0) INTO taken
  FROM unnest(posting_owners, posting_currencies, posting_amounts) AS p(owner, currency, amount)
  WHERE p.owner = hold.owner AND p.currency = hold.currency;
  IF taken <> hold.amount THEN
    RAISE EXCEPTION 'hold % holds % but the entry takes %', hold.id, hold.amount, taken;
  END IF;
  RETURN ledger_post_locked_hold(hold, entry_kind, entry_reference, entry_memo,
                                 posting_owners, posting_currencies, posting_amounts);
END $$;

-- Settles a pending hold to one payee: its full amount leaves the holder for `payee` (the
-- holder itself simply gets it back on available). Exactly once.
CREATE FUNCTION ledger_post_hold(pending_hold bigint, payee text, entry_kind text, entry_memo text)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  hold ledger_holds := ledger_lock_pending_hold(pending_hold);
BEGIN
  IF payee COLLATE "C" < hold.owner THEN  -- postings go sorted by owner
    RETURN ledger_post_locked_hold(hold, entry_kind, hold.reference, entry_memo,
                                   ARRAY[payee, hold.owner], ARRAY[hold.currency, hold.currency],
                                   ARRAY[hold.amount, -hold.amount]);
  END IF;
  RETURN ledger_post_locked_hold(hold, entry_kind, hold.reference, entry_memo,
                                 ARRAY[hold.owner, payee], ARRAY[hold.currency, hold.currency],
                                 ARRAY[-hold.amount, hold.amount]);
END $$;

-- Releases a pending hold back to available. Exactly once.
CREATE FUNCTION ledger_void_hold(pending_hold bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  hold ledger_holds := ledger_lock_pending_hold(pending_hold);
BEGIN
  PERFORM ledger_add_to_balance(hold.owner, hold.currency, 0, hold.amount);
  UPDATE ledger_holds SET state = 'voided', resolved_at = now() WHERE id = hold.id;
END $$;

-- Callbacks: an id of ids.ts's shape (`CB_` + 11 characters of its alphabet) from 11 fully
-- random bytes of a v4 UUID (bytes 6 and 8 carry the version and variant bits; 7 and 9 on do not).
CREATE FUNCTION callbacks_new_delivery_id() RETURNS text LANGUAGE sql VOLATILE AS $$
  SELECT 'CB_' || string_agg(substr('23456789ABCDEFGHJKLMNPQRSTUVWXYZ', (get_byte(r.bytes, i) & 31) + 1, 1), ''
                             ORDER BY i)
  FROM (SELECT uuid_send(gen_random_uuid()) AS bytes) AS r, unnest(ARRAY[0, 1, 2, 3, 4, 5, 7, 9, 10, 11, 12]) AS i
$$;

-- Callbacks, in the statement that creates transfers (one or many). For transfer i: the implicit
-- subscription of its `notifyUrl` when it has one (notify_urls[i], id implicit_ids[i], made at
-- created[i]), then one PENDING delivery of exactly {"subscriptionId":"DA_…","trigger":"transfer:TF_…"}
-- for every active subscription of its partner to any of its SRNs (the trigger, the acting
-- account, the owner, the parties: srns[j] where srn_transfers[j] = i), the implicit one
-- included, once per subscription. Returns how many deliveries were queued.
CREATE FUNCTION callbacks_queue_transfers_created(partners text[], acting_accounts text[], transfer_triggers text[],
                                                  implicit_ids text[], notify_urls text[],
                                                  srn_transfers integer[], srns text[],
                                                  created timestamptz[], attempts_allowed integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  queued integer;
BEGIN
  INSERT INTO callback_subscriptions (id, partner_id, account_id, subscribe_to, notify_target, implicit, created_at)
    SELECT t.implicit_id, t.partner, t.account, t.trigger, t.url, true, t.created
    FROM unnest(partners, acting_accounts, transfer_triggers, implicit_ids, notify_urls, created)
         AS t(partner, account, trigger, implicit_id, url, created)
    WHERE t.url IS NOT NULL;
  INSERT INTO callback_deliveries (id, partner_id, subscription_id, trigger, url, body, status, max_attempts)
    SELECT callbacks_new_delivery_id(), m.partner, m.id, m.trigger, m.notify_target,
           '{"subscriptionId":' || to_json(m.id)::text || ',"trigger":' || to_json(m.trigger)::text || '}',
           'PENDING', attempts_allowed
    FROM (SELECT DISTINCT ON (x.transfer, s.id) partners[x.transfer] AS partner, transfer_triggers[x.transfer] AS trigger,
                 s.id, s.notify_target, s.created_at
          FROM unnest(srn_transfers, srns) AS x(transfer, srn)
          JOIN callback_subscriptions s
            ON s.partner_id = partners[x.transfer] AND s.subscribe_to = x.srn AND s.deleted_at IS NULL
          ORDER BY x.transfer, s.id) AS m
    ORDER BY m.created_at, m.id;
  GET DIAGNOSTICS queued = ROW_COUNT;
  RETURN queued;
END $$;

-- callbacks_queue_transfers_created for one transfer, its SRNs in `srns`.
CREATE FUNCTION callbacks_queue_transfer_created(partner text, acting_account text, transfer_trigger text,
                                                 srns text[], implicit_id text, notify_url text,
                                                 created timestamptz, attempts_allowed integer)
RETURNS integer LANGUAGE sql AS $$
  SELECT callbacks_queue_transfers_created(ARRAY[partner], ARRAY[acting_account], ARRAY[transfer_trigger],
                                           ARRAY[implicit_id], ARRAY[notify_url],
                                           array_fill(1, ARRAY[cardinality(srns)]), srns,
                                           ARRAY[created], attempts_allowed)
$$;
