import {
  type Chain,
  chainCarries,
  chainDestinationRefusal,
  chainReachable,
  chainSendsAvailable,
  type Network,
  parseChainSrn,
} from '../chains/index.ts';
import { accountInPartner, type Scope } from '../identity/index.ts';
import { batched } from '../platform/db/grouped-transactions.ts';
import type { Queryable } from '../platform/db/pool.ts';
import { isId } from '../platform/ids.ts';
import { type TransferStanding, transferStandings } from '../users/index.ts';
import { walletOwners } from '../wallets/index.ts';
import type { TransferRulesDeps } from './deps.ts';
import { transferErrors } from './errors.ts';
import type { Party } from './party.ts';
import { assertWalletsStanding, type Drawer, walletIds, walletOwnerUsers } from './wallet-parties.ts';

export type { Party } from './party.ts';
export { type Drawer, drawerOf } from './wallet-parties.ts';

/**
 * `paymentmethod:PA_…` (any case of the type, as clients send `paymentMethod:`), with `:ach` on
 * a source (docs/contract.md decision 55); undefined when the value names no payment method.
 */
function parseBankParty(value: string, field: 'source' | 'dest'): Party | undefined {
  const [type, id = '', suffix, ...rest] = value.split(':');
  if (type?.toLowerCase() !== 'paymentmethod') return undefined;
  const ach = suffix?.toLowerCase() === 'ach';
  const valid = isId(id, 'PA') && rest.length === 0 && (suffix === undefined || (ach && field === 'source'));
  if (!valid) throw transferErrors.bankParty(field);
  return { kind: 'bank', srn: `paymentmethod:${id}${ach ? ':ach' : ''}`, id };
}

export function parseParty(value: string, field: 'source' | 'dest', network: Network): Party {
  const colon = value.indexOf(':');
  const type = colon > 0 ? value.slice(0, colon).toLowerCase() : '';
  const id = colon > 0 ? value.slice(colon + 1) : value;
  if ((type === 'account' || type === '') && isId(id, 'AC'))
    return { kind: 'account', srn: `account:${id}`, id };
  if (type === 'user' && isId(id, 'US')) return { kind: 'user', srn: `user:${id}`, id };
  if (type === 'wallet' && isId(id, 'WA')) return { kind: 'wallet', srn: `wallet:${id}`, id };
  if (type === '' || type === 'account' || type === 'user' || type === 'wallet')
    throw transferErrors.party(field);
  const bank = parseBankParty(value, field);
  if (bank) return bank;
  const { chain, address } = parseChainSrn(value, field, network);
  return { kind: 'chain', srn: `${chain}:${address}`, chain, address };
}

/** Whose balance the party is in the ledger: chain addresses and bank accounts are the outside world. */
export function ledgerOwner(party: Party): string {
  if (party.kind === 'chain') return `external:chain:${party.chain}`;
  return party.kind === 'bank' ? 'external:bank' : party.srn;
}

/** Whether the transfer moves money through the bank rail: a payout, or an ACH pull. */
export function movesThroughBank(p: { source: Party; dest: Party }): boolean {
  return p.source.kind === 'bank' || p.dest.kind === 'bank';
}

/** The default source: the user or account the caller acts as. */
export function actingParty(scope: Scope): Party {
  return scope.userId
    ? { kind: 'user', srn: `user:${scope.userId}`, id: scope.userId }
    : { kind: 'account', srn: `account:${scope.accountId}`, id: scope.accountId };
}

/**
 * Whether the scope may commit `source`'s funds: it acts as that very party (the payer itself, or
 * a parent masquerading as it), or it is the partner's master account acting as itself, which
 * owns every account and user of its tree. A party that merely receives sees the transfer
 * (visibleTo) but may not settle it: a sub-account or user must not move its payer's money.
 */
export function maySettleFor(scope: Scope, source: string): boolean {
  const actsAsMaster = !scope.userId && scope.accountId === scope.partnerId;
  return actsAsMaster || actingParty(scope).srn === source;
}

/** Refusals that need no database: run before any quote or transaction. */
export function checkPartiesStatically(
  ctx: TransferRulesDeps,
  scope: Scope,
  source: Party,
  dest: Party,
  destCurrency: string,
) {
  if (source.kind === 'chain') throw transferErrors.chainSource();
  // Only the party one acts as may be drawn on: a user through masqueradeAs=user:…, an account
  // as itself or through masqueradeAs=<sub-account>. An ACH pull draws on a payment method,
  // whose owner is checked against the acting party when it is read (bank-transfers.ts); a
  // wallet's owner is read with the standing (wallet-parties.ts).
  if (source.kind !== 'bank' && source.kind !== 'wallet' && source.srn !== actingParty(scope).srn)
    throw transferErrors.notYourSource();
  if (dest.srn === source.srn) throw transferErrors.sameParty();
  if (movesThroughBank({ source, dest })) {
    if (source.kind === 'bank' && (dest.kind === 'bank' || dest.kind === 'chain'))
      throw transferErrors.pullDest();
    if (!ctx.bankTransfers.rail) throw transferErrors.bankUnavailable();
  }
  if (dest.kind === 'chain') {
    if (!chainCarries(ctx, dest.chain, destCurrency))
      throw transferErrors.destWrongChain(dest.chain, destCurrency);
    if (!chainSendsAvailable(ctx, dest.chain)) throw transferErrors.chainUnavailable();
    if (!chainReachable(ctx, dest.chain)) throw transferErrors.chainDown(dest.chain);
  }
}

/**
 * The chain backend's own refusal of the destination (a real chain: native coin to a contract),
 * before anything is written: 400, or 503 when the chain's node cannot be asked.
 */
export async function checkChainDestination(
  ctx: TransferRulesDeps,
  chain: Chain,
  address: string,
  currency: string,
) {
  let refusal: string | undefined;
  try {
    refusal = await chainDestinationRefusal(ctx, chain, address, currency);
  } catch {
    throw transferErrors.chainDown(chain);
  }
  if (refusal !== undefined) throw transferErrors.destRefused(refusal);
}

/** The users whose standing a transfer between these parties depends on, wallets' owners included. */
export function userPartyIds(source: Party, dest: Party, wallets: Map<string, string> = new Map()): string[] {
  const users = [source, dest].filter((p) => p.kind === 'user').map((p) => (p as { id: string }).id);
  return [...new Set([...users, ...walletOwnerUsers(wallets)])];
}

/** What was read about a transfer's parties in other modules. */
export interface PartiesRead {
  /** Users' standing (users/transfer-standing.ts), the user parties' and wallet owners'. */
  standings: Map<string, TransferStanding>;
  destAccountInPartner: boolean;
  /** The owners of the live wallet parties of the partner, by wallet id. */
  wallets: Map<string, string>;
}

/**
 * The checks that read other modules' state, given what was read: a user source needs its
 * TRANSFER scope APPROVED and not closed (docs/contract.md, decision 14: 403); a dest account or user must
 * be of the same partner, and a dest user not closed; wallet parties as wallet-parties.ts says.
 */
export function assertPartiesStanding(source: Party, dest: Party, read: PartiesRead, drawer: Drawer) {
  const { standings, destAccountInPartner } = read;
  assertWalletsStanding(source, dest, read, drawer);
  if (source.kind === 'user') {
    const standing = standings.get(source.id);
    // Masquerade resolution already proved the user is the caller's; absent means deleted under us.
    if (!standing) throw transferErrors.notYourSource();
    if (standing.closed) throw transferErrors.userClosed();
    if (standing.transferScope !== 'APPROVED') throw transferErrors.scopeNotApproved();
  }
  if (dest.kind === 'user') {
    const standing = standings.get(dest.id);
    if (!standing) throw transferErrors.unknownDest();
    if (standing.closed) throw transferErrors.destClosed();
  }
  if (dest.kind === 'account' && !destAccountInPartner) throw transferErrors.unknownDest();
}

/**
 * Reads the parties' standing (one query; one more with a dest account, one more first with a
 * wallet party) and checks it for `drawer`, who would draw on the source.
 */
export async function checkPartiesStanding(
  q: Queryable,
  partnerId: string,
  source: Party,
  dest: Party,
  drawer: Drawer,
) {
  const wallets = await walletOwners(q, partnerId, walletIds(source, dest));
  const userIds = userPartyIds(source, dest, wallets);
  const standings = userIds.length > 0 ? await transferStandings(q, partnerId, userIds) : new Map();
  const destAccountInPartner =
    dest.kind === 'account' ? await accountInPartner(q, partnerId, dest.id) : false;
  assertPartiesStanding(source, dest, { standings, destAccountInPartner, wallets }, drawer);
}

export interface TransferParties {
  partnerId: string;
  source: Party;
  dest: Party;
  drawer: Drawer;
}

/** The parties' standing as a step of a transfer's write path: its refusal, or undefined. */
export const partiesStanding = batched('transfers.partiesStanding', (q, transfers: TransferParties[]) =>
  partiesStandingRefusals(q, transfers),
);

/**
 * checkPartiesStanding for many transfers at once: one standing query per partner for all
 * their user parties, plus one per distinct dest account. Answers each transfer's refusal, or
 * undefined where it may go ahead.
 */
async function partiesStandingRefusals(
  q: Queryable,
  transfers: readonly TransferParties[],
): Promise<unknown[]> {
  const wallets = await walletsByPartner(q, transfers);
  const usersByPartner = new Map<string, Set<string>>();
  for (const { partnerId, source, dest } of transfers) {
    const ids = usersByPartner.get(partnerId) ?? new Set<string>();
    for (const id of userPartyIds(source, dest, wallets.get(partnerId))) ids.add(id);
    usersByPartner.set(partnerId, ids);
  }
  const standings = new Map<string, Map<string, TransferStanding>>();
  await Promise.all(
    [...usersByPartner].map(async ([partnerId, ids]) => {
      standings.set(partnerId, ids.size > 0 ? await transferStandings(q, partnerId, [...ids]) : new Map());
    }),
  );
  // One lookup per distinct (partner, dest account), however many transfers go to it.
  const destAccounts = new Map<string, Promise<boolean>>();
  const destAccountIn = (partnerId: string, accountId: string) => {
    const key = `${partnerId}>${accountId}`;
    let found = destAccounts.get(key);
    if (!found) {
      found = accountInPartner(q, partnerId, accountId);
      destAccounts.set(key, found);
    }
    return found;
  };
  return Promise.all(
    transfers.map(async ({ partnerId, source, dest, drawer }) => {
      const destAccountInPartner = dest.kind === 'account' ? await destAccountIn(partnerId, dest.id) : false;
      const read = {
        standings: standings.get(partnerId)!,
        destAccountInPartner,
        wallets: wallets.get(partnerId) ?? new Map<string, string>(),
      };
      try {
        assertPartiesStanding(source, dest, read, drawer);
        return undefined;
      } catch (refusal) {
        return refusal;
      }
    }),
  );
}

/** The owners of the transfers' wallet parties: one query per partner that has any. */
async function walletsByPartner(q: Queryable, transfers: readonly TransferParties[]) {
  const ids = new Map<string, Set<string>>();
  for (const { partnerId, source, dest } of transfers) {
    const found = walletIds(source, dest);
    if (found.length === 0) continue;
    const set = ids.get(partnerId) ?? new Set<string>();
    for (const id of found) set.add(id);
    ids.set(partnerId, set);
  }
  const owners = new Map<string, Map<string, string>>();
  await Promise.all(
    [...ids].map(async ([partnerId, set]) =>
      owners.set(partnerId, await walletOwners(q, partnerId, [...set])),
    ),
  );
  return owners;
}
