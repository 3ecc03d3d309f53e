-- When the card of a wallet order was captured (docs/contract.md, decision 110): at delivery, or
-- earlier by the sweep that captures an authorization before it expires (decision 112). NULL
-- while the authorization is only held: a failure then voids it, and after capture refunds it.
-- Orders already PROCESSING or COMPLETE were captured when they became PROCESSING, under the
-- lifecycle before this one.
ALTER TABLE wallet_orders ADD COLUMN captured_at timestamptz;
UPDATE wallet_orders SET captured_at = updated_at WHERE status = 'PROCESSING';
UPDATE wallet_orders SET captured_at = coalesce(completed_at, updated_at) WHERE status = 'COMPLETE';
