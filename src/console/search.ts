import { consoleDelivery } from '../callbacks/index.ts';
import { consoleAccount, consoleAccountsByEmail, consoleKeyOwner } from '../identity/index.ts';
import { findReservationById } from '../orders/index.ts';
import type { Queryable } from '../platform/db/pool.ts';
import { ID_ALPHABET, isId } from '../platform/ids.ts';
import { consoleTransfer, consoleTransfersByTxHash } from '../transfers/index.ts';
import { consolePaymentMethodOwner, consoleUser, consoleUsersByEmail } from '../users/index.ts';
import { consoleOrderByReservation, consoleOrdersByEmail, findOrder } from '../wallet-orders/index.ts';
import { consoleWallet } from '../wallets/index.ts';
import { ownerHref } from './links.ts';

/**
 * The console's search (docs/contract.md, decision 145): what the text looks like decides the one
 * or few exact lookups made, each an index probe, so a search never scans.
 */

export type ResultKind =
  | 'account'
  | 'user'
  | 'order'
  | 'transfer'
  | 'wallet'
  | 'payment method'
  | 'reservation'
  | 'API key'
  | 'callback';

export interface SearchResult {
  kind: ResultKind;
  id: string;
  summary: string;
  href: string;
}

/** Longer text is no id, address or hash: it is not looked up. */
export const MAX_QUERY_LENGTH = 254;
/** Results of one kind for an e-mail (the newest). */
const EMAIL_MATCHES = 20;

const RESERVATION = new RegExp(`^[${ID_ALPHABET}]{20}$`);
const TX_HASH = /^(0x)?[0-9a-fA-F]{64}$/;
const API_KEY = new RegExp(`^AK(-[${ID_ALPHABET}]{8}){4}$`);
const EMAIL = /^[^\s@]+@[^\s@]+$/;

export async function searchConsole(q: Queryable, text: string): Promise<SearchResult[]> {
  const query = text.trim();
  if (query.length === 0 || query.length > MAX_QUERY_LENGTH) return [];
  const byId = await searchById(q, query.toUpperCase());
  if (byId) return byId;
  if (EMAIL.test(query)) return searchByEmail(q, query);
  if (TX_HASH.test(query)) return searchByHash(q, query);
  return [];
}

async function searchById(q: Queryable, id: string): Promise<SearchResult[] | undefined> {
  if (isId(id, 'AC')) return found(await consoleAccount(q, id), accountResult);
  if (isId(id, 'US')) return found(await consoleUser(q, id), userResult);
  if (isId(id, 'WO')) return found(await findOrder(q, id), orderResult);
  if (isId(id, 'TF')) return found(await consoleTransfer(q, id), transferResult);
  if (isId(id, 'WA')) {
    return found(await consoleWallet(q, id), (row) =>
      ownedResult('wallet', id, `${row.name} of ${row.owner}`, row),
    );
  }
  if (isId(id, 'PA')) {
    return found(await consolePaymentMethodOwner(q, id), (row) =>
      ownedResult('payment method', id, `${row.status} · of ${row.owner}`, row),
    );
  }
  if (isId(id, 'CB')) {
    return found(await consoleDelivery(q, id), (row) => ({
      kind: 'callback',
      id,
      summary: `${row.status} · ${row.trigger}`,
      href: `/console/callbacks/${id}`,
    }));
  }
  if (API_KEY.test(id)) {
    const row = await consoleKeyOwner(q, id);
    if (!row?.account_id) return [];
    const state = row.deleted_at ? 'revoked' : row.type;
    return [
      {
        kind: 'API key',
        id,
        summary: `${state} · of ${row.account_id}`,
        href: `/console/accounts/${row.account_id}`,
      },
    ];
  }
  if (RESERVATION.test(id)) return searchReservation(q, id);
  return undefined;
}

/** An id names one record or none: its result, or no result. */
function found<Row>(
  row: Row | undefined | null,
  result: (row: NonNullable<Row>) => SearchResult,
): SearchResult[] {
  return row ? [result(row)] : [];
}

async function searchReservation(q: Queryable, id: string): Promise<SearchResult[]> {
  const [reservation, order] = await Promise.all([
    findReservationById(q, id),
    consoleOrderByReservation(q, id),
  ]);
  if (!reservation) return [];
  const used = order ? `used by ${order.id}` : reservation.used ? 'used' : 'not used';
  const results: SearchResult[] = [
    {
      kind: 'reservation',
      id,
      summary: `${used} · expires ${reservation.expires_at.toISOString()}`,
      href: order ? `/console/orders/${order.id}` : `/console/accounts/${reservation.account_id}`,
    },
  ];
  if (order) results.push(orderResult(order));
  return results;
}

async function searchByEmail(q: Queryable, email: string): Promise<SearchResult[]> {
  const [users, accounts, orders] = await Promise.all([
    consoleUsersByEmail(q, email, EMAIL_MATCHES),
    consoleAccountsByEmail(q, email, EMAIL_MATCHES),
    consoleOrdersByEmail(q, email, EMAIL_MATCHES),
  ]);
  return [...accounts.map(accountResult), ...users.map(userResult), ...orders.map(orderResult)];
}

async function searchByHash(q: Queryable, hash: string): Promise<SearchResult[]> {
  const variants = hash.startsWith('0x') ? [hash, hash.toLowerCase()] : [hash, `0x${hash.toLowerCase()}`];
  const found = await Promise.all(
    [...new Set(variants)].map((h) => consoleTransfersByTxHash(q, h, EMAIL_MATCHES)),
  );
  const seen = new Set<string>();
  return found
    .flat()
    .filter((row) => !seen.has(row.id) && seen.add(row.id))
    .map(transferResult);
}

function accountResult(row: { id: string; name: string | null; kind: string; status: string }): SearchResult {
  return {
    kind: 'account',
    id: row.id,
    summary: `${row.name ?? row.kind} · ${row.status}`,
    href: `/console/accounts/${row.id}`,
  };
}

function userResult(row: { id: string; owner_account_id: string }): SearchResult {
  return {
    kind: 'user',
    id: row.id,
    summary: `of ${row.owner_account_id}`,
    href: `/console/users/${row.id}`,
  };
}

/** A wallet or payment method links to its owner's page. */
function ownedResult(
  kind: ResultKind,
  id: string,
  summary: string,
  row: { owner: string; partner_id: string },
): SearchResult {
  return { kind, id, summary, href: ownerHref(row.owner, row.partner_id) };
}

interface MovementRow {
  id: string;
  status: string;
  source_amount: string;
  source_currency: string;
  dest_currency: string;
}

function orderResult(row: MovementRow): SearchResult {
  return movementResult('order', row, `/console/orders/${row.id}`);
}

function transferResult(row: MovementRow): SearchResult {
  return movementResult('transfer', row, `/console/transfers/${row.id}`);
}

/** Orders and transfers read alike: status, what was sent, what it became. */
function movementResult(kind: ResultKind, row: MovementRow, href: string): SearchResult {
  return {
    kind,
    id: row.id,
    summary: `${row.status} · ${row.source_amount} ${row.source_currency} → ${row.dest_currency}`,
    href,
  };
}
