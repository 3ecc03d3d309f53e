import { brandName, lookupBin } from '../../cards/index.ts';

/** A run of four-digit card number prefixes of one brand, for the page's brand detection. */
export interface BrandRange {
  from: number;
  to: number;
  brand: string;
  name: string;
}

/**
 * The brands the card processor takes, by four-digit prefix, read from the server's BIN table
 * (cards/bins.ts) rather than copied: the page names the brand as the buyer types, and a
 * number the server would refuse for its brand is flagged before it is sent.
 */
function computeBrandRanges(): BrandRange[] {
  const ranges: BrandRange[] = [];
  for (let prefix = 1000; prefix <= 9999; prefix += 1) {
    const info = lookupBin(`${prefix}${'0'.repeat(12)}`);
    if (!info) continue;
    const last = ranges.at(-1);
    if (last && last.brand === info.brand && last.to === prefix - 1) last.to = prefix;
    else ranges.push({ from: prefix, to: prefix, brand: info.brand, name: brandName(info.brand) });
  }
  return ranges;
}

export const BRAND_RANGES: readonly BrandRange[] = computeBrandRanges();
