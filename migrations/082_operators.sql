-- Named operators of the console and the operator API (src/operator/operators-store.ts).
-- The password is an scrypt hash with its own salt and parameters in one string
-- (`scrypt$N$r$p$salt$hash`, base64url), so the parameters can grow without a migration. The
-- TOTP seed is sealed under the master key; `totp_enabled` turns true once the operator proved
-- the seed with a code; `totp_last_step` is the last accepted 30-second step: a code of that
-- step or an earlier one is never accepted again.
CREATE TABLE operators (
  id                    text PRIMARY KEY CHECK (id ~ '^OP_[2-9A-HJ-NP-Z]{11}$'),
  email                 text NOT NULL CHECK (length(email) BETWEEN 3 AND 254 AND email = lower(email)),
  name                  text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  role                  text NOT NULL CHECK (role IN ('support', 'reviewer', 'admin')),
  password_hash         text NOT NULL CHECK (password_hash LIKE 'scrypt$%'),
  must_change_password  boolean NOT NULL DEFAULT false,
  totp_sealed           bytea,
  totp_enabled          boolean NOT NULL DEFAULT false,
  totp_last_step        bigint NOT NULL DEFAULT 0,
  disabled              boolean NOT NULL DEFAULT false,
  created_at            timestamptz NOT NULL,
  updated_at            timestamptz NOT NULL,
  CHECK (NOT totp_enabled OR totp_sealed IS NOT NULL)
);
CREATE UNIQUE INDEX operators_email ON operators (email);

-- Failed console sign-ins per e-mail and per client address (`email:…`, `ip:…`): past a
-- threshold the key is locked until `locked_until`, for longer after each further failure.
-- A quiet window resets the count.
CREATE TABLE operator_sign_in_failures (
  key           text PRIMARY KEY CHECK (length(key) <= 300),
  failures      integer NOT NULL CHECK (failures > 0),
  locked_until  timestamptz,
  last_at       timestamptz NOT NULL
);
