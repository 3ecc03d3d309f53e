-- Platform tables: operator audit, idempotency keys, runtime settings, background jobs.

CREATE TABLE operator_audit (
  id          bigserial PRIMARY KEY,
  at          timestamptz NOT NULL DEFAULT now(),
  actor       text NOT NULL,          -- 'operator', 'anonymous' (failed auth) or a key id
  action      text NOT NULL,          -- 'POST /operator/v1/sandbox/clock'
  target      text,                   -- SRN or resource the call acted on
  outcome     text NOT NULL,          -- 'ok', 'denied', 'rejected'
  status      integer NOT NULL,
  remote_ip   text,
  detail      jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX operator_audit_at ON operator_audit (at DESC);

-- One row per (scope, key): the stored answer of a creating POST, written in the same
-- transaction as the effect. scope = caller + method + route, so keys never collide across partners.
CREATE TABLE idempotency_keys (
  scope            text NOT NULL,
  key              text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
  request_hash     text NOT NULL,
  response_status  integer NOT NULL,
  response_body    text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  expires_at       timestamptz NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

-- Small process-wide settings shared by every node (e.g. the sandbox clock offset).
CREATE TABLE runtime_settings (
  name        text PRIMARY KEY,
  value       jsonb NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Durable background work, claimed with FOR UPDATE SKIP LOCKED; added inside the
-- transaction of the change that caused it, so a crash never loses or invents a job.
CREATE TABLE jobs (
  id            bigserial PRIMARY KEY,
  kind          text NOT NULL,
  payload       jsonb NOT NULL DEFAULT '{}'::jsonb,
  run_at        timestamptz NOT NULL DEFAULT now(),
  state         text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'running', 'done', 'failed')),
  attempts      integer NOT NULL DEFAULT 0,
  max_attempts  integer NOT NULL DEFAULT 1 CHECK (max_attempts >= 1),
  locked_until  timestamptz,
  last_error    text,
  singleton_key text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  finished_at   timestamptz
);
CREATE INDEX jobs_due ON jobs (run_at) WHERE state IN ('pending', 'running');
-- At most one waiting job per singleton key (periodic work scheduled by several nodes; a running
-- job may queue its own successor).
CREATE UNIQUE INDEX jobs_singleton ON jobs (singleton_key) WHERE singleton_key IS NOT NULL AND state = 'pending';
