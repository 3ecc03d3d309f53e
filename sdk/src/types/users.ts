import type { Address, Amount, EpochMs } from './common.js';

export type UserScope = 'TRANSFER' | 'ACH' | 'DEBIT_CARD_L2';

/** Spec §2.5 field ids; documents (governmentIdFront/Back) are uploaded with uploadDocument. */
export interface UserFieldsInput {
  firstName?: string;
  lastName?: string;
  /** E.164, leading `+`. */
  cellphone?: string;
  email?: string;
  residenceAddress?: Address;
  /** YYYY-MM-DD. */
  dateOfBirth?: string;
}

export interface CreateUserRequest {
  fields?: UserFieldsInput;
  scopes?: UserScope[];
  /** BTC, ETH, MATIC, AVAX (AVAXC) or ALL: deposit addresses to generate. */
  blockchains?: string[];
  immediate?: boolean;
  partnerId?: string;
}

export interface UpdateUserRequest {
  fields?: UserFieldsInput;
  /** Adds scopes to the user, as Wyre allowed. */
  scopes?: UserScope[];
  blockchains?: string[];
  immediate?: boolean;
}

export interface GetUserQuery {
  /** Narrows `fields` to what these scopes require. */
  scopes?: UserScope | UserScope[];
}

export interface UserField {
  value: unknown;
  status: 'OPEN' | 'SUBMITTED';
  error: string | null;
}

export interface UserScopeState {
  status: 'OPEN' | 'PENDING' | 'APPROVED' | 'CLOSED';
  openFields: string[];
  onboardingRequired: boolean;
  onboardingStatus: 'OPEN' | 'SUBMITTED' | 'COMPLETE';
  paymentMethodRequired: boolean;
}

export interface User {
  id: string;
  status: 'OPEN' | 'PENDING' | 'APPROVED' | 'CLOSED';
  partnerId: string;
  type: string;
  createdAt: EpochMs;
  depositAddresses: Record<string, string>;
  totalBalances: Record<string, Amount>;
  availableBalances: Record<string, Amount>;
  fields: Record<string, UserField>;
  scopes: Partial<Record<UserScope, UserScopeState>>;
}

export type DocumentType = 'GOVT_ID' | 'DRIVING_LICENSE' | 'PASSPORT_CARD' | 'PASSPORT';

export interface UploadDocumentQuery {
  docType: DocumentType;
}

export interface UploadDocumentRequest extends UploadDocumentQuery {
  /** `application/pdf`, `image/jpeg`, `image/png`, DOC or DOCX; must match the bytes. */
  contentType: string;
  /** The raw file, at most 8,126,464 bytes; signed and sent byte for byte. */
  data: Uint8Array;
}

export interface OnboardingLink {
  userId: string;
  verificationLinkUrl: string;
  status: 'OPEN' | 'SUBMITTED' | 'COMPLETE';
  expiresAt: EpochMs;
}

export interface CreatePaymentMethodRequest {
  paymentMethodType: 'LOCAL_TRANSFER';
  country: string;
  currency?: string;
  accountNumber: string;
  routingNumber: string;
  accountType: 'CHECKING' | 'SAVINGS';
  beneficiaryType?: 'INDIVIDUAL' | 'CORPORATE';
  firstNameOnAccount: string;
  lastNameOnAccount: string;
  chargeablePM?: boolean | string;
}

export interface PaymentMethod {
  id: string;
  owner: string;
  createdAt: EpochMs;
  name: string;
  status: 'PENDING' | 'ACTIVE' | 'REJECTED' | 'DISABLED';
  linkType: string;
  last4Digits: string;
  srn: string;
}
