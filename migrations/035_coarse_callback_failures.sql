-- A subscription's `failure`, which partners read, holds only a coarse outcome
-- (src/callbacks/outcome.ts): `refusedByReceiver (HTTP <status>)`, `unreachable` or `timedOut`,
-- never the attempt's error text (`connect ECONNREFUSED 127.0.0.1:5432`, `socket hang up`,
-- `HTTP 401`), with which a sandbox partner pointing callbacks at the server's own loopback
-- could map its services port by port. This rewrites stored texts the same way; the deliveries
-- and attempts the operator reads keep theirs.
UPDATE callback_subscriptions
SET failure = CASE
  WHEN failure ~ '^HTTP [0-9]{3}' THEN 'refusedByReceiver (' || substring(failure FROM '^HTTP [0-9]{3}') || ')'
  WHEN failure LIKE 'timed out after %' THEN 'timedOut'
  ELSE 'unreachable'
END
WHERE failure IS NOT NULL
  AND failure NOT IN ('unreachable', 'timedOut')
  AND failure NOT LIKE 'refusedByReceiver (%';
