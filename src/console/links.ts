/** Where the console shows an owner SRN (`user:US_…`, `account:AC_…`, `wallet:WA_…`). */
export function ownerHref(owner: string, partnerId: string): string {
  if (owner.startsWith('user:')) return `/console/users/${owner.slice('user:'.length)}`;
  if (owner.startsWith('account:')) return `/console/accounts/${owner.slice('account:'.length)}`;
  return `/console/accounts/${partnerId}`;
}
