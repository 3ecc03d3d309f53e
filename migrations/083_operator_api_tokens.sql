-- Personal operator API tokens (`rop_…`): the operator API attributes a call made with one to its
-- operator and allows what the operator's role allows. Only the SHA-256 of the token is kept;
-- the token is shown once.
CREATE TABLE operator_api_tokens (
  id            bigserial PRIMARY KEY,
  operator_id   text NOT NULL REFERENCES operators (id),
  token_hash    text NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  label         text NOT NULL CHECK (length(label) BETWEEN 1 AND 80),
  created_at    timestamptz NOT NULL,
  revoked_at    timestamptz
);
CREATE INDEX operator_api_tokens_by_operator ON operator_api_tokens (operator_id, id);
