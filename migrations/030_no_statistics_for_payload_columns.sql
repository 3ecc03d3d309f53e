-- No planner statistics for the jsonb columns. Each is a payload written and read whole (a
-- request, a quote's maps, a transaction, a status history, a job's arguments); no statement
-- filters, joins or sorts by one, so the planner never looks at their statistics, while ANALYZE
-- sampled, sorted and measured their values, tens to hundreds of bytes each. Housekeeping
-- analyzes a table every time it doubles and after a tenth of it changed
-- (src/platform/jobs/housekeeping.ts), so under load ANALYZE is a steady share of PostgreSQL's
-- CPU, most of it spent on these columns. A column a statement comes to filter by gets its statistics
-- back with SET STATISTICS -1 (test/platform/db/statistics.test.ts lists the rule).
ALTER TABLE accounts ALTER COLUMN profile_fields SET STATISTICS 0;
ALTER TABLE card_limit_overrides ALTER COLUMN limits SET STATISTICS 0;
ALTER TABLE chain_sends ALTER COLUMN blockchain_tx SET STATISTICS 0;
ALTER TABLE fee_schedule ALTER COLUMN schedule SET STATISTICS 0;
ALTER TABLE jobs ALTER COLUMN payload SET STATISTICS 0;
ALTER TABLE operator_audit ALTER COLUMN detail SET STATISTICS 0;
ALTER TABLE reservations
  ALTER COLUMN request SET STATISTICS 0,
  ALTER COLUMN fees SET STATISTICS 0,
  ALTER COLUMN equivalencies SET STATISTICS 0,
  ALTER COLUMN rate_derivation SET STATISTICS 0;
ALTER TABLE runtime_settings ALTER COLUMN value SET STATISTICS 0;
ALTER TABLE transfers
  ALTER COLUMN blockchain_tx SET STATISTICS 0,
  ALTER COLUMN fees SET STATISTICS 0,
  ALTER COLUMN status_history SET STATISTICS 0;
ALTER TABLE user_scope_events ALTER COLUMN detail SET STATISTICS 0;
ALTER TABLE users ALTER COLUMN fields SET STATISTICS 0;
ALTER TABLE wallet_orders
  ALTER COLUMN billing_address SET STATISTICS 0,
  ALTER COLUMN fees SET STATISTICS 0;
