import { fileTypeFromBuffer } from 'file-type';
import { findAccountById } from '../identity/index.ts';
import { auditOperatorChange, type OperatorAct } from '../operator/index.ts';
import type { AppContext } from '../platform/context.ts';
import { sha256Hex } from '../platform/crypto.ts';
import type { Queryable } from '../platform/db/pool.ts';
import { withTransaction } from '../platform/db/pool.ts';
import { notFound } from '../platform/errors.ts';
import { type BrandingChange, findBranding, saveBranding } from './branding-store.ts';
import { brandingErrors } from './errors.ts';

/**
 * How a partner's hosted checkout looks to its buyers: its name, a logo and an accent colour
 * (docs/contract.md, decisions 127–129). The logo is uploaded and served by Rampart itself, so
 * the page loads nothing from elsewhere and its CSP stays `img-src 'self'`; the accent colour
 * must keep white text on it readable.
 */

type BrandingDeps = Pick<AppContext, 'db' | 'clock'>;

export const MAX_LOGO_BYTES = 256 * 1024;
const MAX_NAME = 80;
/** WCAG AA for normal text: the pages put white button text on the accent, and the accent on white. */
export const MIN_ACCENT_CONTRAST = 4.5;
const LOGO_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' };

export interface BrandingView {
  name: string | null;
  accentColor: string | null;
  /** Same-origin path of the logo (changes with its content), or null. */
  logoUrl: string | null;
}

/** What a page renders: the view plus the digest that names the logo. */
export interface Branding extends BrandingView {
  partnerId: string;
}

export const logoPath = (partnerId: string, sha256: string) =>
  `/purchase/logos/${encodeURIComponent(partnerId)}/${sha256.slice(0, 16)}`;

export async function brandingOf(q: Queryable, partnerId: string): Promise<Branding> {
  const row = await findBranding(q, partnerId);
  return {
    partnerId,
    name: row?.display_name ?? null,
    accentColor: row?.accent_color ?? null,
    logoUrl: row?.logo_sha256 ? logoPath(partnerId, row.logo_sha256) : null,
  };
}

const view = ({ name, accentColor, logoUrl }: Branding): BrandingView => ({ name, accentColor, logoUrl });

/** Relative luminance of an sRGB colour written #rrggbb (WCAG 2 definition). */
function luminance(hex: string): number {
  const channel = (offset: number) => {
    const c = Number.parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** The contrast ratio of a colour with white, from 1 to 21. */
export function contrastWithWhite(hex: string): number {
  return 1.05 / (luminance(hex) + 0.05);
}

function accentColor(value: unknown): string | null {
  if (value === null) return null;
  if (typeof value !== 'string' || !/^#[0-9a-fA-F]{6}$/.test(value)) throw brandingErrors.colorFormat();
  const color = value.toLowerCase();
  const ratio = contrastWithWhite(color);
  if (ratio < MIN_ACCENT_CONTRAST) throw brandingErrors.lowContrast(color, ratio, MIN_ACCENT_CONTRAST);
  return color;
}

function displayName(value: unknown): string | null {
  if (value === null) return null;
  const text = typeof value === 'string' ? value.trim() : '';
  if (text === '' || text.length > MAX_NAME || /\p{Cc}/u.test(text)) throw brandingErrors.name(MAX_NAME);
  return text;
}

async function logo(value: unknown): Promise<BrandingChange['logo']> {
  if (value === null) return null;
  if (typeof value !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 !== 0)
    throw brandingErrors.logoEncoding();
  const bytes = Buffer.from(value, 'base64');
  if (bytes.length === 0 || bytes.length > MAX_LOGO_BYTES) throw brandingErrors.logoSize(MAX_LOGO_BYTES);
  const detected = await fileTypeFromBuffer(bytes);
  const mediaType =
    detected && Object.hasOwn(LOGO_TYPES, detected.ext) ? LOGO_TYPES[detected.ext] : undefined;
  if (!mediaType) throw brandingErrors.logoType();
  return { bytes, mediaType, sha256: sha256Hex(bytes) };
}

export interface BrandingInput {
  name?: unknown;
  accentColor?: unknown;
  /** The image file, base64; null removes the logo. */
  logo?: unknown;
}

/** Every member checked before anything is stored: a refusal changes nothing. */
async function brandingChange(input: BrandingInput): Promise<BrandingChange> {
  const change: BrandingChange = {};
  if (input.name !== undefined) change.displayName = displayName(input.name);
  if (input.accentColor !== undefined) change.accentColor = accentColor(input.accentColor);
  if (input.logo !== undefined) change.logo = await logo(input.logo);
  return change;
}

/** POST /v3/checkout/branding: the calling partner's own branding. */
export async function setPartnerBranding(ctx: BrandingDeps, partnerId: string, input: BrandingInput) {
  const change = await brandingChange(input);
  await saveBranding(ctx.db, partnerId, change, ctx.clock.nowMs());
  return view(await brandingOf(ctx.db, partnerId));
}

export async function partnerBranding(ctx: BrandingDeps, partnerId: string) {
  return view(await brandingOf(ctx.db, partnerId));
}

async function masterAccount(q: Queryable, accountId: string) {
  const account = await findAccountById(q, accountId);
  if (account?.kind !== 'master') throw notFound('Master account');
  return account;
}

/** The operator's POST for a master account: the same checks, audited with the change. */
export async function setBrandingAsOperator(
  ctx: BrandingDeps,
  act: OperatorAct,
  accountId: string,
  input: BrandingInput,
) {
  await masterAccount(ctx.db, accountId);
  const change = await brandingChange(input);
  await withTransaction(ctx.db, async (tx) => {
    await saveBranding(tx, accountId, change, ctx.clock.nowMs());
    await auditOperatorChange(tx, act, accountId, {
      name: change.displayName,
      accentColor: change.accentColor,
      logo: change.logo === undefined ? undefined : (change.logo?.sha256 ?? null),
    });
  });
  return view(await brandingOf(ctx.db, accountId));
}

export async function brandingForOperator(ctx: BrandingDeps, accountId: string) {
  await masterAccount(ctx.db, accountId);
  return view(await brandingOf(ctx.db, accountId));
}
