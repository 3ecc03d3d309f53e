-- Many holds in one call, for card orders created together (src/wallet-orders/order-groups.ts).
-- Depends on 010 and 014.
--
-- ledger_place_hold (010) once per hold would move the same balance row once per hold: as many
-- row versions as orders in the group. Here the holds are inserted together and each balance
-- they touch moves once, by their sum, in (owner, currency) byte order: the lock order every
-- ledger path keeps (010), so a group cannot deadlock with single entries or other groups.
-- Answers the holds' ids in the arguments' order.
CREATE FUNCTION ledger_place_holds(hold_owners text[], hold_currencies text[], hold_amounts numeric[],
                                   hold_expiries timestamptz[], hold_references text[])
RETURNS bigint[] LANGUAGE plpgsql AS $$
DECLARE
  holds integer := coalesce(cardinality(hold_owners), 0);
  ids bigint[];
  total record;
BEGIN
  IF cardinality(hold_currencies) IS DISTINCT FROM holds OR cardinality(hold_amounts) IS DISTINCT FROM holds
     OR cardinality(hold_expiries) IS DISTINCT FROM holds OR cardinality(hold_references) IS DISTINCT FROM holds THEN
    RAISE EXCEPTION 'ledger holds need owner, currency, amount, expiry and reference each';
  END IF;
  -- Ids taken first, as ledger_post_entries does, so each hold's id is known by its position.
  SELECT coalesce(array_agg(nextval('ledger_holds_id_seq')), '{}') INTO ids FROM generate_series(1, holds);
  INSERT INTO ledger_holds (id, owner, currency, amount, reference, expires_at)
  SELECT ids[h.ord], h.owner, h.currency, h.amount, h.reference, h.expires_at
  FROM unnest(hold_owners, hold_currencies, hold_amounts, hold_references, hold_expiries)
    WITH ORDINALITY AS h(owner, currency, amount, reference, expires_at, ord);
  FOR total IN
    SELECT h.owner, h.currency, sum(h.amount) AS amount
    FROM unnest(hold_owners, hold_currencies, hold_amounts) AS h(owner, currency, amount)
    GROUP BY h.owner, h.currency
    ORDER BY h.owner COLLATE "C", h.currency COLLATE "C"
  LOOP
    PERFORM ledger_add_to_balance(total.owner, total.currency, 0, -total.amount);
  END LOOP;
  RETURN ids;
END $$;
