-- Every sign-in attempt at the partner dashboard, allowed or refused: the partner's (and the
-- operator's) record of who tried which key from where, and what the sign-in back-off counts.
-- No secret is ever written here; `api_key` is what was typed (bounded), known or not.
CREATE TABLE dashboard_sign_ins (
  id          bigserial PRIMARY KEY,
  at          timestamptz NOT NULL DEFAULT now(),
  api_key     text NOT NULL,
  account_id  text REFERENCES accounts (id),
  address     text NOT NULL,
  outcome     text NOT NULL CHECK (outcome IN ('allowed', 'refused', 'throttled'))
);
-- The back-off counts recent refusals by address and by key.
CREATE INDEX dashboard_sign_ins_address ON dashboard_sign_ins (address, at DESC) WHERE outcome = 'refused';
CREATE INDEX dashboard_sign_ins_key ON dashboard_sign_ins (api_key, at DESC) WHERE outcome = 'refused';
