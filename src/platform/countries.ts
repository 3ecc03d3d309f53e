/** ISO 3166-1 alpha-2 check through ICU's region names, which Node ships in full. */
const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

// Codes ICU knows but ISO 3166-1 does not assign to a country.
const NOT_COUNTRIES = new Set(['EU', 'EZ', 'UN', 'QO', 'XA', 'XB', 'ZZ']);

export function isCountryCode(code: string): boolean {
  if (!/^[A-Z]{2}$/.test(code) || NOT_COUNTRIES.has(code)) return false;
  return regionNames.of(code) !== code;
}

export function countryName(code: string): string | undefined {
  return isCountryCode(code) ? regionNames.of(code) : undefined;
}
