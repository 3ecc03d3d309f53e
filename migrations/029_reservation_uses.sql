-- A reservation's single use as a narrow row of its own instead of a new version of the
-- reservation's row. That row is large (the request and the locked quote), and pages written at
-- fillfactor 85 keep little room for it: most uses were not HOT, each writing the whole row to the
-- WAL again and leaving a dead version of it for VACUUM. Reservations are
-- now written once and never changed, so their pages are filled again.
--
-- The primary key is the single-use rule: of concurrent INSERTs for one reservation the first
-- wins, and the others wait for its transaction, then insert nothing (ON CONFLICT DO NOTHING) if
-- it committed, or their own row if it rolled back. No foreign key to reservations: its check
-- would lock the reservation's row (FOR KEY SHARE), the very write this table avoids; uses are
-- inserted only by the statements that read the reservation (src/orders/store.ts).
CREATE TABLE reservation_uses (
  reservation_id text PRIMARY KEY,
  used_at        timestamptz NOT NULL
);

INSERT INTO reservation_uses (reservation_id, used_at)
SELECT id, used_at FROM reservations WHERE state = 'used';

ALTER TABLE reservations DROP COLUMN state, DROP COLUMN used_at;
ALTER TABLE reservations SET (fillfactor = 100);
DROP DOMAIN reservation_state;
