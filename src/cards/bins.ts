/**
 * What the first six digits (the BIN) say about a card. Rampart sells only to Visa and Mastercard
 * debit cards (docs/contract.md, Card orders), so credit and prepaid cards must be told apart before authorising.
 * This is the sandbox's table: the documented test cards' BINs (docs/sandbox-cards.md). A
 * production processor answers the same question from its BIN data.
 */
export type CardBrand = 'VISA' | 'MASTERCARD';
export type CardType = 'DEBIT' | 'CREDIT' | 'PREPAID';

export interface BinInfo {
  brand: CardBrand;
  type: CardType;
}

const SANDBOX_BINS: Record<string, BinInfo> = {
  '411111': { brand: 'VISA', type: 'DEBIT' },
  '400000': { brand: 'VISA', type: 'DEBIT' },
  '400005': { brand: 'VISA', type: 'DEBIT' },
  '520082': { brand: 'MASTERCARD', type: 'DEBIT' },
  '424242': { brand: 'VISA', type: 'CREDIT' },
  '555555': { brand: 'MASTERCARD', type: 'CREDIT' },
  '460000': { brand: 'VISA', type: 'PREPAID' },
  '510000': { brand: 'MASTERCARD', type: 'PREPAID' },
};

/** Visa: 4…; Mastercard: 51-55 and 2221-2720. Anything else is a brand we do not take. */
function brandOf(pan: string): CardBrand | undefined {
  if (pan.startsWith('4')) return 'VISA';
  const two = Number(pan.slice(0, 2));
  const four = Number(pan.slice(0, 4));
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return 'MASTERCARD';
  return undefined;
}

/**
 * The BIN's entry, else (sandbox) a debit card of the number's brand, so any Luhn-valid Visa or
 * Mastercard number works in demos; undefined for other brands.
 */
export function lookupBin(pan: string): BinInfo | undefined {
  const known = Object.hasOwn(SANDBOX_BINS, pan.slice(0, 6)) ? SANDBOX_BINS[pan.slice(0, 6)] : undefined;
  if (known) return known;
  const brand = brandOf(pan);
  return brand ? { brand, type: 'DEBIT' } : undefined;
}

export function brandName(brand: CardBrand): string {
  return brand === 'VISA' ? 'Visa' : 'Mastercard';
}
