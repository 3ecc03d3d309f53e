-- When each API key was last used, for its owner's dashboard. Written off the request path, at
-- most once a minute per key (identity/key-usage.ts), so a busy key costs one row update a minute.
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
