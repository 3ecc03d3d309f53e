-- Billing-address limit keys are normalised further (src/limits/billing-address.ts: ZIP+4 to ZIP,
-- unit designators dropped, USPS abbreviations), so one address written several ways counts
-- against one limit. Depends on 008 and 009.
--
-- The keys are hashes of the normalised address, and the normalisation (Unicode decomposition,
-- word rules) belongs to the application: SQL cannot recompute them, least of all in a database
-- whose encoding is not UTF8. This lists every spend row written under the old keys; the
-- application re-keys them from their orders' billing addresses when it starts, before it serves
-- (src/limits/address-rekey.ts), and empties the list. Until then the rows count under their old
-- keys, as before.
CREATE TABLE card_spend_address_rekeys (
  order_id  text NOT NULL,
  old_key   text NOT NULL,
  PRIMARY KEY (order_id, old_key)
);

INSERT INTO card_spend_address_rekeys (order_id, old_key)
SELECT order_id, spend_key FROM card_spend WHERE spend_key LIKE 'address:%';
