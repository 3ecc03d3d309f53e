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

/**
 * POST /v2/paymentMethods: a Plaid token (`publicToken` "<token>|<accountId>", `plaidPublicToken`,
 * `plaidProcessorToken`), a US account (`accountNumber`, `routingNumber`, `accountType`, names), or a
 * wire beneficiary (`paymentMethodType: 'INTERNATIONAL_TRANSFER'`, `paymentType: 'LOCAL_BANK_WIRE'`).
 */
export interface CreatePaymentMethodRequest {
  paymentMethodType: 'LOCAL_TRANSFER' | 'INTERNATIONAL_TRANSFER';
  country: string;
  paymentType?: 'LOCAL_BANK_WIRE';
  currency?: string;
  publicToken?: string;
  plaidPublicToken?: string;
  plaidProcessorToken?: string;
  accountNumber?: string;
  routingNumber?: string;
  clabe?: string;
  accountType?: 'CHECKING' | 'SAVINGS';
  beneficiaryType?: 'INDIVIDUAL' | 'CORPORATE';
  firstNameOnAccount?: string;
  lastNameOnAccount?: string;
  beneficiaryAddress?: string;
  beneficiaryAddress2?: string;
  beneficiaryCity?: string;
  beneficiaryState?: string;
  beneficiaryPostal?: string;
  beneficiaryPhoneNumber?: string;
  beneficiaryLandlineNumber?: string;
  beneficiaryEmailAddress?: string;
  beneficiaryEinTin?: string;
  beneficiaryCompanyName?: string;
  beneficiaryDobDay?: string;
  beneficiaryDobMonth?: string;
  beneficiaryDobYear?: string;
  /** The owner's SRN; must be the account or user the call acts as. */
  owner?: string;
  /** Deposit addresses to attach at once: "BTC", "ALL" or "BTC,ETH,…". */
  attachBlockchains?: string;
  chargeablePM?: boolean | string;
}

/** POST /v2/paymentMethod/{id}/attach. */
export interface AttachBlockchainsRequest {
  /** "BTC", "ALL" or "BTC,ETH,…". */
  blockchain: string;
  notifyUrl?: string;
  muteMessages?: boolean | string;
}

export interface PaymentMethod {
  id: string;
  owner: string;
  createdAt: EpochMs;
  name: string;
  status: 'PENDING' | 'ACTIVE' | 'REJECTED' | 'DISABLED';
  linkType: string;
  last4Digits: string;
  /** Deposit addresses attached, keyed by currency. */
  blockchains: Record<string, string>;
  srn: string;
}
