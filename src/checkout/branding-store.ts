import type { Queryable } from '../platform/db/pool.ts';

/** SQL for checkout branding (migrations/075_checkout_branding.sql). */

export interface BrandingRow {
  display_name: string | null;
  accent_color: string | null;
  logo_media_type: string | null;
  logo_sha256: string | null;
}

export interface BrandingChange {
  displayName?: string | null;
  accentColor?: string | null;
  logo?: { bytes: Buffer; mediaType: string; sha256: string } | null;
}

/** The partner's branding without the logo's bytes (pages only need its digest for the URL). */
export async function findBranding(q: Queryable, partnerId: string): Promise<BrandingRow | undefined> {
  const { rows } = await q.query<BrandingRow>(
    `SELECT display_name, accent_color, logo_media_type, logo_sha256 FROM checkout_branding WHERE partner_id = $1`,
    [partnerId],
  );
  return rows[0];
}

export async function findLogo(
  q: Queryable,
  partnerId: string,
): Promise<{ bytes: Buffer; mediaType: string; sha256: string } | undefined> {
  const { rows } = await q.query<{ logo: Buffer; logo_media_type: string; logo_sha256: string }>(
    `SELECT logo, logo_media_type, logo_sha256 FROM checkout_branding WHERE partner_id = $1 AND logo IS NOT NULL`,
    [partnerId],
  );
  const row = rows[0];
  return row ? { bytes: row.logo, mediaType: row.logo_media_type, sha256: row.logo_sha256 } : undefined;
}

/**
 * Applies the change: a member left out keeps its value, null clears it. One statement, so two
 * concurrent changes of different members both hold.
 */
export async function saveBranding(q: Queryable, partnerId: string, change: BrandingChange, atMs: number) {
  const logo = change.logo;
  await q.query(
    `INSERT INTO checkout_branding AS b
       (partner_id, display_name, accent_color, logo, logo_media_type, logo_sha256, updated_at)
     VALUES ($1, $3, $5, $7, $8, $9, to_timestamp($10::bigint / 1000.0))
     ON CONFLICT (partner_id) DO UPDATE SET
       display_name = CASE WHEN $2 THEN EXCLUDED.display_name ELSE b.display_name END,
       accent_color = CASE WHEN $4 THEN EXCLUDED.accent_color ELSE b.accent_color END,
       logo = CASE WHEN $6 THEN EXCLUDED.logo ELSE b.logo END,
       logo_media_type = CASE WHEN $6 THEN EXCLUDED.logo_media_type ELSE b.logo_media_type END,
       logo_sha256 = CASE WHEN $6 THEN EXCLUDED.logo_sha256 ELSE b.logo_sha256 END,
       updated_at = EXCLUDED.updated_at`,
    [
      partnerId,
      change.displayName !== undefined,
      change.displayName ?? null,
      change.accentColor !== undefined,
      change.accentColor ?? null,
      logo !== undefined,
      logo?.bytes ?? null,
      logo?.mediaType ?? null,
      logo?.sha256 ?? null,
      atMs,
    ],
  );
}
