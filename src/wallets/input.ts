import { assertNotifyUrlAllowed } from '../callbacks/index.ts';
import { ApiError, fieldRequired } from '../platform/errors.ts';
import type { WalletsDeps } from './deps.ts';
import { walletErrors } from './errors.ts';
import type { WalletType } from './store.ts';

/**
 * The checks of one wallet's fields, the same for POST /v2/wallets, each item of a batch and an
 * update: the field paths name where the wallet sits in the request (`wallets[2].name`).
 */

export const MAX_NAME = 100;
export const MAX_NOTES = 1000;
const TYPES: readonly WalletType[] = ['DEFAULT', 'ENTERPRISE', 'SAVINGS'];
const CONTROL = /\p{Cc}/u;

export interface WalletInput {
  name: string;
  callbackUrl: string | null;
  notes: string | null;
  type: WalletType;
}

const fieldPath = (prefix: string, field: string) => (prefix ? `${prefix}.${field}` : field);

export function walletText(value: unknown, field: string, max: number): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max || CONTROL.test(value)) {
    throw walletErrors.text(field, max);
  }
  return value;
}

/** Absent or null: none; otherwise checked as walletText. */
export function optionalText(value: unknown, field: string, max: number): string | null {
  return value === undefined || value === null ? null : walletText(value, field, max);
}

/** A callback URL follows the rules of every callback target (docs/contract.md, "Subscriptions and callbacks"). */
export async function callbackUrl(ctx: WalletsDeps, value: unknown, field: string): Promise<string | null> {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw walletErrors.text(field, 2048);
  await assertNotifyUrlAllowed(ctx, value, field);
  return value;
}

/**
 * One wallet to create, checked; `prefix` is its place in the request ('' for a lone wallet).
 * Members it does not know are left alone, as Wyre left them.
 */
export async function walletInput(ctx: WalletsDeps, raw: unknown, prefix: string): Promise<WalletInput> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ApiError('ValidationException', 'validation.invalidValue', `${prefix} must be an object.`, {
      problematicField: prefix,
    });
  }
  const body = raw as Record<string, unknown>;
  if (body.name === undefined) throw fieldRequired(fieldPath(prefix, 'name'));
  const name = walletText(body.name, fieldPath(prefix, 'name'), MAX_NAME);
  const type = body.type ?? 'DEFAULT';
  if (!TYPES.includes(type as WalletType)) throw walletErrors.type(fieldPath(prefix, 'type'));
  return {
    name,
    type: type as WalletType,
    notes: optionalText(body.notes, fieldPath(prefix, 'notes'), MAX_NOTES),
    callbackUrl: await callbackUrl(ctx, body.callbackUrl, fieldPath(prefix, 'callbackUrl')),
  };
}
