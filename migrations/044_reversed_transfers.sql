-- A bank transfer the bank returns after it completed (an ACH return, a wire sent back) becomes
-- REVERSED: its reversal is a ledger entry of its own (docs/contract.md decision 57), and
-- failure_reason holds the bank's reason, answered as `reversalReason`.
ALTER TABLE transfers DROP CONSTRAINT transfers_status_check;
ALTER TABLE transfers ADD CONSTRAINT transfers_status_check
  CHECK (status IN ('PREVIEW', 'UNCONFIRMED', 'PENDING', 'COMPLETED', 'FAILED', 'EXPIRED', 'REVERSED'));
