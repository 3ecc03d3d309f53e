import type { CountryCode } from 'libphonenumber-js/max';
import { getCountryCallingCode } from 'libphonenumber-js/max';
import { BILLING_COUNTRIES } from '../orders/index.ts';
import { countryName } from '../platform/countries.ts';

/** What a form needs to call the region line (`stateLabel`, docs/contract.md, Reservations and quotes). */
const STATE_LABELS: Record<string, string> = {
  US: 'State',
  AU: 'State',
  MX: 'State',
  CA: 'Province',
  IE: 'County',
};

/** GET /v3/widget/supportedCountries: the billing countries of docs/contract.md (Card limits), by name. Computed once. */
export const SUPPORTED_COUNTRIES = [...BILLING_COUNTRIES]
  .map((code) => ({
    name: countryName(code) ?? code,
    code,
    phonePrefix: `+${getCountryCallingCode(code as CountryCode)}`,
    stateLabel: STATE_LABELS[code] ?? 'Region',
  }))
  .sort((a, b) => a.name.localeCompare(b.name, 'en'));
