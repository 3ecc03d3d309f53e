-- A stored answer that carries a secret (a new API key's secretKey, a partner's webhookSecret) is
-- kept for Idempotency-Key replays sealed under RAMPART_MASTER_KEY (AES-256-GCM, bound to its
-- scope and key), in response_sealed; every other answer stays in response_body.
ALTER TABLE idempotency_keys
  ALTER COLUMN response_body DROP NOT NULL,
  ADD COLUMN response_sealed bytea,
  ADD CONSTRAINT idempotency_keys_one_body CHECK ((response_body IS NULL) <> (response_sealed IS NULL));

-- Answers stored in clear: SQL cannot seal them (the key is not in the database), so
-- they go. They are found by their route (the scope ends with the method and route template)
-- and, whatever route stored them, by a secret's field name in the JSON. A retry of such a call
-- inside its day runs afresh: it makes a new key (or account) and shows that one's secret.
DELETE FROM idempotency_keys
WHERE scope LIKE '% POST /v2/apiKeys'
   OR scope LIKE '% POST /operator/v1/accounts'
   OR response_body LIKE '%"secretKey"%'
   OR response_body LIKE '%"webhookSecret"%';
