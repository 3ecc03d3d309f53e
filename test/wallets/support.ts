import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import type { PartnerCredentials } from '../helpers/partner.ts';
import { signedFetch } from '../helpers/partner.ts';

export const WALLET_ID = /^WA_[2-9A-HJ-NP-Z]{11}$/;

export interface WalletBody {
  id: string;
  srn: string;
  name: string;
  owner: string;
  status: null;
  type: string;
  callbackUrl: string | null;
  notes: string | null;
  pusherChannel: string;
  depositAddresses: Record<string, string>;
  balances: Record<string, number>;
  totalBalances: Record<string, number>;
  availableBalances: Record<string, number>;
  verificationData: unknown;
  createdAt: number;
}

/** A signed call, as the account itself or masquerading as `masqueradeAs` (an SRN or AC_ id). */
export async function walletCall(
  t: TestApp,
  partner: PartnerCredentials,
  method: string,
  path: string,
  options: { body?: unknown; masqueradeAs?: string; headers?: Record<string, string> } = {},
) {
  const query = options.masqueradeAs ? `masqueradeAs=${encodeURIComponent(options.masqueradeAs)}` : '';
  const full = query ? `${path}${path.includes('?') ? '&' : '?'}${query}` : path;
  const raw =
    options.body === undefined
      ? undefined
      : typeof options.body === 'string'
        ? options.body
        : JSON.stringify(options.body);
  const response = await signedFetch(t, partner, {
    method,
    path: full,
    ...(raw !== undefined ? { body: raw } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as Record<string, unknown>, text };
}

export async function createWallet(
  t: TestApp,
  partner: PartnerCredentials,
  body: Record<string, unknown>,
  masqueradeAs?: string,
): Promise<WalletBody> {
  const created = await walletCall(t, partner, 'POST', '/v2/wallets', {
    body,
    ...(masqueradeAs ? { masqueradeAs } : {}),
  });
  expect(created.status, created.text).toBe(200);
  return created.body as unknown as WalletBody;
}
