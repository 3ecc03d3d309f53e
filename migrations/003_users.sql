-- Users API (docs/contract.md, Users and KYC): end users of a partner, their KYC fields, scopes and the
-- history of every scope transition, identity documents, bank payment methods, deposit addresses.

CREATE TABLE users (
  id                 text PRIMARY KEY,
  partner_id         text NOT NULL REFERENCES accounts (id),
  -- The master account that created the user: the only one that may masquerade as it.
  owner_account_id   text NOT NULL REFERENCES accounts (id),
  type               text NOT NULL DEFAULT 'INDIVIDUAL' CHECK (type IN ('INDIVIDUAL')),
  -- fieldId → {value, status: OPEN|SUBMITTED, error, submittedAt}
  fields             jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- Hosted KYC onboarding: OPEN → SUBMITTED (production, awaiting review) → COMPLETE.
  onboarding_status  text NOT NULL DEFAULT 'OPEN' CHECK (onboarding_status IN ('OPEN', 'SUBMITTED', 'COMPLETE')),
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL
);
CREATE INDEX users_partner ON users (partner_id, created_at);

CREATE TABLE user_scopes (
  user_id       text NOT NULL REFERENCES users (id),
  partner_id    text NOT NULL REFERENCES accounts (id),
  scope         text NOT NULL CHECK (scope IN ('TRANSFER', 'ACH', 'DEBIT_CARD_L2')),
  status        text NOT NULL CHECK (status IN ('OPEN', 'PENDING', 'APPROVED', 'CLOSED')),
  submitted_at  timestamptz,
  updated_at    timestamptz NOT NULL,
  PRIMARY KEY (user_id, scope)
);
CREATE INDEX user_scopes_review ON user_scopes (partner_id, status);
CREATE INDEX user_scopes_status ON user_scopes (status, submitted_at);

-- Every scope transition with its time and cause, written in the transaction of the change.
CREATE TABLE user_scope_events (
  id           bigserial PRIMARY KEY,
  user_id      text NOT NULL REFERENCES users (id),
  partner_id   text NOT NULL REFERENCES accounts (id),
  scope        text NOT NULL,
  from_status  text,
  to_status    text NOT NULL,
  cause        text NOT NULL,
  detail       jsonb NOT NULL DEFAULT '{}'::jsonb,
  at           timestamptz NOT NULL
);
CREATE INDEX user_scope_events_user ON user_scope_events (user_id, id);

-- Uploaded identity documents; kept apart from users so user reads never touch the bytes.
CREATE TABLE user_documents (
  id          text PRIMARY KEY,
  user_id     text NOT NULL REFERENCES users (id),
  partner_id  text NOT NULL REFERENCES accounts (id),
  field_id    text NOT NULL CHECK (field_id IN ('governmentIdFront', 'governmentIdBack')),
  doc_type    text NOT NULL,
  media_type  text NOT NULL,
  size_bytes  integer NOT NULL CHECK (size_bytes > 0 AND size_bytes <= 8126464),
  sha256      text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  content     bytea NOT NULL,
  created_at  timestamptz NOT NULL
);
CREATE INDEX user_documents_user ON user_documents (user_id, field_id);

CREATE TABLE payment_methods (
  id                     text PRIMARY KEY,
  partner_id             text NOT NULL REFERENCES accounts (id),
  user_id                text NOT NULL REFERENCES users (id),
  link_type              text NOT NULL CHECK (link_type IN ('LOCAL_TRANSFER')),
  status                 text NOT NULL CHECK (status IN ('PENDING', 'ACTIVE', 'REJECTED', 'DISABLED')),
  status_message         text,
  country                text NOT NULL,
  currency               text NOT NULL,
  account_type           text NOT NULL CHECK (account_type IN ('CHECKING', 'SAVINGS')),
  beneficiary_type       text NOT NULL CHECK (beneficiary_type IN ('INDIVIDUAL', 'CORPORATE')),
  first_name_on_account  text NOT NULL,
  last_name_on_account   text NOT NULL,
  routing_number         text NOT NULL,
  -- AES-256-GCM under the master key; only the last four digits are ever shown.
  account_number_sealed  bytea NOT NULL,
  last4                  text NOT NULL CHECK (last4 ~ '^[0-9]{4}$'),
  created_at             timestamptz NOT NULL,
  updated_at             timestamptz NOT NULL
);
CREATE INDEX payment_methods_user ON payment_methods (partner_id, user_id, created_at);

-- A deposit to one of these addresses is credited to its owner; the primary key keeps an
-- address from ever belonging to two owners.
CREATE TABLE deposit_addresses (
  address     text PRIMARY KEY,
  chain       text NOT NULL CHECK (chain IN ('bitcoin', 'ethereum', 'matic', 'avalanche')),
  currency    text NOT NULL,
  partner_id  text NOT NULL REFERENCES accounts (id),
  owner       text NOT NULL,
  created_at  timestamptz NOT NULL,
  UNIQUE (owner, currency)
);
