-- Browser sessions of the operator console (kind 'console', subject OP_…) and of the partner
-- dashboard (kind 'dashboard', subject AC_…), src/web/sessions/. The cookie carries a random
-- token; only its SHA-256 is stored, so a copy of this table opens no session. The CSRF
-- synchronizer token is rendered into every form, so it is kept sealed under the master key
-- (never in clear). A console sign-in is a session too, in a stage before 'active' (password
-- given, second factor or TOTP enrolment to come): only 'active' sessions open pages.
CREATE TABLE web_sessions (
  id            bigserial PRIMARY KEY,
  token_hash    text NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  kind          text NOT NULL CHECK (kind IN ('console', 'dashboard')),
  stage         text NOT NULL DEFAULT 'active' CHECK (stage IN ('active', 'second-factor', 'enrol')),
  subject       text NOT NULL CHECK (length(subject) BETWEEN 1 AND 64),
  label         text NOT NULL CHECK (length(label) BETWEEN 1 AND 320),
  role          text CHECK (role IN ('support', 'reviewer', 'admin')),
  api_key       text CHECK (length(api_key) <= 64),
  csrf_sealed   bytea NOT NULL,
  created_at    timestamptz NOT NULL,
  last_seen_at  timestamptz NOT NULL,
  ended_at      timestamptz,
  CHECK ((kind = 'console') = (role IS NOT NULL)),
  CHECK (kind = 'dashboard' OR api_key IS NULL),
  CHECK (kind = 'console' OR stage = 'active')
);
-- Ending every open session of one subject (an operator disabled, a key revoked).
CREATE INDEX web_sessions_open_by_subject ON web_sessions (kind, subject) WHERE ended_at IS NULL;
