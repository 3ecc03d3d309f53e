-- ledger_settle_holds (020, 021) with entries after the holds' own: entry i settles hold i as
-- before, and the entries past the last hold are posted as they are, in the same
-- ledger_post_entries call. A card order's capture is booked with its delivery, in the status
-- change that completes it (src/wallet-orders/transitions.ts onOrderDeliveries; docs/contract.md,
-- decision 110): one function call in one statement, whose postings of both kinds lock every
-- balance once, in the (owner, currency) order every other path keeps. Two calls in one
-- statement would leave the order between them to the planner. Same checks and errors for the
-- holds' entries; the rest of the function is 021's.
CREATE OR REPLACE FUNCTION ledger_settle_holds(pending_holds bigint[], entry_kinds text[], entry_references text[],
                                               entry_memos text[], posting_entries integer[], posting_owners text[],
                                               posting_currencies text[], posting_amounts numeric[])
RETURNS bigint[] LANGUAGE plpgsql AS $$
DECLARE
  holds integer := coalesce(cardinality(pending_holds), 0);
  locked integer;
  holder record;
  mismatched integer;
  ids bigint[];
BEGIN
  IF holds < 1 OR coalesce(cardinality(entry_kinds), 0) < holds THEN
    RAISE EXCEPTION 'ledger_settle_holds needs an entry for each hold';
  END IF;
  SELECT count(*) INTO locked FROM (
    SELECT id FROM ledger_holds WHERE id = ANY(pending_holds) AND state = 'pending' ORDER BY id FOR UPDATE
  ) AS pending;
  IF locked <> holds THEN
    RAISE EXCEPTION 'a ledger hold of % is not pending', pending_holds USING ERRCODE = 'RL001';
  END IF;
  SELECT min(owner) AS owner, min(currency) AS currency, sum(amount) AS amount,
         count(DISTINCT (owner, currency)) AS kinds
    INTO holder FROM ledger_holds WHERE id = ANY(pending_holds);
  IF holder.kinds <> 1 THEN
    RAISE EXCEPTION 'holds settled together must share one owner and currency';
  END IF;
  -- Each entry takes from the holder exactly what its hold holds (an entry that takes nothing
  -- from the holder has no row in `taken`, and NULL differs from every amount).
  SELECT count(*) INTO mismatched
  FROM unnest(pending_holds) WITH ORDINALITY AS h(id, ord)
  JOIN ledger_holds AS l ON l.id = h.id
  LEFT JOIN (
    SELECT p.entry, -sum(p.amount) AS amount
    FROM unnest(posting_entries, posting_owners, posting_currencies, posting_amounts) AS p(entry, owner, currency, amount)
    WHERE p.owner = holder.owner AND p.currency = holder.currency
    GROUP BY p.entry
  ) AS taken ON taken.entry = h.ord
  WHERE l.amount IS DISTINCT FROM taken.amount;
  IF mismatched > 0 THEN
    RAISE EXCEPTION '% entries do not take exactly their hold from %', mismatched, holder.owner;
  END IF;
  ids := ledger_post_entries(entry_kinds, entry_references, entry_memos, posting_entries, posting_owners,
                             posting_currencies, posting_amounts, holder.owner, holder.currency, holder.amount);
  UPDATE ledger_holds AS l SET state = 'posted', resolved_at = now(), entry_id = ids[h.ord]
  FROM unnest(pending_holds) WITH ORDINALITY AS h(id, ord) WHERE l.id = h.id;
  RETURN ids;
END $$;
