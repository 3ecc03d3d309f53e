import type { CallOptions } from '../transport.js';
import type { ListPage, ListQuery } from '../types/common.js';
import type {
  Account,
  ApiKey,
  CreateAccountRequest,
  CreateApiKeyRequest,
  SessionKey,
  UpdateAccountRequest,
  UploadAccountDocumentRequest,
} from '../types/identity.js';
import type {
  AttachBlockchainsRequest,
  CreatePaymentMethodRequest,
  CreateUserRequest,
  GetUserQuery,
  OnboardingLink,
  PaymentMethod,
  UpdateUserRequest,
  UploadDocumentRequest,
  User,
} from '../types/users.js';
import type { Caller } from './caller.js';

export class SessionsApi {
  constructor(private readonly call: Caller) {}

  /** POST /v2/sessions/auth/key: registers a client-generated secret (sent in the body, not the URL). */
  registerKey(secretKey: string, options?: CallOptions): Promise<SessionKey> {
    return this.call('registerSessionKey', { json: { secretKey } }, options);
  }
}

export class ApiKeysApi {
  constructor(private readonly call: Caller) {}

  /** POST /v2/apiKeys; the answer's secretKey is shown once. */
  create(request: CreateApiKeyRequest = {}, options?: CallOptions): Promise<ApiKey> {
    return this.call('createApiKey', { json: request }, options);
  }

  /** DELETE /v2/apiKey/{apiKey}: the key stops working at once. */
  async delete(apiKey: string, options?: CallOptions): Promise<void> {
    await this.call('deleteApiKey', { pathParams: { apiKey } }, options);
  }
}

export class AccountsApi {
  constructor(private readonly call: Caller) {}

  create(request: CreateAccountRequest, options?: CallOptions): Promise<Account> {
    return this.call('createAccount', { json: request }, options);
  }

  get(accountId: string, options?: CallOptions): Promise<Account> {
    return this.call('getAccount', { pathParams: { accountId } }, options);
  }

  update(accountId: string, request: UpdateAccountRequest, options?: CallOptions): Promise<Account> {
    return this.call('updateAccount', { pathParams: { accountId }, json: request }, options);
  }

  /** POST /v3/accounts/{accountId}/{fieldId}: the raw file, signed byte for byte; answers the Account. */
  uploadDocument(
    accountId: string,
    fieldId: 'individualGovernmentId' | 'individualProofOfAddress',
    request: UploadAccountDocumentRequest,
    options?: CallOptions,
  ): Promise<Account> {
    return this.call(
      'uploadAccountDocument',
      {
        pathParams: { accountId, fieldId },
        query: { documentType: request.documentType, documentSubType: request.documentSubType },
        raw: { data: request.data, contentType: request.contentType },
      },
      options,
    );
  }
}

/**
 * Users API. Every call about one user must masquerade as that user; unless the client already
 * masquerades, these methods add `masqueradeAs=user:<userId>` themselves.
 */
export class UsersApi {
  constructor(private readonly call: Caller) {}

  create(request: CreateUserRequest = {}, options?: CallOptions): Promise<User> {
    return this.call('createUser', { json: request }, options);
  }

  get(userId: string, query: GetUserQuery = {}, options?: CallOptions): Promise<User> {
    return this.call(
      'getUser',
      { pathParams: { userId }, query: { scopes: query.scopes }, defaultMasquerade: `user:${userId}` },
      options,
    );
  }

  update(userId: string, request: UpdateUserRequest, options?: CallOptions): Promise<User> {
    return this.call(
      'updateUser',
      { pathParams: { userId }, json: request, defaultMasquerade: `user:${userId}` },
      options,
    );
  }

  /** POST /v3/users/{userId}/{fieldId}: the raw file, signed byte for byte; 204. */
  async uploadDocument(
    userId: string,
    fieldId: 'governmentIdFront' | 'governmentIdBack',
    request: UploadDocumentRequest,
    options?: CallOptions,
  ): Promise<void> {
    await this.call(
      'uploadDocument',
      {
        pathParams: { userId, fieldId },
        query: { docType: request.docType },
        raw: { data: request.data, contentType: request.contentType },
        defaultMasquerade: `user:${userId}`,
      },
      options,
    );
  }

  onboardingLink(userId: string, options?: CallOptions): Promise<OnboardingLink> {
    return this.call(
      'getOnboardingLink',
      { pathParams: { userId }, defaultMasquerade: `user:${userId}` },
      options,
    );
  }
}

/** A user's bank accounts: call through `client.masquerade('user:US_…')`. */
export class PaymentMethodsApi {
  constructor(private readonly call: Caller) {}

  create(request: CreatePaymentMethodRequest, options?: CallOptions): Promise<PaymentMethod> {
    return this.call('createPaymentMethod', { json: request }, options);
  }

  list(query: ListQuery = {}, options?: CallOptions): Promise<ListPage<PaymentMethod>> {
    return this.call('listPaymentMethods', { query: { offset: query.offset, limit: query.limit } }, options);
  }

  get(paymentMethodId: string, options?: CallOptions): Promise<PaymentMethod> {
    return this.call('getPaymentMethod', { pathParams: { paymentMethodId } }, options);
  }

  /** Disables the method; answers it as it now is. */
  delete(paymentMethodId: string, options?: CallOptions): Promise<PaymentMethod> {
    return this.call('deletePaymentMethod', { pathParams: { paymentMethodId } }, options);
  }

  /** Attaches deposit addresses; answers the method with `blockchains` keyed by currency. */
  attach(
    paymentMethodId: string,
    request: AttachBlockchainsRequest,
    options?: CallOptions,
  ): Promise<PaymentMethod> {
    return this.call(
      'attachPaymentMethodBlockchains',
      { pathParams: { paymentMethodId }, json: request },
      options,
    );
  }
}
