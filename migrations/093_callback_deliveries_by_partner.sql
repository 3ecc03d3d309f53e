-- A partner's own callback deliveries, newest first (the partner dashboard's page, keyset).
CREATE INDEX callback_deliveries_partner ON callback_deliveries (partner_id, created_at DESC, id DESC);
