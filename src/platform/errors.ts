/**
 * The Wyre error envelope and the one table mapping an error type to its HTTP status.
 * Services throw ApiError (or return it); only the HTTP error handler turns it into bytes.
 */

export type ErrorType =
  | 'ValidationException'
  | 'FieldRequiredException'
  | 'JsonFormatException'
  | 'InsufficientFundsException'
  | 'TransferException'
  | 'MFARequiredException'
  | 'CustomerSupportException'
  | 'AccountLockedException'
  | 'AccessDeniedException'
  | 'NotFoundException'
  | 'MethodNotAllowedException'
  | 'IdempotencyConflictException'
  | 'PayloadTooLargeException'
  | 'UriTooLongException'
  | 'UnsupportedMediaTypeException'
  | 'RateLimitException'
  | 'ServiceUnavailableException'
  | 'NotImplementedException'
  | 'UnknownException';

/** Default status per type; AccessDenied (401/403) and IdempotencyConflict (409/422) vary. */
const STATUS_BY_TYPE: Record<ErrorType, number> = {
  ValidationException: 400,
  FieldRequiredException: 400,
  JsonFormatException: 400,
  InsufficientFundsException: 400,
  TransferException: 400,
  MFARequiredException: 400,
  CustomerSupportException: 400,
  AccountLockedException: 400,
  AccessDeniedException: 401,
  NotFoundException: 404,
  MethodNotAllowedException: 405,
  IdempotencyConflictException: 409,
  PayloadTooLargeException: 413,
  UriTooLongException: 414,
  UnsupportedMediaTypeException: 415,
  RateLimitException: 429,
  ServiceUnavailableException: 503,
  NotImplementedException: 501,
  UnknownException: 500,
};

export interface ErrorEnvelope {
  language: 'en';
  exceptionId: string;
  compositeType: string;
  subType: string;
  errorCode: string;
  message: string;
  type: ErrorType;
  transient: boolean;
  problematicField?: string;
  /** A refused batch's every refused item (docs/contract.md, decision 32). */
  errors?: ItemError[];
}

/** One refused item of a batch request, as its envelope lists it. */
export interface ItemError {
  index: number;
  problematicField: string;
  errorCode: string;
  message: string;
}

export interface ApiErrorOptions {
  status?: number;
  problematicField?: string;
  transient?: boolean;
  /** Extra response headers, e.g. Retry-After or Allow. */
  headers?: Record<string, string>;
}

export class ApiError extends Error {
  readonly status: number;
  readonly problematicField: string | undefined;
  readonly transient: boolean;
  readonly headers: Record<string, string>;

  constructor(
    readonly type: ErrorType,
    readonly errorCode: string,
    message: string,
    options: ApiErrorOptions = {},
  ) {
    // Expected refusals need no stack trace, and capturing one is the costliest part of an
    // error answer; faults we did not foresee are plain Errors and keep theirs.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.status = options.status ?? STATUS_BY_TYPE[type];
    this.problematicField = options.problematicField;
    this.transient =
      options.transient ?? (type === 'UnknownException' || type === 'ServiceUnavailableException');
    this.headers = options.headers ?? {};
  }

  toEnvelope(exceptionId: string): ErrorEnvelope {
    const envelope: ErrorEnvelope = {
      language: 'en',
      exceptionId,
      compositeType: '',
      subType: '',
      errorCode: this.errorCode,
      message: this.message,
      type: this.type,
      transient: this.transient,
    };
    if (this.problematicField !== undefined) envelope.problematicField = this.problematicField;
    return envelope;
  }
}

export const invalidValue = (field: string, message: string, errorCode = 'validation.invalidValue') =>
  new ApiError('ValidationException', errorCode, message, { problematicField: field });

export const fieldRequired = (field: string) =>
  new ApiError('FieldRequiredException', 'validation.fieldRequired', `Field ${field} is required.`, {
    problematicField: field,
  });

export const notFound = (what: string) => new ApiError('NotFoundException', 'notFound', `${what} not found.`);

export const unauthenticated = (errorCode: string, message: string) =>
  new ApiError('AccessDeniedException', errorCode, message, { status: 401 });

export const forbidden = (message: string, errorCode = 'accessDenied.forbidden') =>
  new ApiError('AccessDeniedException', errorCode, message, { status: 403 });

export const internalFault = () =>
  new ApiError(
    'UnknownException',
    'unknown',
    'An unexpected error occurred; quote the exceptionId to support.',
    {
      transient: true,
    },
  );
