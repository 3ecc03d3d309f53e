-- Transfers' status changes (a card order's delivery transfer goes PENDING → COMPLETED, a
-- custody transfer UNCONFIRMED → PENDING → COMPLETED) were never HOT: every index but the primary
-- key named `status` in its predicate, and PostgreSQL makes an update heap-only only when no
-- column an index reads (predicates included) changed. So each status change wrote a new entry
-- into all five indexes, a cost paid for every row of a worker batch.
--
-- The predicates now read two generated columns that a status change leaves as they were: a
-- transfer is `listed` (in history) unless it is a PREVIEW, which it stays, and
-- `awaiting_confirmation` only while UNCONFIRMED. Then only a confirmation or expiry (the
-- second flag changes) writes index entries; every later change can be HOT, given room on
-- the page (fillfactor, as 022 did for the other tables updated in place).
ALTER TABLE transfers
  ADD COLUMN listed boolean NOT NULL GENERATED ALWAYS AS (status <> 'PREVIEW') STORED,
  ADD COLUMN awaiting_confirmation boolean NOT NULL GENERATED ALWAYS AS (status = 'UNCONFIRMED') STORED;

DROP INDEX transfers_custom_id, transfers_history, transfers_by_source, transfers_by_dest, transfers_unconfirmed;
CREATE UNIQUE INDEX transfers_custom_id ON transfers (partner_id, custom_id) WHERE custom_id IS NOT NULL AND listed;
CREATE INDEX transfers_history ON transfers (partner_id, created_at DESC, id DESC) WHERE listed;
CREATE INDEX transfers_by_source ON transfers (partner_id, source, created_at DESC) WHERE listed;
CREATE INDEX transfers_by_dest ON transfers (partner_id, dest, created_at DESC) WHERE listed;
CREATE INDEX transfers_unconfirmed ON transfers (expires_at) WHERE awaiting_confirmation;

ALTER TABLE transfers SET (fillfactor = 85);
