-- Payment methods belong to an account or a user (docs/contract.md "Payment methods and bank
-- transfers"): `owner` is the owning SRN; `user_id` stays for a user's methods (the ACH scope
-- reads it) and is empty for an account's.
ALTER TABLE payment_methods ADD COLUMN owner text;
UPDATE payment_methods SET owner = 'user:' || user_id;
ALTER TABLE payment_methods
  ALTER COLUMN owner SET NOT NULL,
  ALTER COLUMN user_id DROP NOT NULL,
  ADD CONSTRAINT payment_methods_owner_srn CHECK (owner ~ '^(account|user):[A-Z]{2}_[0-9A-Z]{11}$'),
  ADD CONSTRAINT payment_methods_user_owner CHECK (user_id IS NULL OR owner = 'user:' || user_id);

-- A wire beneficiary (INTERNATIONAL_TRANSFER) next to the US ACH account: the routing number
-- becomes the beneficiary bank's code (absent for a CLABE), and the beneficiary's contact and
-- address fields are kept as sent, in `beneficiary`.
ALTER TABLE payment_methods DROP CONSTRAINT payment_methods_link_type_check;
ALTER TABLE payment_methods
  ADD CONSTRAINT payment_methods_link_type_check CHECK (link_type IN ('LOCAL_TRANSFER', 'INTERNATIONAL_TRANSFER')),
  ALTER COLUMN routing_number DROP NOT NULL,
  ADD COLUMN payment_type text,
  ADD COLUMN beneficiary jsonb NOT NULL DEFAULT '{}';

DROP INDEX payment_methods_user;
CREATE INDEX payment_methods_owner ON payment_methods (partner_id, owner, created_at);

-- The beneficiary is a payload no statement filters by (as migration 030 sets for the others).
ALTER TABLE payment_methods ALTER COLUMN beneficiary SET STATISTICS 0;
