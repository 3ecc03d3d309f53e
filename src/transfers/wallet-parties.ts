import type { Scope } from '../identity/index.ts';
import type { TransferStanding } from '../users/index.ts';
import { transferErrors } from './errors.ts';
import type { Party } from './party.ts';

/**
 * `wallet:WA_…` as a transfer party (docs/contract.md, decision 34). A wallet is drawn on by its
 * owner, or by the partner's master account acting as itself, which owns every account, user and
 * wallet of its tree; a user's wallet also carries that user's standing: a closed user's wallet
 * neither pays nor receives, and paying from it needs the user's TRANSFER scope APPROVED, as
 * paying from the user itself does.
 */

/** Who would draw on the source: the party the caller acts as, and whether that is the master. */
export interface Drawer {
  acting: string;
  master: boolean;
}

export function drawerOf(scope: Scope): Drawer {
  return {
    acting: scope.userId ? `user:${scope.userId}` : `account:${scope.accountId}`,
    master: !scope.userId && scope.accountId === scope.partnerId,
  };
}

export function walletIds(source: Party, dest: Party): string[] {
  return [source, dest].filter((p) => p.kind === 'wallet').map((p) => (p as { id: string }).id);
}

/** The users owning these wallets (owner SRN by wallet id), whose standing the wallets carry. */
export function walletOwnerUsers(owners: Map<string, string>): string[] {
  return [...owners.values()].filter((owner) => owner.startsWith('user:')).map((owner) => owner.slice(5));
}

interface WalletsRead {
  standings: Map<string, TransferStanding>;
  wallets: Map<string, string>;
}

/**
 * A wallet source must be a live wallet of the partner that the drawer may draw on (else 403,
 * the same whether it exists or not); a wallet dest a live wallet of the partner (else 400
 * `validation.unknownDest`). Then the owning user's standing, if a user owns it.
 */
export function assertWalletsStanding(source: Party, dest: Party, read: WalletsRead, drawer: Drawer) {
  if (source.kind === 'wallet') {
    const owner = read.wallets.get(source.id);
    if (!owner || !(drawer.master || drawer.acting === owner)) throw transferErrors.notYourSource();
    const standing = ownerStanding(owner, read.standings);
    if (standing?.closed) throw transferErrors.userClosed();
    if (standing && standing.transferScope !== 'APPROVED') throw transferErrors.scopeNotApproved();
  }
  if (dest.kind === 'wallet') {
    const owner = read.wallets.get(dest.id);
    if (!owner) throw transferErrors.unknownDest();
    if (ownerStanding(owner, read.standings)?.closed) throw transferErrors.destClosed();
  }
}

/** The standing of the user owning a wallet; undefined for an account's wallet. */
function ownerStanding(owner: string, standings: Map<string, TransferStanding>) {
  if (!owner.startsWith('user:')) return undefined;
  // The wallet was made masquerading as this user of the partner: absent means it is gone.
  return standings.get(owner.slice(5)) ?? { transferScope: null, closed: true };
}
