-- The ledger's balances of many owners in one call, for statements that authenticate a group of
-- requests at once (src/identity/keys-store.ts). Depends on 013 and 014.
--
-- Called per row, ledger_balances_json costs a PL/pgSQL call and its own plan execution for each
-- request of a group, most of the statement's time. One call per statement reads every owner's rows
-- together. Same answer as ledger_balances_json: [[currency, total, available], …] by currency,
-- amounts as text, summed over a system owner's stripes; '[]' for an owner without balances.
CREATE FUNCTION ledger_balances_json_of(balance_owners text[])
RETURNS TABLE (owner text, balances json)
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
  RETURN QUERY
    SELECT o.owner,
           coalesce((SELECT json_agg(json_build_array(b.currency, b.total::text, b.available::text) ORDER BY b.currency)
                     FROM (SELECT lb.currency, sum(lb.total) AS total, sum(lb.available) AS available
                           FROM ledger_balances lb WHERE lb.owner = o.owner GROUP BY lb.currency) AS b),
                    '[]'::json)
    FROM (SELECT DISTINCT unnest(balance_owners) AS owner) AS o;
END
$$;
