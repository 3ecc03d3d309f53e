export {
  CALLBACK_SIGNATURE_HEADER,
  signCallback,
  type VerifyCallbackOptions,
  verifyCallback,
} from './callbacks.js';
export { RampartClient } from './client.js';
export { ENDPOINTS, type Endpoint, type EndpointName, type Repeatability } from './endpoints.js';
export * from './errors.js';
export { AMOUNT_KEYS, AMOUNT_MAPS, parseExactJson } from './exact-json.js';
export type { RetryOptions } from './retry.js';
export { createDecentralizedSession, type DecentralizedSession, SESSION_SECRET_LENGTH } from './sessions.js';
export { signRequest } from './signing.js';
export type { BearerAuth, CallOptions, ClientOptions, SignatureAuth } from './transport.js';
export type * from './types/common.js';
export type * from './types/identity.js';
export type * from './types/orders.js';
export type * from './types/transfers.js';
export type * from './types/users.js';
export type * from './types/v2.js';
