/**
 * Errors the SDK throws. Every non-2xx answer of Rampart carries the Wyre envelope
 * (`{language, exceptionId, compositeType, subType, errorCode, message, type, transient,
 * problematicField?}`); it becomes an instance of the class named after its `type`, so callers can
 * write `catch (e) { if (e instanceof ValidationException) … }` and read `e.errorCode`.
 */

/** The envelope as sent by the server. */
export interface ErrorEnvelope {
  language: string;
  exceptionId: string;
  compositeType: string;
  subType: string;
  errorCode: string;
  message: string;
  type: string;
  transient: boolean;
  problematicField?: string;
  /** A refused batch (POST /v2/wallets/batch): every refused item, by its index in the request. */
  errors?: { index: number; problematicField: string; errorCode: string; message: string }[];
}

/** Base of every error the SDK throws for an HTTP answer that is not 2xx. */
export class RampartApiError extends Error {
  override name = 'RampartApiError';
  /** The envelope `type`, e.g. `ValidationException`. */
  readonly type: string;
  /** Finer code, e.g. `validation.invalidValue`, `limits.dailyLimitReached`. */
  readonly errorCode: string;
  /** Support reference logged with the fault on the server (`test_` prefix in sandbox). */
  readonly exceptionId: string;
  readonly status: number;
  /** Dotted path of the field at fault, when the server names one. */
  readonly problematicField: string | undefined;
  /** True when sending the same request again may succeed. */
  readonly transient: boolean;
  /** Seconds from a `Retry-After` header, when present. */
  readonly retryAfterSeconds: number | undefined;
  readonly envelope: ErrorEnvelope;

  constructor(status: number, envelope: ErrorEnvelope, retryAfterSeconds?: number) {
    super(`${envelope.type} ${envelope.errorCode} (HTTP ${status}): ${envelope.message}`);
    this.type = envelope.type;
    this.errorCode = envelope.errorCode;
    this.exceptionId = envelope.exceptionId;
    this.status = status;
    this.problematicField = envelope.problematicField;
    this.transient = envelope.transient;
    this.retryAfterSeconds = retryAfterSeconds;
    this.envelope = envelope;
  }
}

export class ValidationException extends RampartApiError {
  override name = 'ValidationException';
}
/** A required field is missing; also a ValidationException, as in Wyre. */
export class FieldRequiredException extends ValidationException {
  override name = 'FieldRequiredException';
}
export class JsonFormatException extends RampartApiError {
  override name = 'JsonFormatException';
}
export class InsufficientFundsException extends RampartApiError {
  override name = 'InsufficientFundsException';
}
export class TransferException extends RampartApiError {
  override name = 'TransferException';
}
export class MFARequiredException extends RampartApiError {
  override name = 'MFARequiredException';
}
export class CustomerSupportException extends RampartApiError {
  override name = 'CustomerSupportException';
}
export class AccountLockedException extends RampartApiError {
  override name = 'AccountLockedException';
}
/** 401 (no or bad credentials) or 403 (authenticated, not allowed): see `status`. */
export class AccessDeniedException extends RampartApiError {
  override name = 'AccessDeniedException';
}
export class NotFoundException extends RampartApiError {
  override name = 'NotFoundException';
}
export class MethodNotAllowedException extends RampartApiError {
  override name = 'MethodNotAllowedException';
}
/** 409: same Idempotency-Key still in flight (transient); 422: key reused with another request. */
export class IdempotencyConflictException extends RampartApiError {
  override name = 'IdempotencyConflictException';
}
export class PayloadTooLargeException extends RampartApiError {
  override name = 'PayloadTooLargeException';
}
export class UriTooLongException extends RampartApiError {
  override name = 'UriTooLongException';
}
export class UnsupportedMediaTypeException extends RampartApiError {
  override name = 'UnsupportedMediaTypeException';
}
export class RateLimitException extends RampartApiError {
  override name = 'RateLimitException';
}
export class ServiceUnavailableException extends RampartApiError {
  override name = 'ServiceUnavailableException';
}
export class UnknownException extends RampartApiError {
  override name = 'UnknownException';
}
/** 501: a Wyre feature the server does not offer (swaps, SEP-24, firewall permits); not worth retrying. */
export class NotImplementedException extends RampartApiError {
  override name = 'NotImplementedException';
}

type ApiErrorClass = new (
  status: number,
  envelope: ErrorEnvelope,
  retryAfterSeconds?: number,
) => RampartApiError;

/** One class per envelope `type` of the server's ErrorType (src/platform/errors.ts). */
export const ERROR_CLASSES: Readonly<Record<string, ApiErrorClass>> = {
  ValidationException,
  FieldRequiredException,
  JsonFormatException,
  InsufficientFundsException,
  TransferException,
  MFARequiredException,
  CustomerSupportException,
  AccountLockedException,
  AccessDeniedException,
  NotFoundException,
  MethodNotAllowedException,
  IdempotencyConflictException,
  PayloadTooLargeException,
  UriTooLongException,
  UnsupportedMediaTypeException,
  RateLimitException,
  ServiceUnavailableException,
  NotImplementedException,
  UnknownException,
};

function isEnvelope(value: unknown): value is ErrorEnvelope {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.type === 'string' && typeof v.errorCode === 'string' && typeof v.message === 'string';
}

/**
 * The error for a non-2xx answer. A body that is not an envelope (a proxy's HTML page, say) gets
 * a synthetic one: 5xx are UnknownException/ServiceUnavailableException and transient, others
 * the base class with errorCode `http.<status>`.
 */
export function errorFromResponse(
  status: number,
  body: unknown,
  retryAfterSeconds?: number,
): RampartApiError {
  const envelope = isEnvelope(body) ? normalized(body) : syntheticEnvelope(status);
  const ErrorClass = ERROR_CLASSES[envelope.type] ?? RampartApiError;
  return new ErrorClass(status, envelope, retryAfterSeconds);
}

function normalized(body: ErrorEnvelope): ErrorEnvelope {
  return {
    ...body,
    language: body.language ?? 'en',
    exceptionId: typeof body.exceptionId === 'string' ? body.exceptionId : '',
    compositeType: body.compositeType ?? '',
    subType: body.subType ?? '',
    transient: body.transient === true,
  };
}

function syntheticEnvelope(status: number): ErrorEnvelope {
  const unavailable = status === 502 || status === 503 || status === 504;
  const type =
    status >= 500 ? (unavailable ? 'ServiceUnavailableException' : 'UnknownException') : 'HttpError';
  return {
    language: 'en',
    exceptionId: '',
    compositeType: '',
    subType: '',
    errorCode: `http.${status}`,
    message: `HTTP ${status} without an error envelope`,
    type,
    transient: status >= 500,
  };
}

/** The request never got an answer: connection refused or reset, DNS failure, TLS failure. */
export class RampartConnectionError extends Error {
  override name = 'RampartConnectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** No answer within `timeoutMs` (per attempt). */
export class RampartTimeoutError extends Error {
  override name = 'RampartTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`No answer within ${timeoutMs} ms`);
  }
}

/** A callback whose `X-Rampart-Signature` does not verify (see verifyCallback). */
export class CallbackSignatureError extends Error {
  override name = 'CallbackSignatureError';
}
