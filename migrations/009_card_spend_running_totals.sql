-- Card spend as running totals, so reading the limits costs the same however many orders a key has.
-- Each card_spend row now carries running_usd: its key's spend up to and including this row, in
-- (at, order_id) order. What a key spent since an instant S is its last row's running_usd minus
-- that of its last row before S: two index probes per window, whatever the key's history, and
-- exact to the instant as before. Replaces card_spend_days, whose 365-day window read up to 366
-- day buckets plus every row of the window's first day.

ALTER TABLE card_spend ADD COLUMN running_usd numeric;

UPDATE card_spend AS c SET running_usd = r.running_usd
FROM (
  SELECT order_id, spend_key,
         sum(amount_usd) OVER (PARTITION BY spend_key ORDER BY at, order_id ROWS UNBOUNDED PRECEDING) AS running_usd
  FROM card_spend
) AS r
WHERE c.order_id = r.order_id AND c.spend_key = r.spend_key;

ALTER TABLE card_spend
  ALTER COLUMN running_usd SET NOT NULL,
  ADD CONSTRAINT card_spend_running_covers_amount CHECK (running_usd >= amount_usd);

-- The order running totals follow, and the probes' index: "last row of this key before S" is
-- one descending step, and running_usd is read from the index.
DROP INDEX card_spend_key_at;
CREATE UNIQUE INDEX card_spend_key_at ON card_spend (spend_key, at, order_id) INCLUDE (running_usd);

DROP TABLE card_spend_days;
