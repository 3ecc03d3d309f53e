-- Many pending holds settled in one call, for card orders captured together
-- (src/wallet-orders/transitions.ts processOrders). Depends on 010 and 014.
--
-- ledger_settle_hold (010) once per hold posts one entry per call, each moving the same system
-- balance rows again: as many row versions of each as orders in the batch, every update walking
-- the versions before it. Here the entries go through ledger_post_entries (every balance moves
-- once, by its total), with the holds' sum released on the holder's available balance. The holds
-- must share one owner and currency (the caller groups them so); entry i settles hold i and must
-- take exactly the held amount from the holder, as ledger_settle_hold requires. Holds are locked
-- in id order before any balance, the order every hold path keeps. 'RL001' when a hold is not
-- pending (the service's ledger.holdNotPending). Answers the entries' ids, in the holds' order.
CREATE FUNCTION ledger_settle_holds(pending_holds bigint[], entry_kinds text[], entry_references text[],
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
  IF holds < 1 OR cardinality(entry_kinds) IS DISTINCT FROM holds THEN
    RAISE EXCEPTION 'ledger_settle_holds needs one entry per hold';
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
  -- Each entry takes from the holder exactly what its hold holds.
  SELECT count(*) INTO mismatched
  FROM unnest(pending_holds) WITH ORDINALITY AS h(id, ord)
  JOIN ledger_holds AS l ON l.id = h.id
  WHERE l.amount IS DISTINCT FROM (
    SELECT -sum(p.amount)
    FROM unnest(posting_entries, posting_owners, posting_currencies, posting_amounts) AS p(entry, owner, currency, amount)
    WHERE p.entry = h.ord AND p.owner = holder.owner AND p.currency = holder.currency);
  IF mismatched > 0 THEN
    RAISE EXCEPTION '% entries do not take exactly their hold from %', mismatched, holder.owner;
  END IF;
  ids := ledger_post_entries(entry_kinds, entry_references, entry_memos, posting_entries, posting_owners,
                             posting_currencies, posting_amounts, holder.owner, holder.currency, holder.amount);
  UPDATE ledger_holds AS l SET state = 'posted', resolved_at = now(), entry_id = ids[h.ord]
  FROM unnest(pending_holds) WITH ORDINALITY AS h(id, ord) WHERE l.id = h.id;
  RETURN ids;
END $$;
