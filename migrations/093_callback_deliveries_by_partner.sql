-- A partner's own callback deliveries, newest first (the partner dashboard's page, keyset).
-- IF NOT EXISTS: migration 085 makes the same index, so a database migrated in order has it already.
CREATE INDEX IF NOT EXISTS callback_deliveries_partner ON callback_deliveries (partner_id, created_at DESC, id DESC);
