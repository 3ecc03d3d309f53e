-- How a partner's hosted checkout looks to its buyers (src/checkout/branding.ts): the name shown,
-- the accent colour of buttons and links, and a logo Rampart serves itself (the page loads nothing
-- from another origin). Set by the partner or the operator; one row per master account. The logo
-- is stored as checked bytes (PNG, JPEG or WebP by their magic bytes, at most 256 KiB), never
-- fetched from a URL.
CREATE TABLE checkout_branding (
  partner_id       text PRIMARY KEY REFERENCES accounts (id),
  display_name     text CHECK (display_name IS NULL OR length(display_name) BETWEEN 1 AND 80),
  accent_color     text CHECK (accent_color IS NULL OR accent_color ~ '^#[0-9a-f]{6}$'),
  logo             bytea CHECK (logo IS NULL OR length(logo) BETWEEN 1 AND 262144),
  logo_media_type  text CHECK (logo_media_type IN ('image/png', 'image/jpeg', 'image/webp')),
  logo_sha256      text,
  updated_at       timestamptz NOT NULL,
  CHECK ((logo IS NULL) = (logo_media_type IS NULL) AND (logo IS NULL) = (logo_sha256 IS NULL))
);
