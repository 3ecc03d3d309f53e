-- The ledger's balances of one owner as one JSON value, so a module that reads a row of its own
-- (the caller's account in authentication, a user) can bring the owner's balances back in the
-- same round trip instead of a second query. Owned by the ledger: other modules call this
-- function, never ledger_balances itself. Amounts are text so they stay exact in JSON.
-- PL/pgSQL, not SQL: its statement's plan is cached per connection, where a SQL function that
-- cannot be inlined is planned again on every call of the query that calls it.
CREATE FUNCTION ledger_balances_json(balance_owner text) RETURNS json
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
  RETURN (
    SELECT coalesce(json_agg(json_build_array(currency, total::text, available::text) ORDER BY currency), '[]'::json)
    FROM ledger_balances WHERE owner = balance_owner);
END
$$;
