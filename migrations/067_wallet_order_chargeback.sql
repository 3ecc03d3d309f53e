-- Wyre's CHARGEBACK status of a card order: a dispute opened on a delivered order's charge
-- (src/wallet-orders/disputes.ts; docs/contract.md, decision 117).
ALTER DOMAIN wallet_order_status DROP CONSTRAINT wallet_order_status_check;
ALTER DOMAIN wallet_order_status ADD CONSTRAINT wallet_order_status_check
  CHECK (VALUE IN ('RUNNING_CHECKS', 'PROCESSING', 'COMPLETE', 'FAILED', 'CHARGEBACK'));
