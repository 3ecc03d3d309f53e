import type { Amount, EpochMs } from './common.js';

export interface SessionKeyRequest {
  /** 25–128 printable characters from a CSPRNG; createDecentralizedSession() makes one. */
  secretKey: string;
}

export interface SessionKey {
  apiKey: string;
  /** `account:AC_…` once an account was created with this token, else null. */
  authenticatedAs: string | null;
}

export interface CreateApiKeyRequest {
  desc?: string;
  type?: 'FULL' | 'READONLY';
  /** IPv4/IPv6 addresses or CIDR ranges; empty = any address. */
  ipWhitelist?: string[];
}

export interface ApiKey {
  apiKey: string;
  /** Shown once. */
  secretKey: string;
  owner: string;
  type: string;
  desc: string;
  ipWhitelist: string[];
}

export interface ProfileFieldInput {
  fieldId: string;
  value: string | Record<string, string>;
}

export interface CreateAccountRequest {
  type?: 'INDIVIDUAL' | 'BUSINESS';
  /** ISO 3166-1 alpha-2. */
  country: string;
  profileFields?: ProfileFieldInput[];
  referrerAccountId?: string;
  /** true: a custodial sub-account owned by the caller. */
  subaccount?: boolean;
  disableEmail?: boolean;
}

export interface UpdateAccountRequest {
  profileFields: ProfileFieldInput[];
}

export interface ProfileField {
  fieldId: string;
  fieldType: string;
  value: unknown;
  note: string | null;
  status: 'OPEN' | 'PENDING' | 'APPROVED';
}

export interface Account {
  id: string;
  status: 'OPEN' | 'PENDING' | 'APPROVED' | 'CLOSED';
  type: string;
  country: string;
  createdAt: EpochMs;
  /** Currency → deposit address. */
  depositAddresses: Record<string, string>;
  /** Currency → amount, pending included. */
  totalBalances: Record<string, Amount>;
  /** Currency → amount available now (total minus holds). */
  availableBalances: Record<string, Amount>;
  profileFields: ProfileField[];
  subaccount: boolean;
}

/** POST /v3/accounts/{accountId}/{fieldId}'s query. */
export interface UploadAccountDocumentQuery {
  /** For individualGovernmentId: GOVT_ID, DRIVING_LICENSE, PASSPORT_CARD or PASSPORT. */
  documentType?: string;
  documentSubType?: 'FRONT' | 'BACK';
}

export interface UploadAccountDocumentRequest extends UploadAccountDocumentQuery {
  /** `image/png`, `image/jpeg` or `application/pdf`; must match the bytes. */
  contentType: string;
  /** The raw file, at most 8,126,464 bytes; signed and sent byte for byte. */
  data: Uint8Array;
}
