-- The statement-level posting check (010) looks the statement's entries up by key instead of
-- joining the whole entries table. Depends on 010.
--
-- 010 wrote `new_postings LEFT JOIN ledger_entries`. The planner costs a statement's transition
-- table at a thousand rows, so it hashed all of ledger_entries for every statement that writes
-- postings: each card capture and chain payout read the whole journal (pg_stat_user_tables after
-- 8 s of card orders: 332 sequential scans of ledger_entries), and card orders slowed round after
-- round as the journal grew. (A NOT EXISTS in place of the join is planned as a hashed subplan
-- over the whole table too.) The entries a statement names are now fetched by `id = ANY(…)`, a
-- probe of the primary key each, however long the journal gets.
CREATE OR REPLACE FUNCTION ledger_statement_balances() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  unbalanced bigint;
  named bigint[];
BEGIN
  SELECT p.entry_id INTO unbalanced
  FROM new_postings p
  GROUP BY p.entry_id, p.currency
  HAVING sum(p.amount) <> 0
  LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'ledger entry % does not balance', unbalanced USING ERRCODE = '23514';
  END IF;
  SELECT array_agg(DISTINCT p.entry_id) INTO named FROM new_postings p;
  IF (SELECT count(*) FROM ledger_entries e WHERE e.id = ANY(named)) <> coalesce(cardinality(named), 0) THEN
    RAISE EXCEPTION 'ledger postings name an entry that does not exist' USING ERRCODE = '23514';
  END IF;
  RETURN NULL;
END $$;
