-- ledger_balances_json (013, redefined for stripes in 014) has no caller left: authentication and
-- user reads call ledger_balances_json_of (015) once per group of requests. Depends on 015.
DROP FUNCTION ledger_balances_json(text);
