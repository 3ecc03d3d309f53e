-- Partner identity: accounts, API keys (also decentralized session tokens), replay guard, access audit.

CREATE TABLE accounts (
  id                  text PRIMARY KEY,
  -- The master account at the root of this account's tree; every partner-owned row carries it.
  partner_id          text NOT NULL REFERENCES accounts (id),
  parent_id           text REFERENCES accounts (id),
  kind                text NOT NULL CHECK (kind IN ('master', 'subaccount', 'individual')),
  name                text,
  status              text NOT NULL CHECK (status IN ('OPEN', 'PENDING', 'APPROVED', 'CLOSED')),
  type                text NOT NULL CHECK (type IN ('INDIVIDUAL', 'BUSINESS')),
  country             text NOT NULL CHECK (country ~ '^[A-Z]{2}$'),
  users_api_enabled   boolean NOT NULL DEFAULT false,
  referrer_account_id text,
  profile_fields      jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- Signing key for this partner's callbacks, AES-GCM sealed under the master key.
  webhook_secret      bytea,
  is_sandbox_demo     boolean NOT NULL DEFAULT false,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  CHECK ((kind = 'subaccount') = (parent_id IS NOT NULL)),
  CHECK (kind = 'subaccount' OR partner_id = id)
);
CREATE INDEX accounts_partner ON accounts (partner_id);
CREATE INDEX accounts_parent ON accounts (parent_id);
-- At most one demo account per sandbox database, whichever process starts first.
CREATE UNIQUE INDEX accounts_one_demo ON accounts (is_sandbox_demo) WHERE is_sandbox_demo;

CREATE TABLE api_keys (
  api_key        text PRIMARY KEY,
  -- NULL while a decentralized session token is not yet tied to an account.
  account_id     text REFERENCES accounts (id),
  partner_id     text REFERENCES accounts (id),
  type           text NOT NULL CHECK (type IN ('FULL', 'READONLY')),
  description    text NOT NULL DEFAULT '',
  ip_whitelist   text[] NOT NULL DEFAULT '{}',
  -- Bearer lookups go by SHA-256 of the secret; signatures need the secret itself, kept sealed.
  secret_hash    text NOT NULL UNIQUE,
  secret_sealed  bytea NOT NULL,
  origin         text NOT NULL CHECK (origin IN ('operator', 'api', 'session')),
  created_by     text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  deleted_at     timestamptz,
  CHECK ((account_id IS NULL) = (partner_id IS NULL)),
  CHECK (account_id IS NOT NULL OR origin = 'session')
);
CREATE INDEX api_keys_account ON api_keys (account_id);

-- Signatures seen inside the timestamp window; the primary key makes "seen twice" atomic
-- across every process on this database.
CREATE TABLE signature_replays (
  signature   text PRIMARY KEY,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX signature_replays_expiry ON signature_replays (expires_at);

-- Every masqueraded call: which key acted as whom, on which route.
CREATE TABLE access_audit (
  id          bigserial PRIMARY KEY,
  at          timestamptz NOT NULL DEFAULT now(),
  api_key     text NOT NULL,
  account_id  text NOT NULL,
  target      text NOT NULL,
  method      text NOT NULL,
  route       text NOT NULL,
  outcome     text NOT NULL CHECK (outcome IN ('allowed', 'denied'))
);
CREATE INDEX access_audit_account ON access_audit (account_id, at DESC);
